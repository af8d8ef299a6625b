// A read-only bubblewrap view of a repository for NON-governed reviewers (docs/review-pass.md#review-protocols "run as child
// processes in a read-only sandbox of the repository with no network, unless that reviewer's entry
// says network: true"). This is not the governed runner's sandbox (runner/sandbox/, docs/runner.md#the-run-step-by-step step 5):
// a non-governed reviewer is *meant* to read the repository, so the repository is bound read-only at
// a fixed path instead of being withheld. Everything else follows docs/sandbox.md#the-invocation:
//   - bwrap is spawned by absolute path with an EMPTY environment (the PID-1 environ leak), cwd `/`;
//   - `--unshare-all --unshare-user --disable-userns`: every namespace, the network one included
//     (unless `network: true`, the documented egress path: `--share-net` plus the few /etc files DNS
//     and TLS need), a user namespace even for root callers, and no nested user namespaces;
//   - `--die-with-parent --new-session --as-pid-1 --cap-drop ALL`;
//   - `--clearenv` plus an explicit environment;
//   - read-only `/usr` (and the host's /bin, /lib... layout), fresh `/proc` and `/dev`, a bounded
//     `/dev/shm` and `/tmp`, `--remount-ro /`;
//   - the repository ro-bound at /repo, governed's own node_modules (for tsc/ESLint) ro-bound at
//     /opt/governed/node_modules, a prompt file (when used) delivered as bytes through a descriptor
//     (`--ro-bind-data`), never as a host path;
//   - `--` before the command, and argv entries validated (no NUL; absolute program path);
//   - a wall-clock timeout that SIGKILLs bwrap's whole process group, an stdout cap, stderr drained
//     and never kept (it may echo source text: docs/threat-model.md#rules-that-hold-everywhere "No secrets in output");
//   - `--json-status-fd` tells a sandbox setup failure (no `exit-code` record) from a reviewer that
//     exited non-zero.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';
import { closeSync, existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';

export const BWRAP = '/usr/bin/bwrap';
export const SANDBOX_REPO = '/repo';
export const SANDBOX_TOOLS = '/opt/governed/node_modules';
export const SANDBOX_PROMPT_DIR = '/prompt';
export const SANDBOX_PROMPT = '/prompt/prompt.md';

/** Default sizes (docs/sandbox.md): bounded scratch space and shared memory. */
import { REPO_SANDBOX_TMP_BYTES as TMPFS_BYTES } from '../src/core/limits.js';
import { EGRESS_SANDBOX_SOCKET, RELAY_PORT } from '../src/core/egress-rules.js';
import { RELAY_INTERPRETER, RELAY_PATH } from './sandbox/profile.js';
import { SANDBOX_DEV_SHM_BYTES as SHM_BYTES } from '../src/core/limits.js';
import { EGRESS_SOCKET_PATH_RE, TOOL_ENV_NAME_RE } from '../src/core/sandbox-bounds.js';

/** Host files a networked reviewer needs for DNS and TLS (the documented egress path). */
const NETWORK_ETC = ['/etc/resolv.conf', '/etc/hosts', '/etc/nsswitch.conf', '/etc/ssl', '/etc/ca-certificates', '/etc/pki'];

export interface RepoSandboxSpec {
  /** Absolute host path of the repository; bound read-only at /repo and used as the working directory. */
  readonly repoDir: string;
  /** Absolute host path of governed's node_modules (tsc, ESLint); bound read-only at /opt/governed/node_modules. */
  readonly toolsDir: string | null;
  /** The command as the sandbox sees it; argv[0] is an absolute sandbox path. */
  readonly argv: readonly string[];
  /** Extra environment (validated names); PATH, HOME, TMPDIR and LANG are fixed here. */
  readonly env: Readonly<Record<string, string>>;
  readonly network: boolean;
  /**
   * `network: broker` (docs/review-pass.md "Network"): the egress broker's socket (bound read-only
   * at /run/governed/egress.sock), the runner's egress and relay variables, and the pinned relay's
   * bytes (delivered at /opt/governed/relay.mjs through a descriptor). The relay runs first, as PID
   * 1, and starts the tool once it listens on 127.0.0.1:3128 in the sandbox's own network namespace;
   * `network` must be false (the namespace stays unshared).
   */
  readonly egress?: { readonly socket: string; readonly env: Readonly<Record<string, string>>; readonly relay: Buffer } | undefined;
  /** Prompt bytes written to the reviewer's stdin (null: stdin is /dev/null). */
  readonly stdin: Buffer | null;
  /** Prompt bytes delivered read-only at /prompt/prompt.md (null: no prompt file). */
  readonly promptFile: Buffer | null;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  /** Receives the reviewer's stderr bytes as they are drained (the caller's own log); default: dropped. */
  readonly stderrSink?: (chunk: Buffer) => void;
}

export type RepoSandboxStatus = 'exited' | 'timeout' | 'output_cap' | 'sandbox_failed';

export interface RepoSandboxResult {
  readonly status: RepoSandboxStatus;
  /** The reviewer's exit code (status exited only). */
  readonly exitCode: number | null;
  /** stdout bytes (empty unless status is exited). */
  readonly stdout: Buffer;
  /** How many stderr bytes were drained (the bytes themselves are never kept). */
  readonly stderrBytes: number;
  readonly durationMs: number;
}

const ENV_NAME = TOOL_ENV_NAME_RE;
const FIXED_ENV = ['PATH', 'HOME', 'TMPDIR', 'LANG'];

/** The sandbox PATH: governed's tool binaries first (when bound), then /usr. */
export function sandboxPath(withTools: boolean): string {
  return [...(withTools ? [`${SANDBOX_TOOLS}/.bin`] : []), '/usr/local/bin', '/usr/bin', '/bin'].join(':');
}

/** Refuse anything that could turn into a bwrap option or smuggle a second argument (research A.9). */
function assertArgvSafe(spec: RepoSandboxSpec): void {
  const program = spec.argv[0];
  if (program === undefined || !program.startsWith('/')) throw new RangeError('repo-sandbox: program path must be absolute');
  for (const a of spec.argv) if (a.includes('\0')) throw new RangeError('repo-sandbox: NUL in argument');
  for (const [k, v] of Object.entries({ ...spec.env, ...(spec.egress?.env ?? {}) })) {
    if (!ENV_NAME.test(k) || FIXED_ENV.includes(k) || v.includes('\0')) throw new RangeError('repo-sandbox: bad environment entry');
  }
  if (spec.egress !== undefined) {
    // The broker path never shares the host network, and the runner's variables are not overridable.
    if (spec.network) throw new RangeError('repo-sandbox: broker egress with the host network');
    if (Object.keys(spec.env).some((k) => Object.hasOwn(spec.egress?.env ?? {}, k))) throw new RangeError('repo-sandbox: egress variable set by the tool');
    if (!EGRESS_SOCKET_PATH_RE.test(spec.egress.socket) || spec.egress.socket.split('/').includes('..')) throw new RangeError('repo-sandbox: egress socket path');
  }
  for (const p of [spec.repoDir, ...(spec.toolsDir === null ? [] : [spec.toolsDir])]) {
    if (!p.startsWith('/') || p.includes('\0')) throw new RangeError('repo-sandbox: host paths must be absolute');
  }
}

/** How the host lays out /bin, /lib, /lib64, /sbin: merged-/usr symlinks are recreated, real directories bound. */
function rootLayoutArgs(): string[] {
  const out: string[] = [];
  for (const dir of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    let st;
    try {
      st = lstatSync(dir);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) out.push('--symlink', readlinkSync(dir), dir);
    else if (st.isDirectory()) out.push('--ro-bind', dir, dir);
  }
  return out;
}

/**
 * The bwrap argument list (pure apart from reading the host's root layout). `statusFd` and
 * `promptFd` are the child descriptor numbers the caller wires up.
 */
export function buildRepoSandboxArgs(spec: RepoSandboxSpec, fds: { statusFd: number; promptFd: number | null; relayFd?: number | null }): string[] {
  assertArgvSafe(spec);
  const args: string[] = ['--unshare-all', '--unshare-user', '--disable-userns'];
  if (spec.network) args.push('--share-net');
  args.push('--die-with-parent', '--new-session', '--as-pid-1', '--cap-drop', 'ALL');
  args.push('--clearenv');
  const env: Record<string, string> = {
    PATH: sandboxPath(spec.toolsDir !== null),
    HOME: '/tmp',
    TMPDIR: '/tmp',
    LANG: 'C.UTF-8',
    ...spec.env,
    ...(spec.egress?.env ?? {}),
  };
  for (const k of Object.keys(env).sort()) args.push('--setenv', k, env[k] as string);
  args.push('--hostname', 'governed-review');
  args.push('--ro-bind', '/usr', '/usr', ...rootLayoutArgs());
  args.push('--proc', '/proc', '--dev', '/dev', '--size', String(SHM_BYTES), '--tmpfs', '/dev/shm', '--remount-ro', '/dev');
  args.push('--size', String(TMPFS_BYTES), '--tmpfs', '/tmp');
  if (spec.network) for (const p of NETWORK_ETC) args.push('--ro-bind-try', p, p);
  args.push('--ro-bind', spec.repoDir, SANDBOX_REPO);
  if (spec.toolsDir !== null) args.push('--ro-bind', spec.toolsDir, SANDBOX_TOOLS);
  if (fds.promptFd !== null) {
    args.push('--dir', SANDBOX_PROMPT_DIR, '--perms', '0444', '--ro-bind-data', String(fds.promptFd), SANDBOX_PROMPT);
  }
  const relayFd = fds.relayFd ?? null;
  if (spec.egress !== undefined) {
    if (relayFd === null) throw new RangeError('repo-sandbox: relay descriptor missing');
    args.push('--ro-bind', spec.egress.socket, EGRESS_SANDBOX_SOCKET, '--perms', '0555', '--ro-bind-data', String(relayFd), RELAY_PATH);
  }
  args.push('--remount-ro', '/', '--chdir', SANDBOX_REPO, '--json-status-fd', String(fds.statusFd));
  // Behind the broker the relay runs first and starts the tool once it listens.
  const relay = spec.egress === undefined ? [] : [RELAY_INTERPRETER, RELAY_PATH, String(RELAY_PORT), EGRESS_SANDBOX_SOCKET];
  args.push('--', ...relay, ...spec.argv);
  return args;
}

/** bwrap is present, a regular executable file, and not setuid (docs/sandbox.md#the-invocation). */
export function bwrapUsable(): boolean {
  try {
    const st = statSync(BWRAP);
    if (!st.isFile() || (st.mode & 0o111) === 0 || (st.mode & 0o4000) !== 0) return false;
  } catch {
    return false;
  }
  const probe = spawnSync(BWRAP, ['--unshare-all', '--unshare-user', '--disable-userns', '--ro-bind', '/usr', '/usr', ...rootLayoutArgs(), '--', '/usr/bin/true'], {
    env: {},
    cwd: '/',
    stdio: 'ignore',
    timeout: 10_000,
  });
  return probe.status === 0;
}

/**
 * Close every inherited descriptor >= 3 that lacks close-on-exec (docs/sandbox.md#inherited-descriptors:
 * such a descriptor passes through spawn and bwrap into the reviewer). Call once, at CLI start,
 * before anything of governed's own is open.
 */
export function closeInheritedDescriptors(): number {
  let closed = 0;
  let entries: string[];
  try {
    entries = readdirSync('/proc/self/fd');
  } catch {
    return 0;
  }
  for (const name of entries) {
    const fd = Number(name);
    if (!Number.isSafeInteger(fd) || fd < 3) continue;
    try {
      const info = readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8');
      const m = /^flags:\s*([0-7]+)/m.exec(info);
      if (m === null || m[1] === undefined) continue;
      // O_CLOEXEC is 02000000 (octal) on Linux.
      if ((parseInt(m[1], 8) & 0o2000000) === 0) {
        closeSync(fd);
        closed++;
      }
    } catch {
      // The descriptor of the readdir itself is gone by now; nothing to do.
    }
  }
  return closed;
}

/** The inputs (docs/review-pass.md#the-sandbox-runnerrepo-sandboxts): the prompt file's and relay's bytes through their descriptors, stdin when given; a closed pipe is ignored. */
function feedInputs(child: ChildProcess, spec: RepoSandboxSpec, promptFd: number | null, relayFd: number | null): void {
  if (promptFd !== null) {
    const w = child.stdio[4] as Writable | null;
    w?.on('error', () => undefined);
    w?.end(spec.promptFile as Buffer);
  }
  if (relayFd !== null) {
    const w = (child.stdio as readonly unknown[])[relayFd] as Writable | null;
    w?.on('error', () => undefined);
    w?.end(spec.egress?.relay as Buffer);
  }
  if (spec.stdin !== null) {
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(spec.stdin);
  }
}

/** The reviewer's exit code from bwrap's --json-status-fd text (docs/sandbox.md#the-invocation): one JSON document per line; `exit-code` appears only when the reviewer ran. */
function reviewerExitCode(statusText: string): number | null {
  let exitCode: number | null = null;
  for (const line of statusText.split('\n')) {
    try {
      const doc = JSON.parse(line) as Record<string, unknown>;
      if (typeof doc['exit-code'] === 'number') exitCode = doc['exit-code'];
    } catch {
      // Partial or empty line.
    }
  }
  return exitCode;
}

/** Run one command in the repository sandbox. Never throws for reviewer behaviour; only for bad specs. */
export function runInRepoSandbox(spec: RepoSandboxSpec): Promise<RepoSandboxResult> {
  const statusFd = 3;
  const promptFd = spec.promptFile === null ? null : 4;
  const relayFd = spec.egress === undefined ? null : promptFd === null ? 4 : 5;
  const args = buildRepoSandboxArgs(spec, { statusFd, promptFd, relayFd });
  if (!existsSync(BWRAP)) {
    return Promise.resolve({ status: 'sandbox_failed', exitCode: null, stdout: Buffer.alloc(0), stderrBytes: 0, durationMs: 0 });
  }
  const started = Date.now();
  return new Promise((resolve) => {
    const stdio: Array<'pipe' | 'ignore'> = [spec.stdin === null ? 'ignore' : 'pipe', 'pipe', 'pipe', 'pipe'];
    if (promptFd !== null) stdio.push('pipe');
    if (relayFd !== null) stdio.push('pipe');
    const child = spawn(BWRAP, args, { env: {}, cwd: '/', stdio, detached: true });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderrBytes = 0;
    let status: RepoSandboxStatus = 'exited';
    let statusText = '';
    let settled = false;
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      if (status === 'exited') status = 'timeout';
      killGroup();
    }, spec.timeoutMs);
    child.stdout?.on('data', (c: Buffer) => {
      if (status !== 'exited') return;
      size += c.length;
      if (size > spec.maxOutputBytes) {
        status = 'output_cap';
        killGroup();
        return;
      }
      chunks.push(c);
    });
    child.stderr?.on('data', (c: Buffer) => {
      stderrBytes += c.length;
      spec.stderrSink?.(c);
    });
    const statusStream = child.stdio[3] as NodeJS.ReadableStream | null;
    statusStream?.on('data', (c: Buffer) => {
      if (statusText.length < 64 * 1024) statusText += c.toString('utf8');
    });
    feedInputs(child, spec, promptFd, relayFd);
    const finish = (result: RepoSandboxResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    child.on('error', () =>
      finish({ status: 'sandbox_failed', exitCode: null, stdout: Buffer.alloc(0), stderrBytes, durationMs: Date.now() - started }),
    );
    child.on('close', () => {
      const durationMs = Date.now() - started;
      if (status !== 'exited') {
        finish({ status, exitCode: null, stdout: Buffer.alloc(0), stderrBytes, durationMs });
        return;
      }
      const exitCode = reviewerExitCode(statusText);
      if (exitCode === null) {
        finish({ status: 'sandbox_failed', exitCode: null, stdout: Buffer.alloc(0), stderrBytes, durationMs });
        return;
      }
      finish({ status: 'exited', exitCode, stdout: Buffer.concat(chunks), stderrBytes, durationMs });
    });
  });
}
