// Pinning (docs/formats.md#attestors, docs/runner.md#the-run-step-by-step step 4): a pinned program is read ONCE into memory, hashed, checked
// against its allowlist, and only those exact bytes are ever executed (from a sealed private
// copy) — never the on-disk path after hashing, which a writer could swap in between.
import { openSync, fstatSync, readSync, closeSync, constants } from 'node:fs';
import { createHash } from 'node:crypto';
import { fail } from '../src/core/errors.js';

export interface PinnedBytes {
  readonly bytes: Buffer;
  readonly sha256: string; // hex
}

/** Why a pinned file cannot be used, found without reading its bytes (see `probePinned`). */
export type PinnedFileProblem = 'missing' | 'not_a_regular_file' | 'unreadable' | 'too_large';

/**
 * Open a pinned file the one way it is ever opened — no symlink followed, O_NONBLOCK (a FIFO put
 * where the program or config is expected must be refused below as not a regular file, never wait
 * for a writer while a run holds its claim: docs/runner.md#the-run-step-by-step step 4, docs/threat-model.md#fail-closed; it changes nothing for
 * a regular file) — and admit it by fstat: a regular file of at most `maxBytes`. Returns the open
 * descriptor and size, or the problem (the descriptor is then closed).
 */
function openAdmitted(path: string, maxBytes: number): { fd: number; size: number } | PinnedFileProblem {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    if (code === 'ELOOP') return 'not_a_regular_file'; // a symlink: never followed
    return 'unreadable';
  }
  const st = fstatSync(fd);
  const problem: PinnedFileProblem | null = !st.isFile() ? 'not_a_regular_file' : st.size > maxBytes ? 'too_large' : null;
  if (problem === null) return { fd, size: st.size };
  closeSync(fd);
  return problem;
}

/**
 * The file at `path` could be pinned now (it exists, is a regular file, opens for reading and is
 * within `maxBytes`): null, or the problem. Nothing is read — review-run checks every location
 * like this before its claim (docs/runner.md "Where the pinned programs come from").
 */
export function probePinned(path: string, maxBytes: number): PinnedFileProblem | null {
  const opened = openAdmitted(path, maxBytes);
  if (typeof opened === 'string') return opened;
  closeSync(opened.fd);
  return null;
}

/** Read a regular file (no symlink following) up to `maxBytes`, hashing the same bytes. */
export function readPinned(path: string, maxBytes: number): PinnedBytes {
  const opened = openAdmitted(path, maxBytes);
  if (opened === 'too_large') fail('input_too_large', []);
  if (typeof opened === 'string') fail('input_unreadable', []);
  const { fd, size } = opened;
  try {
    const bytes = Buffer.alloc(size);
    let off = 0;
    while (off < size) {
      const n = readSync(fd, bytes, off, size - off, off);
      if (n === 0) break;
      off += n;
    }
    const exact = bytes.subarray(0, off);
    return { bytes: exact, sha256: createHash('sha256').update(exact).digest('hex') };
  } finally {
    closeSync(fd);
  }
}
