// Hash one working-tree entry on the calling thread (docs/contract.md#workspace-digest): regular files by their bytes,
// symlinks by their target text (never followed), anything else refused without being opened.
// The per-file step itself is ./hash-core.ts (shared with the hashing workers of ./hash-pool.ts);
// this module types the entry first and turns the core's refusal codes into GovernedErrors.
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, type BigIntStats } from 'node:fs';
import { fail } from '../core/errors.js';
import { hashPathCore, type HashCoreResult, type HashKind } from './hash-core.js';

export type GitMode = '100644' | '100755' | '120000';

export interface HashedEntry {
  readonly mode: GitMode;
  /** 64 lowercase hex. */
  readonly sha256: string;
}

/** One reused 1 MiB read buffer per thread (docs/performance.md#workspace-digest). */
export const HASH_CHUNK = 1024 * 1024;
let sharedBuffer: Buffer | null = null;
// A plain object (not the module namespace), so the core's property loads stay monomorphic.
const DEPS = { fs: { openSync, fstatSync, readSync, closeSync, readlinkSync, constants }, createHash };

/**
 * lstat without following; null when the path vanished (a deleted tracked file is not in the set).
 * BigInt stats carry the nanosecond times the stat cache keys on (docs/contract.md#workspace-digest).
 */
export function lstatEntry(absPath: string): BigIntStats | null {
  try {
    return lstatSync(absPath, { bigint: true });
  } catch (e) {
    if (isErrno(e, 'ENOENT') || isErrno(e, 'ENOTDIR')) return null;
    return fail('workspace_file_unreadable', [], e);
  }
}

/** Refuse FIFOs, sockets and devices from their lstat alone: they are never opened (a FIFO would hang). */
export function assertSupportedType(st: BigIntStats): void {
  if (st.isFile() || st.isSymbolicLink() || st.isDirectory()) return;
  fail('workspace_special_file_refused');
}

/**
 * Hash the entry at `absPath` whose lstat was `st` (a regular file or symlink). Guards against a
 * swap between lstat and open (./hash-core.ts): O_NOFOLLOW, O_NONBLOCK, and fstat must show the
 * same regular file (dev, ino) that lstat saw.
 */
export function hashEntry(absPath: string, st: BigIntStats): HashedEntry {
  if (st.isSymbolicLink()) return unwrap(hashPathCore(DEPS, buffer(), absPath, 'symlink', null));
  if (!st.isFile()) return fail('workspace_special_file_refused');
  return unwrap(hashPathCore(DEPS, buffer(), absPath, 'file', { dev: st.dev, ino: st.ino }));
}

/**
 * Hash a path the directory walk typed as `kind` (./listing.ts), without a per-file lstat: the
 * walk's readdir type is the "before open" check, and everything recorded (mode, bytes) comes from
 * the opened descriptor itself. A symlink, FIFO, device or directory put in place of a regular file
 * after the walk fails closed (`workspace_file_changed_during_hash`): it is not followed, hung on
 * or read.
 */
export function hashWalkedEntry(absPath: string, kind: HashKind): HashedEntry {
  return unwrap(hashPathCore(DEPS, buffer(), absPath, kind, null));
}

/** A core result as an entry, or its refusal as a GovernedError (the errno is kept as the cause only). */
export function unwrap(r: HashCoreResult): HashedEntry {
  if (!r.ok) return fail(r.code, [], r.errno === null ? undefined : { errno: r.errno });
  return { mode: r.mode, sha256: r.sha256 };
}

function buffer(): Buffer {
  return (sharedBuffer ??= Buffer.allocUnsafe(HASH_CHUNK));
}

export function isErrno(e: unknown, code: string): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === code;
}
