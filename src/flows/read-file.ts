// Reading caller-named input files: capped, regular files only, errors coded without the path or
// the contents (docs/threat-model.md#rules-that-hold-everywhere). No parser is imported here, so the lean gate path can use it too; the
// structured reader is src/flows/read-input.ts.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { fail } from '../core/errors.js';
import { INPUT_FILE_MAX_BYTES } from '../core/limits.js';

export const DEFAULT_INPUT_CAP = INPUT_FILE_MAX_BYTES;

/** Every byte of an open file of `size` bytes (a file that shrank while read ends where it ends). */
export function readAllFd(fd: number, size: number): Buffer {
  const buf = Buffer.alloc(size);
  let off = 0;
  while (off < size) {
    const n = readSync(fd, buf, off, size - off, off);
    if (n === 0) break;
    off += n;
  }
  return buf.subarray(0, off);
}

export function readInputFile(path: string, maxBytes = DEFAULT_INPUT_CAP): Buffer {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO for reading would otherwise block until a writer appears, before
    // the fstat below could refuse it (a hang instead of a coded refusal). It changes nothing for
    // a regular file, whose reads never block.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return fail('input_unreadable', []);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) fail('input_unreadable', []);
    if (st.size > maxBytes) fail('input_too_large', []);
    return readAllFd(fd, st.size);
  } finally {
    closeSync(fd);
  }
}
