// The sandbox bounds a policy can reach (docs/threat-model.md#rules-that-hold-everywhere fail closed, docs/reviewers.md#the-reviewers-world, docs/runner.md#the-run-step-by-step step 5): ONE definition read
// by the policy's cross-field rules (./policy-rules.ts, both loaders) and by the sandbox itself
// (runner/sandbox/limits.ts ranges, runner/sandbox/argv.ts interpreter rule), so a policy that loads
// is a policy the sandbox accepts at every run — `init`, `policy update` and `review-challenge` can
// no longer accept settings that would make every issued challenge unrunnable. The sandbox keeps its
// own checks (defence in depth: a caller of runner/sandbox need not have loaded a policy). Pure.
import { CHECK_DEPENDENCY_ROOT_MAX_CHARS } from './limits.js';

/** An interpreter or check program: an absolute path under /usr (the segment rule below applies
 * too). The policy, the challenge record, the receipt predicate and the sandbox read this one. */
export const INTERPRETER_PATH_RE = /^\/usr\/[A-Za-z0-9._/+-]{1,200}$/;
/** A variable name set inside the sandbox (a reviewer's environment, the egress wiring). */
export const SANDBOX_ENV_NAME_RE = /^[A-Z][A-Z0-9_]{0,63}$/;
/** A variable name a review-pass tool sets (its repository sandbox; a leading `_` allowed). */
export const TOOL_ENV_NAME_RE = /^[A-Z_][A-Z0-9_]{0,63}$/;
/** The egress broker's socket path as the sandbox binds it: absolute, a closed alphabet (the `..`
 * segment is refused beside it). */
export const EGRESS_SOCKET_PATH_RE = /^\/[A-Za-z0-9._/-]{1,1000}$/;

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** Inclusive [min, max] in the sandbox's own unit. */
export type Bound = readonly [number, number];

/**
 * The policy-settable limits, in the unit the sandbox uses (runner/sandbox/limits.ts SandboxLimits):
 * the wall-clock timeout in milliseconds (a policy's `sandbox.timeout` is whole seconds, ≥ 1 s, so
 * the 100 ms floor is never reached from a policy), RLIMIT_AS in bytes (below 16 MiB nothing starts;
 * 1024 GiB is far above any host), the stdout cap in bytes (256 MiB: governed buffers the output).
 */
export const SANDBOX_BOUNDS = {
  timeoutMs: [100, 24 * 3600 * 1000],
  memoryBytes: [16 * MiB, 1024 * GiB],
  maxOutputBytes: [1, 256 * MiB],
} as const satisfies Readonly<Record<string, Bound>>;

/** Whether `v` is a safe integer inside `bound` (inclusive). */
export function withinBound(v: number, bound: Bound): boolean {
  return Number.isSafeInteger(v) && v >= bound[0] && v <= bound[1];
}

/**
 * The interpreter-path segment rule (docs/reviewers.md#the-reviewers-world: a root-owned file under /usr, named exactly): no
 * empty (`//`, trailing `/`), `.` or `..` segment — the path the receipt states must be the file that
 * runs, with no aliasing — and no segment starting with `-`, which an argument parser could read as
 * an option. `p` is an absolute path; its leading `/` is not a segment.
 */
export function interpreterSegmentsAllowed(p: string): boolean {
  return !p
    .split('/')
    .slice(1)
    .some((s) => s === '' || s === '.' || s === '..' || s.startsWith('-'));
}

/**
 * A check reviewer's dependency root (docs/reviewers.md#check-reviewers): one relative path that
 * becomes the destination `/snapshot/<path>` of a read-only bind — plain segments of
 * `[A-Za-z0-9._@+-]`, none empty, `.`, `..` or starting with `-`, at most 256 characters. The policy
 * loaders, the bundle's `check` inputs (./bundle/schema.ts, which the pinned check reviewers parse)
 * and the sandbox's argv builder apply this one rule.
 */
export function dependencyRootAllowed(p: string): boolean {
  return (
    p.length >= 1 &&
    p.length <= CHECK_DEPENDENCY_ROOT_MAX_CHARS &&
    /^[A-Za-z0-9._@+/-]+$/.test(p) &&
    !p.split('/').some((s) => s === '' || s === '.' || s === '..' || s.startsWith('-'))
  );
}

/** A check command's program: an absolute path under /usr with the interpreter's segment rule. */
export function checkProgramAllowed(p: string): boolean {
  return INTERPRETER_PATH_RE.test(p) && interpreterSegmentsAllowed(p);
}

/**
 * A check command (docs/reviewers.md#check-reviewers): its program allowed (above) and no argument
 * holding a NUL (execve cannot pass one: the run would fail at every challenge). The policy loaders
 * and the bundle's `check` inputs (./bundle/schema.ts) apply this one rule; the argument count and
 * lengths are the schemas' (./limits.ts).
 */
export function checkCommandAllowed(argv: readonly string[]): boolean {
  const [program, ...args] = argv;
  return program !== undefined && checkProgramAllowed(program) && !args.some((a) => a.includes('\0'));
}
