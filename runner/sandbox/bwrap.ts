// The bubblewrap binary (docs/runner.md#the-run-step-by-step steps 4–5; docs/sandbox.md#the-invocation): found by absolute path,
// checked (regular file, executable, not setuid/setgid, not writable by group/others), hashed by
// streaming the file, and only then — and, for a run, only once its digest is allowlisted — asked
// for its version (≥ 0.8.0). Reviewers never run unsandboxed: every failure here is a code.
import { spawn } from 'node:child_process';
import { closeSync, fstatSync, lstatSync, openSync, readSync, type BigIntStats } from 'node:fs';
import { constants } from 'node:fs';
import { createHash } from 'node:crypto';
import { normalize, isAbsolute } from 'node:path';
import { fail } from '../../src/core/errors.js';
import { MIN_BWRAP_VERSION } from './profile.js';

export const DEFAULT_BWRAP_PATH = '/usr/bin/bwrap';
import { BWRAP_MAX_BYTES as MAX_BWRAP_BYTES } from '../../src/core/limits.js';
import { BWRAP_VERSION_MAX_BYTES, PROGRAM_PATH_MAX_CHARS } from '../../src/core/limits.js';
const CHUNK = 1024 * 1024;

/** What identifies the file that was hashed; re-checked right before bwrap is spawned. */
export interface FileFingerprint {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly size: bigint;
  readonly mode: bigint;
  readonly uid: bigint;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
}

export interface BwrapFile {
  readonly path: string;
  /** hex sha256 of the file's bytes (the policy's `sandbox.bwrap_sha256` form). */
  readonly sha256: string;
  readonly fingerprint: FileFingerprint;
}

export interface BwrapInfo extends BwrapFile {
  /** e.g. "0.8.0" */
  readonly version: string;
}

const fingerprintOf = (st: BigIntStats): FileFingerprint => ({
  dev: st.dev,
  ino: st.ino,
  size: st.size,
  mode: st.mode,
  uid: st.uid,
  mtimeNs: st.mtimeNs,
  ctimeNs: st.ctimeNs,
});

const sameFingerprint = (a: FileFingerprint, b: FileFingerprint): boolean =>
  a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mode === b.mode && a.uid === b.uid && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;

function validatePath(path: unknown): asserts path is string {
  if (typeof path !== 'string' || path.length === 0 || path.length > PROGRAM_PATH_MAX_CHARS || path.includes('\0')) fail('bwrap_path_invalid');
  if (!isAbsolute(path) || normalize(path) !== path || path.endsWith('/')) fail('bwrap_path_invalid');
}

/** lstat and the mode checks, without following a symlink. */
function statChecked(path: string): BigIntStats {
  let st: BigIntStats;
  try {
    st = lstatSync(path, { bigint: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') fail('bwrap_missing');
    fail('bwrap_path_invalid');
  }
  if (!st.isFile()) fail('bwrap_path_invalid');
  const mode = Number(st.mode);
  // Precedence (docs/commands.md#exit-codes): untrusted (6) before configuration (2).
  if ((mode & 0o6000) !== 0) fail('bwrap_setuid');
  if ((mode & 0o022) !== 0) fail('bwrap_insecure_mode');
  if ((mode & 0o111) === 0) fail('bwrap_not_executable');
  return st;
}

/**
 * The location checks of `inspectBwrap` without reading the file: a valid path, a regular file
 * (not a symlink) with bwrap's mode rules, that opens for reading. review-run applies them before
 * its claim (docs/runner.md); `inspectBwrap` applies them again when it hashes the file.
 */
export function assertBwrapLocation(path: string): void {
  validatePath(path);
  statChecked(path);
  try {
    closeSync(openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK));
  } catch {
    fail('bwrap_missing');
  }
}

/** Check and hash bwrap by streaming it (constant memory). Nothing is executed. Synchronous reads
 * of one small regular file (checked before it is opened): review-run then never loads
 * node:fs/promises (≈ 1 ms of CPU per start, bench/runner); the API stays a promise. */
export async function inspectBwrap(path: string = DEFAULT_BWRAP_PATH): Promise<BwrapFile> {
  validatePath(path);
  const before = statChecked(path);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    fail('bwrap_missing');
  }
  try {
    const st = fstatSync(fd, { bigint: true });
    if (st.dev !== before.dev || st.ino !== before.ino) fail('bwrap_changed');
    if (st.size > BigInt(MAX_BWRAP_BYTES)) fail('bwrap_path_invalid');
    const hash = createHash('sha256');
    const buf = Buffer.alloc(CHUNK);
    for (;;) {
      const bytesRead = readSync(fd, buf, 0, CHUNK, null);
      if (bytesRead === 0) break;
      hash.update(buf.subarray(0, bytesRead));
    }
    const after = statChecked(path);
    if (!sameFingerprint(fingerprintOf(st), fingerprintOf(after))) fail('bwrap_changed');
    return { path, sha256: hash.digest('hex'), fingerprint: fingerprintOf(after) };
  } finally {
    closeSync(fd);
  }
}

/** Refuse when the file at the path is no longer the one that was hashed. */
export function assertBwrapUnchanged(file: BwrapFile): void {
  let st: BigIntStats;
  try {
    st = statChecked(file.path);
  } catch {
    fail('bwrap_changed');
  }
  if (!sameFingerprint(fingerprintOf(st), file.fingerprint)) fail('bwrap_changed');
}

const VERSION_RE = /^bubblewrap (\d{1,4})\.(\d{1,4})\.(\d{1,4})\n?$/;

/** Parse `bwrap --version` output and enforce the minimum version. Pure. */
export function parseBwrapVersion(text: string): string {
  const m = VERSION_RE.exec(text);
  if (m === null) fail('bwrap_unusable');
  const v = [Number(m[1]), Number(m[2]), Number(m[3])];
  for (let i = 0; i < 3; i++) {
    const have = v[i] as number;
    const need = MIN_BWRAP_VERSION[i] as number;
    if (have > need) break;
    if (have < need) fail('bwrap_too_old', [v.join('.')]);
  }
  return v.join('.');
}

/**
 * The version last read in this process, with the identity of the file it was read from: the path,
 * the sha256 of its bytes and its fingerprint (dev, inode, size, mode, owner, mtime, ctime). One
 * entry, never more (a long-lived process — the daemon's sandbox host — keeps constant memory).
 */
let versionRead: { readonly path: string; readonly sha256: string; readonly fingerprint: FileFingerprint; readonly version: string } | null = null;

/**
 * Run `<bwrap> --version` (empty environment, cwd /, 5 s, 4 KiB cap) and check it. A process asks
 * a given bwrap file once (docs/performance.md#separated-mode-benchrunnerd): when the file was
 * hashed to the same sha256 with the same fingerprint as the file this process already asked, the
 * version read then is returned — the same bytes print the same version, and the file is still
 * checked unchanged first. Only a version that passed is remembered; a failure is asked again.
 */
export async function bwrapVersion(file: BwrapFile): Promise<string> {
  assertBwrapUnchanged(file);
  const seen = versionRead;
  if (seen !== null && seen.path === file.path && seen.sha256 === file.sha256 && sameFingerprint(seen.fingerprint, file.fingerprint)) return seen.version;
  const out = await new Promise<{ code: number | null; text: string }>((resolve) => {
    const child = spawn(file.path, ['--version'], { env: {}, cwd: '/', stdio: ['ignore', 'pipe', 'ignore'] });
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.stdout.on('data', (c: Buffer) => {
      size += c.length;
      if (size > BWRAP_VERSION_MAX_BYTES) child.kill('SIGKILL');
      else chunks.push(c);
    });
    child.on('error', () => {
      clearTimeout(timer);
      resolve({ code: null, text: '' });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: size > BWRAP_VERSION_MAX_BYTES ? null : code, text: Buffer.concat(chunks).toString('latin1') });
    });
  });
  if (out.code !== 0) fail('bwrap_unusable');
  const version = parseBwrapVersion(out.text);
  versionRead = { path: file.path, sha256: file.sha256, fingerprint: file.fingerprint, version };
  return version;
}

/** Path, sha256 and version: what `governed sandbox profile` prints for the policy. */
export async function bwrapInfo(path: string = DEFAULT_BWRAP_PATH): Promise<BwrapInfo> {
  const file = await inspectBwrap(path);
  return { ...file, version: await bwrapVersion(file) };
}
