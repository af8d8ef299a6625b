// Writing an authority file (presentation, signed record): exclusive create, never overwrite, so a
// file someone already placed at the path is never silently replaced (or followed as a symlink).
import { closeSync, existsSync, lstatSync, openSync, writeSync, constants } from 'node:fs';
import { fail } from '../../core/errors.js';

/** Refuse early (before any state change or prompt) when the output path is taken. */
export function assertOutputFree(path: string): void {
  let taken = existsSync(path);
  try {
    lstatSync(path);
    taken = true; // a dangling symlink is taken too
  } catch {
    // absent
  }
  if (taken) fail('authority_output_exists', ['out']);
}

export function writeNewFile(path: string, bytes: Uint8Array, mode = 0o644): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') fail('authority_output_exists', ['out']);
    fail('authority_output_unwritable', ['out']);
  }
  try {
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
  } finally {
    closeSync(fd);
  }
}
