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

/** Read a regular file (no symlink following) up to `maxBytes`, hashing the same bytes. */
export function readPinned(path: string, maxBytes: number): PinnedBytes {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO put where the program or config is expected must be refused below (not a
    // regular file), never wait for a writer while the run holds its claim (docs/runner.md#the-run-step-by-step step 4, docs/threat-model.md#rules-that-hold-everywhere fail
    // closed). It changes nothing for a regular file.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    fail('input_unreadable', []);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) fail('input_unreadable', []);
    if (st.size > maxBytes) fail('input_too_large', []);
    const bytes = Buffer.alloc(st.size);
    let off = 0;
    while (off < st.size) {
      const n = readSync(fd, bytes, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
    const exact = bytes.subarray(0, off);
    return { bytes: exact, sha256: createHash('sha256').update(exact).digest('hex') };
  } finally {
    closeSync(fd);
  }
}
