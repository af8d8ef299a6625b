// The per-file hashing step of the workspace digest (docs/contract.md#workspace-digest), as ONE self-contained function so
// that the main thread and the hashing worker threads (./hash-pool.ts) run the very same code: a
// worker is given this function's source text (Function.prototype.toString). That is why it
// refers to nothing outside its parameters — no imports, no module constants, no `fail` — and
// reports a refusal as an error code that the caller turns into a GovernedError.
//
// What it guarantees, whichever thread runs it:
// - a symlink is hashed as its target text (readlink), never followed;
// - a regular file is opened O_RDONLY | O_NOFOLLOW | O_NONBLOCK: a symlink swapped in after the
//   caller typed the path fails (ELOOP) instead of being followed, a FIFO swapped in does not block
//   the open; fstat of the open descriptor must then show a regular file (and, when the caller
//   lstat'ed the path, the same dev/ino), so nothing else is ever read;
// - the bytes hashed are the working-tree bytes, streamed through one reused buffer (research
//   measured: a readSync loop reaches ~0.8x of openssl; readFileSync collapses on big files);
// - size, ctime and mtime are compared again after reading, so a concurrent write fails closed
//   instead of yielding a digest of bytes that never existed together;
// - the mode is git's normalized mode of the inode whose bytes were hashed.
import type * as NodeFs from 'node:fs';
import type { createHash as CreateHash } from 'node:crypto';

export type HashKind = 'file' | 'symlink';
export type HashRefusal = 'workspace_file_changed_during_hash' | 'workspace_file_unreadable';

export type HashCoreResult =
  | { readonly ok: true; readonly mode: '100644' | '100755' | '120000'; readonly sha256: string }
  | { readonly ok: false; readonly code: HashRefusal; readonly errno: string | null };

export interface HashCoreDeps {
  readonly fs: Pick<typeof NodeFs, 'openSync' | 'fstatSync' | 'readSync' | 'closeSync' | 'readlinkSync' | 'constants'>;
  readonly createHash: typeof CreateHash;
}

/** Identity the caller observed with lstat before this call (status path); null when typed by readdir. */
export interface ExpectedIdentity {
  readonly dev: bigint;
  readonly ino: bigint;
}

export function hashPathCore(
  deps: HashCoreDeps,
  buf: Buffer,
  absPath: string,
  kind: HashKind,
  expected: ExpectedIdentity | null,
): HashCoreResult {
  // No closures here: this runs once per file, and allocations show up as GC time at 10k files.
  const CHANGED = 'workspace_file_changed_during_hash';
  const UNREADABLE = 'workspace_file_unreadable';
  if (kind === 'symlink') {
    let target: Buffer;
    try {
      target = deps.fs.readlinkSync(absPath, { encoding: 'buffer' });
    } catch (e) {
      const c = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
      const errno = typeof c === 'string' ? c : null;
      // EINVAL: no longer a symlink; ENOENT/ENOTDIR: it (or a parent) vanished mid-scan.
      const changed = errno === 'EINVAL' || errno === 'ENOENT' || errno === 'ENOTDIR';
      return { ok: false, code: changed ? CHANGED : UNREADABLE, errno };
    }
    return { ok: true, mode: '120000', sha256: deps.createHash('sha256').update(target).digest('hex') };
  }

  let fd: number;
  try {
    fd = deps.fs.openSync(absPath, deps.fs.constants.O_RDONLY | deps.fs.constants.O_NOFOLLOW | deps.fs.constants.O_NONBLOCK);
  } catch (e) {
    const c = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
    const errno = typeof c === 'string' ? c : null;
    // ELOOP: the path became a symlink after it was typed; ENOENT/ENOTDIR: it vanished mid-scan.
    const changed = errno === 'ELOOP' || errno === 'ENOENT' || errno === 'ENOTDIR';
    return { ok: false, code: changed ? CHANGED : UNREADABLE, errno };
  }
  try {
    const before = deps.fs.fstatSync(fd, { bigint: true });
    if (!before.isFile()) return { ok: false, code: CHANGED, errno: null };
    if (expected !== null && (before.dev !== expected.dev || before.ino !== expected.ino)) {
      return { ok: false, code: CHANGED, errno: null };
    }
    const hash = deps.createHash('sha256');
    // Stop at the size fstat reported instead of issuing one more read for EOF (one syscall per
    // file matters for 10k small files); growth past it is caught by the size check below.
    const size = Number(before.size);
    let total = 0;
    while (total < size) {
      let n: number;
      try {
        n = deps.fs.readSync(fd, buf, 0, buf.length, null);
      } catch (e) {
        const c = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
        return { ok: false, code: UNREADABLE, errno: typeof c === 'string' ? c : null };
      }
      if (n === 0) break;
      hash.update(buf.subarray(0, n));
      total += n;
    }
    const after = deps.fs.fstatSync(fd, { bigint: true });
    if (
      total !== size ||
      after.size !== before.size ||
      after.ctimeNs !== before.ctimeNs ||
      after.mtimeNs !== before.mtimeNs
    ) {
      return { ok: false, code: CHANGED, errno: null };
    }
    // git's normalized mode: executable iff the owner exec bit is set (as git does).
    return { ok: true, mode: (before.mode & 0o100n) !== 0n ? '100755' : '100644', sha256: hash.digest('hex') };
  } finally {
    deps.fs.closeSync(fd);
  }
}
