// The static sandbox profile (docs/runner.md#the-run-step-by-step step 5, docs/policy.md#policy-and-trust-root `sandbox.profile_sha256`; docs/sandbox.md): the
// constant part of how governed runs bubblewrap, as one canonical JSON object with a digest the
// policy allowlists. The argument list is a template: every element is either a fixed string or a
// placeholder object naming the ONLY things that vary between runs —
//   {"fd": name}           the descriptor number of one of the five extra descriptors,
//   {"env": "policy"}      zero or more `--setenv NAME VALUE` triples from the policy's reviewer env,
//   {"limit": name}        one resource-limit value (tmpfs size, or one prlimit `--<name>=N:N`),
//   {"interpreter": "policy"}  the reviewer's interpreter path from the policy.
// The uid/gid bwrap is spawned with (policy sandbox.uid, only when governed runs as root) is not an
// argument. buildBwrapArgv (argv.ts) is the only expander of this template, so the argv that runs is
// by construction an instance of the digest-pinned profile.
import { canonicalJson, sha256Digest, digestHex } from '../../src/core/canonical.js';
import { EGRESS_SANDBOX_SOCKET, RELAY_PORT } from '../../src/core/egress-rules.js';

/** Paths inside the sandbox (docs/reviewers.md#the-reviewers-world: the reviewer's world). */
export const SANDBOX_PATHS = {
  bundle: '/bundle/review-bundle.json',
  reviewer: '/opt/reviewer/reviewer',
  tmp: '/tmp',
  /** Check profile only: the sealed snapshot, read-only (docs/sandbox.md#sealed-snapshots). */
  snapshot: '/snapshot',
} as const;

/** The fixed environment of docs/reviewers.md#the-reviewers-world, in this order; policy variables follow it. */
export const FIXED_ENV: readonly (readonly [string, string])[] = [
  ['GOVERNED_BUNDLE', SANDBOX_PATHS.bundle],
  ['HOME', '/tmp'],
  ['TMPDIR', '/tmp'],
  ['PATH', '/usr/bin'],
  ['LANG', 'C.UTF-8'],
];

/** The extra descriptors bwrap receives, by name (their numbers are FD_NUMBERS in argv.ts). */
export const FD_NAMES = ['seccomp', 'status', 'block', 'bundle', 'reviewer', 'go'] as const;

/** The descriptor the go-gate reads (fixed: a POSIX shell can only close a literal descriptor). */
export const GO_FD = 8;

/**
 * The go-gate, the first program inside the sandbox. bwrap's --block-fd also continues on EOF, so
 * if governed died while the sandbox waited there, bwrap would run the command unreleased. The
 * gate makes release positive: it execs the reviewer chain only after reading the line `go` that
 * release() writes, closes its descriptor first, and exits 125 on EOF (governed gone).
 */
/** The POSIX shell of the /usr base: it runs the go-gate inside the sandbox, and the lifeline
 * watcher outside it (lifeline.ts). A root-owned helper, checked before every spawn. */
export const SHELL_PATH = '/usr/bin/sh';

export const GO_GATE = `IFS= read -r go <&${GO_FD} && [ "$go" = go ] || exit 125; exec ${GO_FD}<&-; exec "$@"`;
/** The check profile's two more descriptors: directory descriptors of the sealed snapshot and the
 * sealed dependency root (bwrap --ro-bind-fd), numbers 10 and 11 (9 is the lifeline). */
export const CHECK_FD_NAMES = ['snapshot', 'dependencies'] as const;
/** The relay profile's one more descriptor: the pinned relay's bytes (--ro-bind-data), number 10
 * (the check profile's descriptors never meet it: a check reviewer has no egress). */
export const RELAY_FD_NAMES = ['relay'] as const;
export type FdName = (typeof FD_NAMES)[number] | (typeof CHECK_FD_NAMES)[number] | (typeof RELAY_FD_NAMES)[number];

/** prlimit resources set from SandboxLimits (core is fixed at 0 in the template). */
export const PRLIMIT_NAMES = ['as', 'cpu', 'fsize', 'nofile', 'nproc'] as const;
export type PrlimitName = (typeof PRLIMIT_NAMES)[number];
export type LimitName = PrlimitName | 'tmpfs';

/** /dev/shm is sized by the profile itself: nothing a reviewer needs lives there. */
import { SANDBOX_DEV_SHM_BYTES as DEV_SHM_BYTES } from '../../src/core/limits.js';

export type ProfileArg =
  | string
  | { readonly fd: FdName }
  | { readonly env: 'policy' }
  | { readonly limit: LimitName }
  | { readonly interpreter: 'policy' }
  | { readonly egress: 'socket' | 'env' }
  /** Check profile only: `--ro-bind-fd <dependencies fd> /snapshot/<policy dependency_root>`, or nothing when the policy declares none. */
  | { readonly bind: 'dependency_root' };

const fd = (name: FdName): ProfileArg => ({ fd: name });
const limit = (name: LimitName): ProfileArg => ({ limit: name });

/** The bwrap argument template, in order (docs/sandbox.md#the-invocation; each flag's reason in docs/sandbox.md). */
export const PROFILE_ARGV: readonly ProfileArg[] = [
  '--unshare-all',
  '--unshare-user',
  '--disable-userns',
  '--die-with-parent',
  '--new-session',
  '--as-pid-1',
  '--cap-drop',
  'ALL',
  '--clearenv',
  ...FIXED_ENV.flatMap(([k, v]) => ['--setenv', k, v]),
  { env: 'policy' },
  '--hostname',
  'governed',
  '--ro-bind',
  '/usr',
  '/usr',
  '--symlink',
  'usr/bin',
  '/bin',
  '--symlink',
  'usr/lib',
  '/lib',
  '--symlink',
  'usr/lib64',
  '/lib64',
  '--symlink',
  'usr/sbin',
  '/sbin',
  '--proc',
  '/proc',
  '--dev',
  '/dev',
  '--size',
  String(DEV_SHM_BYTES),
  '--tmpfs',
  '/dev/shm',
  '--remount-ro',
  '/dev',
  '--size',
  limit('tmpfs'),
  '--tmpfs',
  SANDBOX_PATHS.tmp,
  '--perms',
  '0444',
  '--ro-bind-data',
  fd('bundle'),
  SANDBOX_PATHS.bundle,
  '--perms',
  '0555',
  '--ro-bind-data',
  fd('reviewer'),
  SANDBOX_PATHS.reviewer,
  '--remount-ro',
  '/',
  '--chdir',
  SANDBOX_PATHS.tmp,
  '--seccomp',
  fd('seccomp'),
  '--json-status-fd',
  fd('status'),
  '--block-fd',
  fd('block'),
  '--',
  SHELL_PATH,
  '-c',
  GO_GATE,
  'governed-gate',
  // bwrap always exports PWD after its chdir; docs/reviewers.md#the-reviewers-world fixes the environment exactly, so env(1)
  // removes it before anything of the reviewer runs.
  '/usr/bin/env',
  '-u',
  'PWD',
  '--',
  '/usr/bin/prlimit',
  '--core=0',
  limit('as'),
  limit('cpu'),
  limit('fsize'),
  limit('nofile'),
  limit('nproc'),
  '--',
  { interpreter: 'policy' },
  SANDBOX_PATHS.reviewer,
];

/**
 * The egress profile (docs/egress.md "Sandbox"): the static profile plus the broker's socket bound
 * read-only at one fixed path (a read-only bind still admits connect(2)) and the runner's egress
 * variables after the policy's. Nothing else changes: the network namespace is still empty and the
 * seccomp filter still admits only AF_UNIX sockets, so the socket is the sandbox's only way out.
 * Its own digest, which a policy allowlists beside the plain profile's.
 */
export const EGRESS_PROFILE_ARGV: readonly ProfileArg[] = (() => {
  const out: ProfileArg[] = [];
  for (let i = 0; i < PROFILE_ARGV.length; i++) {
    const arg = PROFILE_ARGV[i] as ProfileArg;
    if (arg === '--remount-ro' && PROFILE_ARGV[i + 1] === '/') out.push('--ro-bind', { egress: 'socket' }, EGRESS_SANDBOX_SOCKET);
    out.push(arg);
    if (typeof arg === 'object' && 'env' in arg && arg.env === 'policy') out.push({ egress: 'env' });
  }
  return out;
})();

const REMOUNT_ROOT = PROFILE_ARGV.findIndex((a, i) => a === '--remount-ro' && PROFILE_ARGV[i + 1] === '/');

/**
 * The check profile (docs/sandbox.md#the-check-profile-check-reviewers): the reviewer profile plus, just before the
 * root is remounted read-only, the sealed snapshot at /snapshot and the sealed dependency root on
 * its mount point inside it, both read-only binds of descriptors governed opened on its private
 * copies. Nothing else differs: same namespaces, seccomp, limits, /tmp (the only writable place),
 * go-gate and command. Its digest is pinned like the reviewer profile's (`profile_sha256`).
 */
export const CHECK_PROFILE_ARGV: readonly ProfileArg[] = [
  ...PROFILE_ARGV.slice(0, REMOUNT_ROOT),
  '--ro-bind-fd',
  fd('snapshot'),
  SANDBOX_PATHS.snapshot,
  { bind: 'dependency_root' },
  ...PROFILE_ARGV.slice(REMOUNT_ROOT),
];

/** The in-sandbox relay (docs/egress.md#the-in-sandbox-relay): where its pinned bytes appear, the
 * fixed interpreter that runs it (a root-owned file under /usr, checked before every run like the
 * other helpers), and the loopback port it listens on inside the sandbox's own network namespace. */
export const RELAY_PATH = '/opt/governed/relay.mjs';
export const RELAY_INTERPRETER = '/usr/bin/node';

/**
 * The relay profile (docs/egress.md#the-in-sandbox-relay): the egress profile plus the pinned relay
 * bound read-only at RELAY_PATH and started as the first program after prlimit, before the reviewer
 * (`node relay.mjs 3128 /run/governed/egress.sock <interpreter> <reviewer>`). Same namespaces — the
 * network namespace is still a new, empty one (`--unshare-all`, never `--share-net`) — same mounts,
 * limits and go-gate; its seccomp filter is the `loopback-tcp` one (named in the profile, so the
 * digest binds it), which admits TCP stream sockets: the only TCP peer in that namespace is the
 * relay's listener on the sandbox's own loopback. For clients that speak TCP only (hosted CLIs).
 */
export const RELAY_PROFILE_ARGV: readonly ProfileArg[] = (() => {
  const out: ProfileArg[] = [];
  for (let i = 0; i < EGRESS_PROFILE_ARGV.length; i++) {
    const arg = EGRESS_PROFILE_ARGV[i] as ProfileArg;
    if (arg === '--remount-ro' && EGRESS_PROFILE_ARGV[i + 1] === '/') out.push('--perms', '0555', '--ro-bind-data', fd('relay'), RELAY_PATH);
    // After prlimit's `--`: the relay runs first and starts `<interpreter> <reviewer>` itself.
    if (typeof arg === 'object' && 'interpreter' in arg) out.push(RELAY_INTERPRETER, RELAY_PATH, String(RELAY_PORT), EGRESS_SANDBOX_SOCKET);
    out.push(arg);
  }
  return out;
})();

/** The four static profiles: a reviewer's, a check reviewer's (sealed snapshot), a model reviewer's
 * (egress socket), and a TCP-only model client's (egress socket + in-sandbox relay). */
export type ProfileKind = 'reviewer' | 'check' | 'egress' | 'relay';

/** Absolute helpers the template executes inside the sandbox (checked to exist before a run). */
export const SANDBOX_HELPERS = [SHELL_PATH, '/usr/bin/env', '/usr/bin/prlimit'] as const;

export const MIN_BWRAP_VERSION = [0, 8, 0] as const;

export interface StaticProfile {
  readonly kind: 'governed/sandbox-profile';
  readonly version: 1;
  readonly arch: 'x86_64';
  readonly bwrap_min_version: string;
  /** How bwrap itself is spawned (constant facts; the uid is the policy's when governed is root). */
  readonly spawn: {
    readonly env: Record<string, never>;
    readonly cwd: '/';
    readonly stdio: readonly string[];
    readonly extra_fds: readonly FdName[];
    readonly inherited_fds: 'closed';
    readonly uid: 'policy sandbox.uid when euid is 0, else unchanged';
  };
  readonly argv: readonly ProfileArg[];
  /** Relay profile only: the seccomp filter it runs under (runner/seccomp SocketRule). The other
   * profiles predate the field and run the `unix` filter; their digests are unchanged. */
  readonly seccomp_sockets?: 'loopback-tcp';
}

/** The seccomp filter a profile runs under. */
export function profileSockets(kind: ProfileKind): 'unix' | 'loopback-tcp' {
  return kind === 'relay' ? 'loopback-tcp' : 'unix';
}

export function staticProfile(kind: ProfileKind = 'reviewer'): StaticProfile {
  if (kind === 'relay') {
    const base = staticProfile('egress');
    return { ...base, spawn: { ...base.spawn, extra_fds: [...FD_NAMES, ...RELAY_FD_NAMES] }, argv: RELAY_PROFILE_ARGV, seccomp_sockets: 'loopback-tcp' };
  }
  if (kind === 'check') {
    const base = staticProfile('reviewer');
    return { ...base, spawn: { ...base.spawn, extra_fds: [...FD_NAMES, ...CHECK_FD_NAMES] }, argv: CHECK_PROFILE_ARGV };
  }
  return {
    kind: 'governed/sandbox-profile',
    version: 1,
    arch: 'x86_64',
    bwrap_min_version: MIN_BWRAP_VERSION.join('.'),
    spawn: {
      env: {},
      cwd: '/',
      stdio: ['/dev/null', 'stdout pipe (capped)', 'stderr pipe (counted, discarded)'],
      extra_fds: [...FD_NAMES],
      inherited_fds: 'closed',
      uid: 'policy sandbox.uid when euid is 0, else unchanged',
    },
    argv: kind === 'egress' ? EGRESS_PROFILE_ARGV : PROFILE_ARGV,
  };
}

/** `sha256:<hex>` over the RFC 8785 bytes of staticProfile(kind). */
export function staticProfileDigest(kind: ProfileKind = 'reviewer'): string {
  return sha256Digest(canonicalJson(staticProfile(kind)));
}

/** The bare hex form the policy's `sandbox.profile_sha256` lists. */
export function staticProfileSha256(kind: ProfileKind = 'reviewer'): string {
  return digestHex(staticProfileDigest(kind));
}
