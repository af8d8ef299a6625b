// Running one reviewer in bubblewrap (docs/runner.md#the-run-step-by-step steps 4–6, docs/reviewers.md#the-reviewers-world; docs/sandbox.md#the-invocation). Two phases,
// so the runner can record the reviewer's identity (and claim the run) before anything of the
// reviewer executes:
//
//   const sb = await prepareSandbox(req);   // checks + allowlists, bwrap spawned and BLOCKED
//   record(sb.identity, sb.facts);          // read from outside: /proc + bwrap's JSON status
//   const result = await sb.release();      // or: await sb.abort()
//
// prepareSandbox refuses (each with its code, nothing executed) unless bwrap, the static profile,
// the seccomp blob and the reviewer bytes are all on the allowlist. The reviewer bytes are streamed
// ONCE from the file into both SHA-256 and bwrap's --ro-bind-data pipe; bwrap finishes building the
// sandbox and waits on --block-fd, and the block is released only if that digest is the allowlisted
// one — so the bytes that run are exactly the bytes that were hashed (research B.4).
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, fstatSync, openSync, readFileSync, readlinkSync, readSync, realpathSync } from 'node:fs';
import { constants } from 'node:fs';
import { createHash } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { fail, GovernedError } from '../../src/core/errors.js';
import { HEX64_RE, sha256Hex } from '../../src/core/canonical.js';
import { parseBootId, parseProcStat } from '../../src/core/proc-stat.js';
import { assertSandboxArch, seccompBlob } from '../seccomp/index.js';
import { buildBwrapArgv, FD_NUMBERS, validateInterpreterPath, validatePolicyEnv, type EgressWiring } from './argv.js';
import { assertBwrapUnchanged, bwrapVersion, DEFAULT_BWRAP_PATH, inspectBwrap } from './bwrap.js';
import { closeInheritedFds } from './fds.js';
import { LIFELINE_FD, LIFELINE_SHELL, lifelineArgv } from './lifeline.js';
import { validateLimits, type SandboxLimits } from './limits.js';
import { isBlockedReading, namespaceMembers, NAMESPACES, readNamespaces, readPpid, type NamespaceIds } from './proc.js';
import { profileSockets, RELAY_INTERPRETER, SHELL_PATH, SANDBOX_HELPERS, staticProfileDigest } from './profile.js';
import { StatusParser } from './status.js';
import { assertTrustedUsrExecutable } from './trusted-file.js';

/** Digests as the policy lists them: bare lowercase hex. */
export interface SandboxAllowlist {
  readonly bwrapSha256: readonly string[];
  readonly profileSha256: readonly string[];
  readonly seccompSha256: readonly string[];
  /** The one digest the policy assigns to this slot's reviewer. */
  readonly reviewerSha256: string;
}

/** The reviewer program: a file streamed once (the runner's case), or bytes already pinned. */
export type ReviewerSource = { readonly path: string } | { readonly bytes: Buffer };

export interface SandboxRequest {
  /** Absolute path of bwrap (default /usr/bin/bwrap); its sha256 must be allowlisted. */
  readonly bwrapPath?: string;
  readonly allow: SandboxAllowlist;
  /** Root-owned interpreter under /usr (policy reviewers.<name>.interpreter). */
  readonly interpreter: string;
  readonly reviewer: ReviewerSource;
  /** The canonical bundle bytes governed hashed and recorded (docs/bundle.md#views). */
  readonly bundleBytes: Buffer;
  /** Policy-supplied reviewer variables (policy reviewers.<name>.env), never the caller's. */
  readonly env: Readonly<Record<string, string>>;
  /** Policy sandbox.uid (gid = uid by convention); used only when governed runs as root. */
  readonly uid: number;
  readonly gid: number;
  /**
   * Separated mode's sandbox host (docs/runnerd.md#the-sandbox-host): this process was started by
   * root as exactly `uid`/`gid` with no supplementary groups, so bwrap runs (unprivileged) under the
   * policy's uid without a switch; anything else is refused (sandbox_uid_mismatch).
   */
  readonly hosted?: boolean | undefined;
  readonly limits: SandboxLimits;
  /** The egress broker's socket and variables (docs/egress.md); the egress profile is used then
   * (the relay profile when `egress.relay`). */
  readonly egress?: EgressWiring | undefined;
  /** With `egress.relay`: the pinned relay's bytes and the sha256 list they must be on
   * (docs/egress.md#the-in-sandbox-relay); streamed into the sandbox like the reviewer's. */
  readonly relay?: { readonly bytes: Buffer; readonly sha256: readonly string[] } | undefined;
  /**
   * A check run (docs/sandbox.md#the-check-profile-check-reviewers): the check profile's template, with the sealed
   * snapshot's directory descriptor bound read-only at /snapshot and the sealed dependency root's
   * (when the policy declares one) at /snapshot/<dependencyRoot>. The descriptors stay the
   * caller's (it closes them after the run).
   */
  readonly check?: { readonly snapshotFd: number; readonly dependencyFd: number | null; readonly dependencyRoot: string | null };
}

/** Reviewer process identity, measured from outside (the receipt's `reviewer_process` shape). */
export interface SandboxIdentity {
  readonly boot_id: string;
  /** Host pid of the reviewer (bwrap's child, PID 1 of the sandbox with --as-pid-1). */
  readonly pid: number;
  /** /proc/<pid>/stat field 22, clock ticks after boot, as a decimal string. */
  readonly start_time: string;
  readonly namespaces: NamespaceIds;
}

/** What was checked and pinned for this run (for the receipt's sandbox/reviewer fields). */
export interface SandboxFacts {
  readonly bwrapPath: string;
  readonly bwrapSha256: string;
  readonly bwrapVersion: string;
  /** `sha256:<hex>` of the static profile. */
  readonly profileDigest: string;
  /** `sha256:<hex>` of the seccomp blob. */
  readonly seccompDigest: string;
  /** hex sha256 of the exact reviewer bytes that were streamed into the sandbox. */
  readonly reviewerSha256: string;
  readonly interpreter: string;
  /** The uid/gid the sandbox runs as (host view). */
  readonly uid: number;
  readonly gid: number;
  /** True only when governed ran as root and switched to the policy's dedicated uid. */
  readonly uidSeparated: boolean;
}

export interface SandboxResult {
  /** The reviewer's exit status from bwrap's JSON status (128+n when a signal killed it); null when none was reported. */
  readonly exitCode: number | null;
  /** SIGKILL when governed killed the sandbox (timeout, overflow); else the signal that ended bwrap
   * itself, if any; null for a normal exit. */
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  readonly outputOverflow: boolean;
  /** stdout, at most limits.maxOutputBytes bytes. */
  readonly stdout: Buffer;
  /** Only the count: reviewer stderr is drained and never kept (docs/threat-model.md#rules-that-hold-everywhere "No secrets in output"). */
  readonly stderrBytes: number;
  readonly identity: SandboxIdentity;
  readonly facts: SandboxFacts;
  /** bwrap reported no exit code although governed did not kill it: it failed after release
   * (seccomp load, chdir, exec), so the reviewer may never have run. */
  readonly setupFailed: boolean;
  /** After the run no process was left in the sandbox's PID namespace. */
  readonly cleanupVerified: boolean;
  /** Wall time from release to bwrap's exit. */
  readonly durationMs: number;
}

export interface PreparedSandbox {
  readonly identity: SandboxIdentity;
  readonly facts: SandboxFacts;
  /** Let the reviewer start; resolves when the sandbox has exited (or was killed). */
  release(): Promise<SandboxResult>;
  /** Kill the blocked sandbox; the reviewer never runs. */
  abort(): Promise<void>;
}

import { REVIEWER_MAX_BYTES as MAX_REVIEWER_BYTES } from '../../src/core/limits.js';
import { SANDBOX_BUNDLE_MAX_BYTES as MAX_BUNDLE_BYTES } from '../../src/core/limits.js';
import { KERNEL_UID_MAX } from '../../src/core/limits.js';
/** How long bwrap may take to build the sandbox before it is considered failed. */
const SETUP_TIMEOUT_MS = 30_000;
const CHUNK = 1024 * 1024;
const KILL_GRACE_MS = 250;

function validateRequest(req: SandboxRequest): void {
  if (req === null || typeof req !== 'object') fail('sandbox_argument_invalid', ['request']);
  validateInterpreterPath(req.interpreter);
  validatePolicyEnv(req.env);
  validateLimits(req.limits);
  const a = req.allow;
  const hexList = (l: unknown): boolean => Array.isArray(l) && l.every((h) => typeof h === 'string' && HEX64_RE.test(h));
  if (!a || !hexList(a.bwrapSha256) || !hexList(a.profileSha256) || !hexList(a.seccompSha256)) fail('sandbox_argument_invalid', ['allow']);
  if (typeof a.reviewerSha256 !== 'string' || !HEX64_RE.test(a.reviewerSha256)) fail('sandbox_argument_invalid', ['allow.reviewerSha256']);
  for (const [k, v] of [['uid', req.uid], ['gid', req.gid]] as const) {
    if (!Number.isSafeInteger(v) || v < 1 || v > KERNEL_UID_MAX) fail('sandbox_argument_invalid', [k]);
  }
  if (!Buffer.isBuffer(req.bundleBytes) || req.bundleBytes.length > MAX_BUNDLE_BYTES) fail('sandbox_argument_invalid', ['bundleBytes']);
  const r = req.reviewer as { path?: unknown; bytes?: unknown };
  if ('bytes' in r) {
    if (!Buffer.isBuffer(r.bytes) || r.bytes.length > MAX_REVIEWER_BYTES) fail('sandbox_argument_invalid', ['reviewer.bytes']);
  } else if (typeof r.path !== 'string' || !r.path.startsWith('/') || r.path.includes('\0')) {
    fail('sandbox_argument_invalid', ['reviewer.path']);
  }
}

interface Preflighted {
  readonly facts: Omit<SandboxFacts, 'reviewerSha256'>;
  readonly argv: string[];
  readonly blob: Buffer;
  readonly bwrap: Awaited<ReturnType<typeof inspectBwrap>>;
}

/** Run every check that needs no process, in the order of docs/runner.md#the-run-step-by-step step 4. */
async function preflight(req: SandboxRequest): Promise<Preflighted> {
  assertSandboxArch();
  validateRequest(req);
  const check = req.check;
  if (check !== undefined) {
    const fdOk = (n: unknown): boolean => Number.isSafeInteger(n) && (n as number) > 2;
    if (!fdOk(check.snapshotFd) || (check.dependencyFd === null) !== (check.dependencyRoot === null) || (check.dependencyFd !== null && !fdOk(check.dependencyFd))) {
      fail('sandbox_argument_invalid', ['check']);
    }
  }
  if (check !== undefined && req.egress !== undefined) fail('sandbox_argument_invalid', ['check']);
  const relay = req.egress?.relay === true;
  // The relay's bytes come exactly with the relay wiring, and are on their allowlist.
  if (relay !== (req.relay !== undefined)) fail('sandbox_argument_invalid', ['relay']);
  if (req.relay !== undefined) {
    const r = req.relay;
    if (!Buffer.isBuffer(r.bytes) || r.bytes.length > MAX_REVIEWER_BYTES || !Array.isArray(r.sha256) || !r.sha256.every((h) => typeof h === 'string' && HEX64_RE.test(h))) {
      fail('sandbox_argument_invalid', ['relay']);
    }
    if (!r.sha256.includes(sha256Hex(r.bytes))) fail('egress_relay_not_allowlisted', ['relay']);
  }
  const kind = check !== undefined ? 'check' : req.egress === undefined ? 'reviewer' : relay ? 'relay' : 'egress';
  const argv = buildBwrapArgv({ interpreter: req.interpreter, env: req.env, limits: req.limits, profile: check === undefined ? 'reviewer' : 'check', dependencyRoot: check?.dependencyRoot ?? null, egress: req.egress });
  const bwrap = await inspectBwrap(req.bwrapPath ?? DEFAULT_BWRAP_PATH);
  if (!req.allow.bwrapSha256.includes(bwrap.sha256)) fail('bwrap_not_allowlisted');
  const profileDigest = staticProfileDigest(kind);
  if (!req.allow.profileSha256.includes(profileDigest.slice(7))) fail('sandbox_profile_not_allowlisted');
  // The filter the profile names: the relay profile's admits loopback TCP (docs/egress.md#the-in-sandbox-relay).
  const blob = seccompBlob(profileSockets(kind));
  const seccompHex = sha256Hex(blob);
  if (!req.allow.seccompSha256.includes(seccompHex)) fail('seccomp_not_allowlisted');
  if ('bytes' in req.reviewer && sha256Hex(req.reviewer.bytes) !== req.allow.reviewerSha256) fail('reviewer_not_allowlisted');
  assertTrustedUsrExecutable(req.interpreter, 'sandbox_interpreter_invalid', 'interpreter');
  for (const helper of SANDBOX_HELPERS) assertTrustedUsrExecutable(helper, 'sandbox_helper_missing', helper);
  if (relay) assertTrustedUsrExecutable(RELAY_INTERPRETER, 'sandbox_helper_missing', RELAY_INTERPRETER);
  // bwrap is executed for the first time only now that its digest is allowlisted.
  const version = await bwrapVersion(bwrap);
  const euid = process.geteuid?.() ?? -1;
  const egid = process.getegid?.() ?? -1;
  if (req.hosted === true && (euid !== req.uid || egid !== req.gid || euid === 0)) fail('sandbox_uid_mismatch', ['hosted']);
  const uidSeparated = euid === 0 || req.hosted === true;
  const uid = uidSeparated ? req.uid : euid;
  const gid = uidSeparated ? req.gid : egid;
  return {
    argv,
    blob,
    bwrap,
    facts: {
      bwrapPath: bwrap.path,
      bwrapSha256: bwrap.sha256,
      bwrapVersion: version,
      profileDigest,
      seccompDigest: `sha256:${seccompHex}`,
      interpreter: req.interpreter,
      uid,
      gid,
      uidSeparated,
    },
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Write all bytes with backpressure; resolves false if the pipe broke (bwrap gone). */
function writeAll(stream: Writable, bytes: Buffer, end: boolean): Promise<boolean> {
  return new Promise((resolve) => {
    // A pipe that breaks or closes before the bytes are taken resolves false (never hangs).
    const onError = (): void => resolve(false);
    stream.once('error', onError);
    stream.once('close', onError);
    const done = (): void => {
      stream.off('error', onError);
      stream.off('close', onError);
      resolve(true);
    };
    if (end) stream.end(bytes, done);
    else if (stream.write(bytes)) done();
    else stream.once('drain', done);
  });
}

/** Stream a reviewer file in 1 MiB chunks into SHA-256 and the pipe at once (constant memory).
 * Each chunk is read synchronously (a regular file, checked first; the pipe writes stay
 * asynchronous with backpressure), so this module does not load node:fs/promises. */
async function streamReviewerFile(path: string, pipe: Writable): Promise<{ sha256: string; ok: boolean }> {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    fail('input_unreadable', ['reviewer']);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) fail('input_unreadable', ['reviewer']);
    const hash = createHash('sha256');
    let total = 0;
    for (;;) {
      const buf = Buffer.alloc(CHUNK);
      const bytesRead = readSync(fd, buf, 0, CHUNK, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > MAX_REVIEWER_BYTES) fail('sandbox_argument_invalid', ['reviewer.size']);
      const chunk = buf.subarray(0, bytesRead);
      hash.update(chunk);
      if (!(await writeAll(pipe, chunk, false))) return { sha256: hash.digest('hex'), ok: false };
    }
    const ok = await writeAll(pipe, Buffer.alloc(0), true);
    return { sha256: hash.digest('hex'), ok };
  } finally {
    closeSync(fd);
  }
}

interface Live {
  readonly child: ChildProcess;
  readonly status: StatusParser;
  stdout: Buffer[];
  stdoutBytes: number;
  stderrBytes: number;
  overflow: boolean;
  maxOutput: number;
  exited: boolean;
  exitSignal: NodeJS.Signals | null;
  readonly closed: Promise<void>;
  statusError: GovernedError | null;
}

function spawnBwrap(pre: Awaited<ReturnType<typeof preflight>>, req: SandboxRequest): Live {
  closeInheritedFds();
  assertBwrapUnchanged(pre.bwrap);
  // bwrap runs under the lifeline watcher (lifeline.ts): the shell execs bwrap in place (same pid,
  // descriptors 0–8, empty environment), in a new session whose process group the watcher kills
  // when governed's end of fd 9 closes — whatever way governed ends.
  const checkFds: ('ignore' | number | 'pipe')[] = req.check === undefined ? (req.relay === undefined ? [] : ['pipe']) : [req.check.snapshotFd, req.check.dependencyFd ?? 'ignore'];
  const child: ChildProcess = spawn(LIFELINE_SHELL, lifelineArgv(pre.bwrap.path, pre.argv), {
    env: {},
    cwd: '/',
    // index = descriptor number inside bwrap (FD_NUMBERS); fd 9 is the lifeline, closed before
    // bwrap is executed. Nothing else is passed.
    // A check run adds the two directory descriptors at 10 and 11 (FD_NUMBERS), dup'ed from the
    // caller's; 'ignore' when there is no dependency root. A relay run adds the relay's pipe at 10.
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe', ...checkFds],
    detached: true,
    ...(pre.facts.uidSeparated && req.hosted !== true ? { uid: pre.facts.uid, gid: pre.facts.gid } : {}),
  });
  let resolveClosed!: () => void;
  const live: Live = {
    child,
    status: new StatusParser(),
    stdout: [],
    stdoutBytes: 0,
    stderrBytes: 0,
    overflow: false,
    maxOutput: req.limits.maxOutputBytes,
    exited: false,
    exitSignal: null,
    closed: new Promise<void>((r) => (resolveClosed = r)),
    statusError: null,
  };
  child.stdout?.on('data', (c: Buffer) => {
    if (live.overflow) return;
    if (live.stdoutBytes + c.length > live.maxOutput) {
      live.overflow = true;
      const room = live.maxOutput - live.stdoutBytes;
      if (room > 0) live.stdout.push(c.subarray(0, room));
      live.stdoutBytes = live.maxOutput;
      killAll(live, null);
      return;
    }
    live.stdout.push(c);
    live.stdoutBytes += c.length;
  });
  child.stderr?.on('data', (c: Buffer) => {
    live.stderrBytes += c.length;
  });
  (child.stdio[FD_NUMBERS.status] as Readable).on('data', (c: Buffer) => {
    try {
      live.status.push(c);
    } catch (e) {
      live.statusError = e as GovernedError;
      killAll(live, null);
    }
  });
  const stdio = child.stdio as readonly (Readable | Writable | null | undefined)[];
  for (const fd of [...Object.values(FD_NUMBERS), LIFELINE_FD]) stdio[fd]?.on('error', () => undefined);
  // bwrap has exited: close governed's end of the lifeline, so the watcher kills whatever is left
  // of the process group (nothing, on a normal end) and exits; until then Node's 'close' waits.
  const cutLifeline = (): void => {
    stdio[LIFELINE_FD]?.destroy();
  };
  child.on('exit', cutLifeline);
  child.on('error', () => {
    cutLifeline();
    live.exited = true;
    resolveClosed();
  });
  child.on('close', (_code, signal) => {
    live.exited = true;
    live.exitSignal = signal;
    resolveClosed();
  });
  return live;
}

/** SIGKILL bwrap's child (PID 1 of the sandbox: the kernel then kills the whole namespace), then
 * bwrap itself if it does not exit on its own. */
function killAll(live: Live, identity: SandboxIdentity | null): void {
  const pid = identity?.pid ?? live.status.status.childPid;
  if (pid !== null && pid !== undefined) {
    try {
      // Never signal a recycled pid: it must still be bwrap's child, or (once recorded) have the
      // sandbox's start time.
      const ok = identity === null ? readPpid(pid) === live.child.pid : String(parseProcStat(readFileSync(`/proc/${pid}/stat`)).startTime) === identity.start_time;
      if (ok) {
        process.kill(pid, 'SIGKILL');
        // bwrap reaps its child and exits by itself (so nothing is left as a zombie of the host's
        // init); it is killed too if it has not within a short grace period.
        setTimeout(() => {
          if (!live.exited) live.child.kill('SIGKILL');
        }, KILL_GRACE_MS).unref();
        return;
      }
    } catch {
      // already gone
    }
  }
  if (!live.exited) live.child.kill('SIGKILL');
}

/**
 * Resolves once the sandbox's first process is the go-gate blocked reading its descriptor (dash
 * reads `<&8` through fd 0), or the sandbox has ended (a failed setup, a kill). The release timer
 * bounds the wait: it kills the sandbox, which ends it.
 */
async function gateWaiting(live: Live, pid: number): Promise<void> {
  for (;;) {
    if (live.exited) return;
    let exe: string;
    try {
      exe = readlinkSync(`/proc/${pid}/exe`);
    } catch {
      // Gone (or a zombie): nothing to release. An unreadable link (not expected: the process is
      // governed's own uid or governed is root) degrades to the release without the wait.
      return;
    }
    if (exe === gateShell() && (isBlockedReading(pid, 0) === true || isBlockedReading(pid, FD_NUMBERS.go) === true)) return;
    await sleep(1);
  }
}

let gateShellPath: string | undefined;
/** The real path of the go-gate's shell, as /proc/<pid>/exe names it. */
function gateShell(): string {
  gateShellPath ??= realpathSync(SHELL_PATH);
  return gateShellPath;
}

/** Wait until no process is left in the PID namespace (the kernel reaps it after PID 1 dies). */
async function namespaceEmptied(pidNs: number): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (namespaceMembers(pidNs).length === 0) return true;
    await sleep(10);
  }
  return false;
}

/** Compare each namespace of the sandboxed process with the runner's own (docs/runner.md#the-run-step-by-step step 6). */
function assertIsolated(ns: NamespaceIds): void {
  const own = readNamespaces('self');
  for (const name of NAMESPACES) if (ns[name] === own[name]) fail('sandbox_not_isolated', [`ns.${name}`]);
}

function readIdentity(live: Live, facts: Omit<SandboxFacts, 'reviewerSha256'>): SandboxIdentity {
  const pid = live.status.status.childPid;
  if (pid === null) fail('sandbox_identity_mismatch', ['child-pid']);
  let statRaw: Buffer;
  let statusText: string;
  try {
    statRaw = readFileSync(`/proc/${pid}/stat`);
    statusText = readFileSync(`/proc/${pid}/status`, 'latin1');
  } catch {
    fail('sandbox_identity_mismatch', ['proc']);
  }
  const stat = parseProcStat(statRaw);
  const namespaces = readNamespaces(pid);
  // bwrap's own report and the kernel's view from outside must agree.
  for (const [name, inode] of Object.entries(live.status.status.namespaces)) {
    if (namespaces[name as keyof NamespaceIds] !== inode) fail('sandbox_identity_mismatch', [`ns.${name}`]);
  }
  for (const name of ['cgroup', 'ipc', 'mnt', 'net', 'pid', 'uts'] as const) {
    if (live.status.status.namespaces[name] === undefined) fail('sandbox_identity_mismatch', [`ns.${name}`]);
  }
  assertIsolated(namespaces);
  // --as-pid-1: the reviewer is PID 1 of its namespace (NSpid: <host pid> 1).
  const nspid = /^NSpid:\s*(\d+)\s+(\d+)\s*$/m.exec(statusText);
  if (nspid === null || Number(nspid[1]) !== pid || nspid[2] !== '1') fail('sandbox_identity_mismatch', ['nspid']);
  const ids = (name: string): number[] | null => {
    const m = new RegExp(`^${name}:[ \\t]*([0-9 \\t]*)$`, 'm').exec(statusText);
    return m === null ? null : (m[1] as string).trim().split(/\s+/).filter((s) => s !== '').map(Number);
  };
  const uids = ids('Uid');
  const gids = ids('Gid');
  const groups = ids('Groups');
  if (uids === null || uids.length !== 4 || uids.some((u) => u !== facts.uid)) fail('sandbox_uid_mismatch', ['uid']);
  if (gids === null || gids.length !== 4 || gids.some((g) => g !== facts.gid)) fail('sandbox_uid_mismatch', ['gid']);
  if (facts.uidSeparated && (groups === null || groups.length !== 0)) fail('sandbox_uid_mismatch', ['groups']);
  let bootText: string;
  try {
    bootText = readFileSync('/proc/sys/kernel/random/boot_id', 'latin1');
  } catch {
    fail('sandbox_identity_mismatch', ['boot_id']);
  }
  return { boot_id: parseBootId(bootText), pid, start_time: String(stat.startTime), namespaces };
}

/**
 * Setup (docs/sandbox.md#the-invocation): seccomp, bundle, reviewer (and relay) streamed into bwrap's
 * pipes, bwrap seen blocked on --block-fd, the reviewer's digest checked, the identity read. On any
 * refusal the spawned bwrap is killed (no identity was read yet: reading it is the last step) before
 * the error surfaces.
 */
async function completeSetup(pre: Preflighted, req: SandboxRequest, live: Live): Promise<{ facts: SandboxFacts; identity: SandboxIdentity }> {
  let reviewerSha256: string;
  let identity: SandboxIdentity;
  // A bwrap that neither reads its pipes nor exits would stall the writes below: the setup
  // deadline kills it, which breaks the pipes and ends every pending write.
  let setupTimedOut = false;
  const setupTimer = setTimeout(() => {
    setupTimedOut = true;
    killAll(live, null);
  }, SETUP_TIMEOUT_MS);
  try {
    const pipes = live.child.stdio;
    const seccompSent = writeAll(pipes[FD_NUMBERS.seccomp] as Writable, pre.blob, true);
    const bundleSent = writeAll(pipes[FD_NUMBERS.bundle] as Writable, req.bundleBytes, true);
    const reviewerPipe = pipes[FD_NUMBERS.reviewer] as Writable;
    const streamed =
      'bytes' in req.reviewer
        ? writeAll(reviewerPipe, req.reviewer.bytes, true).then((ok) => ({ sha256: sha256Hex((req.reviewer as { bytes: Buffer }).bytes), ok }))
        : streamReviewerFile(req.reviewer.path, reviewerPipe);
    const relaySent = req.relay === undefined ? Promise.resolve(true) : writeAll(pipes[FD_NUMBERS.relay] as Writable, req.relay.bytes, true);
    const [seccompOk, bundleOk, reviewer, relayOk] = await Promise.all([seccompSent, bundleSent, streamed, relaySent]);
    reviewerSha256 = reviewer.sha256;
    // bwrap has built the sandbox (it read every --ro-bind-data pipe) and waits on --block-fd.
    for (;;) {
      if (live.statusError) throw live.statusError;
      if (setupTimedOut) fail('sandbox_setup_failed', ['timeout']);
      if (live.exited || !seccompOk || !bundleOk || !reviewer.ok || !relayOk) fail('sandbox_setup_failed');
      const pid = live.status.status.childPid;
      if (pid !== null && isBlockedReading(pid, FD_NUMBERS.block) === true) break;
      await sleep(2);
    }
    if (reviewerSha256 !== req.allow.reviewerSha256) fail('reviewer_not_allowlisted');
    identity = readIdentity(live, pre.facts);
  } catch (e) {
    clearTimeout(setupTimer);
    killAll(live, null);
    await live.closed;
    throw e;
  }
  clearTimeout(setupTimer);
  return { facts: { ...pre.facts, reviewerSha256 }, identity };
}

/**
 * The blocked sandbox's two exits (docs/sandbox.md#lifetime-the-sandbox-never-outlives-governed):
 * release (the reviewer runs, once) or abort (it never runs); either one, once.
 */
function sandboxControls(live: Live, req: SandboxRequest, identity: SandboxIdentity, facts: SandboxFacts): PreparedSandbox {
  let state: 'prepared' | 'released' | 'aborted' = 'prepared';

  const release = async (): Promise<SandboxResult> => {
    if (state !== 'prepared') fail('sandbox_state_invalid');
    state = 'released';
    const started = Date.now();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killAll(live, identity);
    }, req.limits.timeoutMs);
    // The only bytes ever written to --block-fd and the go-gate, in two steps. The block byte
    // first: bwrap's first process leaves --block-fd, arms its parent-death signal (bound to the
    // outer bwrap) and execs the go-gate. `go` only once the gate waits for it, so the reviewer
    // never starts before that signal is armed: were governed to die in between, the gate reads
    // EOF and exits 125 (docs/sandbox.md "Lifetime").
    (live.child.stdio[FD_NUMBERS.block] as Writable).end(Buffer.from([0x31]));
    await gateWaiting(live, identity.pid);
    (live.child.stdio[FD_NUMBERS.go] as Writable).end('go\n');
    await live.closed;
    clearTimeout(timer);
    const durationMs = Date.now() - started;
    const cleanupVerified = await namespaceEmptied(identity.namespaces.pid);
    const killed = timedOut || live.overflow || live.statusError !== null;
    const exitCode = live.status.status.exitCode;
    return {
      exitCode: killed ? null : exitCode,
      signal: killed ? 'SIGKILL' : live.exitSignal,
      timedOut,
      outputOverflow: live.overflow,
      stdout: Buffer.concat(live.stdout),
      stderrBytes: live.stderrBytes,
      identity,
      facts,
      setupFailed: !killed && exitCode === null,
      cleanupVerified,
      durationMs,
    };
  };

  const abort = async (): Promise<void> => {
    if (state !== 'prepared') fail('sandbox_state_invalid');
    state = 'aborted';
    killAll(live, identity);
    await live.closed;
    await namespaceEmptied(identity.namespaces.pid);
  };

  return { identity, facts, release, abort };
}

/**
 * Phase 1: every check, then bwrap spawned and blocked with the bundle and reviewer streamed in.
 * Throws (each with its code) on any refusal; a spawned bwrap is killed before the error surfaces.
 */
export async function prepareSandbox(req: SandboxRequest): Promise<PreparedSandbox> {
  const pre = await preflight(req);
  const live = spawnBwrap(pre, req);
  const { facts, identity } = await completeSetup(pre, req, live);
  return sandboxControls(live, req, identity, facts);
}

/**
 * One-shot form: prepare, let the caller record the identity (`onStarted`, e.g. the claim
 * transaction; if it throws, the sandbox is aborted and the reviewer never runs), then release.
 */
export async function runSandboxed(
  req: SandboxRequest & { readonly onStarted?: (identity: SandboxIdentity, facts: SandboxFacts) => void | Promise<void> },
): Promise<SandboxResult> {
  const sb = await prepareSandbox(req);
  try {
    await req.onStarted?.(sb.identity, sb.facts);
  } catch (e) {
    await sb.abort();
    throw e;
  }
  return sb.release();
}
