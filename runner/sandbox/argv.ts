// The bwrap argument builder (docs/sandbox.md#the-invocation): the ONLY expander of
// the static profile template. Every variable part is validated before it can become an argument:
// no writer-controlled string ever reaches an option position, `--` always precedes the command,
// and the output is a deterministic function of its inputs.
import { fail } from '../../src/core/errors.js';
import { reviewerEnvNameAllowed } from '../../src/core/policy-rules.js';
import { dependencyRootAllowed, interpreterSegmentsAllowed } from '../../src/core/sandbox-bounds.js';
import { CHECK_PROFILE_ARGV, EGRESS_PROFILE_ARGV, FIXED_ENV, GO_FD, PROFILE_ARGV, PRLIMIT_NAMES, RELAY_PROFILE_ARGV, SANDBOX_PATHS, type FdName, type ProfileKind } from './profile.js';
import { EGRESS_ENV, EGRESS_ENV_NAMES, EGRESS_PROVIDERS, relayEnv, TERMINATE_ENV_NAMES, type EgressProvider } from '../../src/core/egress-rules.js';
import { prlimitValues, validateLimits, type SandboxLimits } from './limits.js';

/** Descriptor numbers inside bwrap: the index in the spawn stdio array (0–2 are stdio). */
export const FD_NUMBERS: Readonly<Record<FdName, number>> = { seccomp: 3, status: 4, block: 5, bundle: 6, reviewer: 7, go: GO_FD, snapshot: 10, dependencies: 11, relay: 10 };

const ENV_NAME_RE = SANDBOX_ENV_NAME_RE;
const RESERVED_ENV = new Set([...FIXED_ENV.map(([k]) => k), 'PWD']);
/** Same shape as the policy's reviewer interpreter (docs/reviewers.md#the-reviewers-world: a root-owned file under /usr). */
const INTERPRETER_RE = /^\/usr\/[A-Za-z0-9._+-][A-Za-z0-9._/+-]{0,199}$/;
import { REVIEWER_ENV_VALUE_MAX as MAX_ENV_VALUE } from '../../src/core/limits.js';
import { REVIEWER_ENV_MAX_VARS as MAX_ENV_VARS } from '../../src/core/limits.js';
import { EGRESS_SOCKET_PATH_RE, SANDBOX_ENV_NAME_RE } from '../../src/core/sandbox-bounds.js';

/** The runner's egress wiring (docs/egress.md): the broker socket's host path and its variables. */
export interface EgressWiring {
  readonly socket: string;
  readonly env: Readonly<Record<string, string>>;
  /** The reviewer speaks TCP only: the relay profile, with the relay's variables in `env`
   * (docs/egress.md#the-in-sandbox-relay). */
  readonly relay?: boolean | undefined;
  /** Behind the relay in TLS-terminating mode: the proxy and CA variables are in `env` too
   * (docs/egress.md#tls-terminating-mode). */
  readonly terminate?: boolean | undefined;
}

export interface ArgvInputs {
  /** Present for a reviewer with an egress entry: the egress profile is expanded instead. */
  readonly egress?: EgressWiring | undefined;
  readonly interpreter: string;
  /** Policy-supplied reviewer variables (never the caller's environment). */
  readonly env: Readonly<Record<string, string>>;
  readonly limits: SandboxLimits;
  /** Which pinned template to expand (default: the reviewer profile). */
  readonly profile?: ProfileKind;
  /** Check profile: the policy's dependency root (a relative path), or null when none is declared. */
  readonly dependencyRoot?: string | null;
}

/** The policy's dependency root becomes one destination path under /snapshot: a relative path with
 * no empty, `.`, `..` or option-like segment (the policy schema refuses the rest; checked again). */
export function validateDependencyRoot(p: unknown): asserts p is string {
  if (typeof p !== 'string' || !dependencyRootAllowed(p)) fail('sandbox_argument_invalid', ['dependency_root']);
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
  if (w === null || typeof w !== 'object' || typeof w.socket !== 'string' || !EGRESS_SOCKET_PATH_RE.test(w.socket) || w.socket.split('/').includes('..')) {
    fail('sandbox_argument_invalid', ['egress.socket']);
  }
  const env = w.env as Record<string, unknown>;
  if (w.relay !== undefined && typeof w.relay !== 'boolean') fail('sandbox_argument_invalid', ['egress.relay']);
  if (w.terminate !== undefined && (w.terminate !== true || w.relay !== true)) fail('sandbox_argument_invalid', ['egress.terminate']);
  const provider = env === null || typeof env !== 'object' ? undefined : env[EGRESS_ENV.provider];
  if (!(EGRESS_PROVIDERS as readonly unknown[]).includes(provider)) fail('sandbox_argument_invalid', ['egress.env']);
  // Exactly the egress variables, plus the relay's for this provider behind the relay.
  const names = [...EGRESS_ENV_NAMES, ...(w.relay === true ? Object.keys(relayEnv(provider as EgressProvider, '')) : []), ...(w.terminate === true ? TERMINATE_ENV_NAMES : [])];
  if (Object.keys(env).sort().join(',') !== names.sort().join(',')) fail('sandbox_argument_invalid', ['egress.env']);
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
  const check = inputs.profile === 'check';
  // A check reviewer never has egress: the two variable parts belong to different templates.
  if (check && inputs.egress !== undefined) fail('sandbox_argument_invalid', ['profile']);
  const dep = check ? (inputs.dependencyRoot ?? null) : null;
  if (dep !== null) validateDependencyRoot(dep);
  const wiring = inputs.egress;
  if (wiring !== undefined) {
    validateEgressWiring(wiring);
    // The runner's variables are set after the policy's; a policy variable of the same name would be
    // silently replaced, so it is refused instead.
    if (Object.keys(inputs.env).some((k) => Object.hasOwn(wiring.env, k))) fail('sandbox_argument_invalid', ['env.name']);
  }
  const egressEnv = inputs.egress === undefined ? [] : Object.keys(inputs.egress.env).sort().flatMap((k) => ['--setenv', k, (inputs.egress as EgressWiring).env[k] as string]);
  const out: string[] = [];
  const template = check ? CHECK_PROFILE_ARGV : inputs.egress === undefined ? PROFILE_ARGV : inputs.egress.relay === true ? RELAY_PROFILE_ARGV : EGRESS_PROFILE_ARGV;
  for (const arg of template) {
    if (typeof arg === 'string') out.push(arg);
    else if ('egress' in arg) {
      if (inputs.egress === undefined) fail('internal_error', ['profile']);
      if (arg.egress === 'socket') out.push(inputs.egress.socket);
      else out.push(...egressEnv);
    }
    else if ('bind' in arg) {
      if (dep !== null) out.push('--ro-bind-fd', String(FD_NUMBERS.dependencies), `${SANDBOX_PATHS.snapshot}/${dep}`);
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
