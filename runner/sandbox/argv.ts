// The bwrap argument builder (docs/sandbox.md#the-invocation): the ONLY expander of
// the static profile template. Every variable part is validated before it can become an argument:
// no writer-controlled string ever reaches an option position, `--` always precedes the command,
// and the output is a deterministic function of its inputs.
import { fail } from '../../src/core/errors.js';
import { reviewerEnvNameAllowed } from '../../src/core/policy-rules.js';
import { interpreterSegmentsAllowed } from '../../src/core/sandbox-bounds.js';
import { EGRESS_PROFILE_ARGV, FIXED_ENV, GO_FD, PROFILE_ARGV, PRLIMIT_NAMES, type FdName } from './profile.js';
import { EGRESS_ENV_NAMES } from '../../src/core/egress-rules.js';
import { prlimitValues, validateLimits, type SandboxLimits } from './limits.js';

/** Descriptor numbers inside bwrap: the index in the spawn stdio array (0–2 are stdio). */
export const FD_NUMBERS: Readonly<Record<FdName, number>> = { seccomp: 3, status: 4, block: 5, bundle: 6, reviewer: 7, go: GO_FD };

const ENV_NAME_RE = /^[A-Z][A-Z0-9_]{0,63}$/;
const RESERVED_ENV = new Set([...FIXED_ENV.map(([k]) => k), 'PWD']);
/** Same shape as the policy's reviewer interpreter (docs/reviewers.md#the-reviewers-world: a root-owned file under /usr). */
const INTERPRETER_RE = /^\/usr\/[A-Za-z0-9._+-][A-Za-z0-9._/+-]{0,199}$/;
import { REVIEWER_ENV_VALUE_MAX as MAX_ENV_VALUE } from '../../src/core/limits.js';
import { REVIEWER_ENV_MAX_VARS as MAX_ENV_VARS } from '../../src/core/limits.js';

/** The runner's egress wiring (docs/egress.md): the broker socket's host path and its variables. */
export interface EgressWiring {
  readonly socket: string;
  readonly env: Readonly<Record<string, string>>;
}

export interface ArgvInputs {
  /** Present for a reviewer with an egress entry: the egress profile is expanded instead. */
  readonly egress?: EgressWiring | undefined;
  readonly interpreter: string;
  /** Policy-supplied reviewer variables (never the caller's environment). */
  readonly env: Readonly<Record<string, string>>;
  readonly limits: SandboxLimits;
}

export function validateInterpreterPath(p: unknown): asserts p is string {
  if (typeof p !== 'string' || !INTERPRETER_RE.test(p)) fail('sandbox_argument_invalid', ['interpreter']);
  // No empty, dot or dot-dot segment, and none that looks like an option: the rule the policy
  // loaders also enforce (src/core/sandbox-bounds.ts), checked again here (defence in depth).
  if (!interpreterSegmentsAllowed(p)) fail('sandbox_argument_invalid', ['interpreter']);
}

export function validatePolicyEnv(env: unknown): asserts env is Record<string, string> {
  if (env === null || typeof env !== 'object' || Array.isArray(env) || Object.getPrototypeOf(env) !== Object.prototype) {
    fail('sandbox_argument_invalid', ['env']);
  }
  const entries = Object.entries(env as Record<string, unknown>);
  if (entries.length > MAX_ENV_VARS) fail('sandbox_argument_invalid', ['env']);
  for (const [k, v] of entries) {
    if (!ENV_NAME_RE.test(k) || RESERVED_ENV.has(k)) fail('sandbox_argument_invalid', ['env.name']);
    // Second line of defence behind the policy loaders (docs/security.md "Reviewer environment"):
    // a loader-influencing variable (NODE_OPTIONS, LD_PRELOAD, …) would run code the reviewer's
    // pinned sha256 does not cover (docs/formats.md#attestors), so the sandbox refuses it even if a caller of this
    // builder never went through a policy.
    if (!reviewerEnvNameAllowed(k)) fail('sandbox_argument_invalid', ['env.name']);
    // A value is one argv element after `--setenv NAME`, so a leading '-' cannot become an option;
    // NUL cannot be passed through execve at all.
    if (typeof v !== 'string' || v.length > MAX_ENV_VALUE || v.includes('\0')) fail('sandbox_argument_invalid', [`env.${k}`]);
  }
}

/** The egress wiring: an absolute socket path of safe characters, exactly the egress variables. */
export function validateEgressWiring(e: unknown): asserts e is EgressWiring {
  const w = e as EgressWiring;
  if (w === null || typeof w !== 'object' || typeof w.socket !== 'string' || !/^\/[A-Za-z0-9._/-]{1,1000}$/.test(w.socket) || w.socket.split('/').includes('..')) {
    fail('sandbox_argument_invalid', ['egress.socket']);
  }
  const env = w.env as Record<string, unknown>;
  if (env === null || typeof env !== 'object' || Object.keys(env).sort().join(',') !== [...EGRESS_ENV_NAMES].sort().join(',')) fail('sandbox_argument_invalid', ['egress.env']);
  for (const v of Object.values(env)) if (typeof v !== 'string' || v.length > MAX_ENV_VALUE || v.includes('\0')) fail('sandbox_argument_invalid', ['egress.env']);
}

/** Expand the profile template for one run. */
export function buildBwrapArgv(inputs: ArgvInputs): string[] {
  validateInterpreterPath(inputs.interpreter);
  validatePolicyEnv(inputs.env);
  validateLimits(inputs.limits);
  const rl = prlimitValues(inputs.limits);
  const envArgs = Object.keys(inputs.env)
    .sort()
    .flatMap((k) => ['--setenv', k, inputs.env[k] as string]);
  if (inputs.egress !== undefined) validateEgressWiring(inputs.egress);
  const egressEnv = inputs.egress === undefined ? [] : Object.keys(inputs.egress.env).sort().flatMap((k) => ['--setenv', k, (inputs.egress as EgressWiring).env[k] as string]);
  const out: string[] = [];
  for (const arg of inputs.egress === undefined ? PROFILE_ARGV : EGRESS_PROFILE_ARGV) {
    if (typeof arg === 'string') out.push(arg);
    else if ('egress' in arg) {
      if (inputs.egress === undefined) fail('internal_error', ['profile']);
      if (arg.egress === 'socket') out.push(inputs.egress.socket);
      else out.push(...egressEnv);
    }
    else if ('fd' in arg) out.push(String(FD_NUMBERS[arg.fd]));
    else if ('env' in arg) out.push(...envArgs);
    else if ('interpreter' in arg) out.push(inputs.interpreter);
    else if (arg.limit === 'tmpfs') out.push(String(inputs.limits.tmpfsBytes));
    else if ((PRLIMIT_NAMES as readonly string[]).includes(arg.limit)) {
      const v = rl[arg.limit];
      out.push(`--${arg.limit}=${v}:${v}`);
    } else fail('internal_error', ['profile']);
  }
  return out;
}
