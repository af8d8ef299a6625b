// Write a signed artifact once (gate --attest, audit checkpoint): exclusive create, never through a
// symlink, 0644 (it is meant to be copied off the machine); a file that could not be written whole is
// removed, so nothing half-written stays behind (docs/threat-model.md#rules-that-hold-everywhere). The caller names its two refusal codes.
import { closeSync, constants, openSync, unlinkSync, writeSync } from 'node:fs';
import { fail, type ErrorCode } from '../core/errors.js';

export function writeOnce(path: string, text: string, codes: { readonly exists: ErrorCode; readonly unwritable: ErrorCode }): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') fail(codes.exists, []);
    fail(codes.unwritable, []);
  }
  let written = false;
  try {
    written = writeSync(fd, text) === Buffer.byteLength(text);
  } catch {
    written = false;
  } finally {
    closeSync(fd);
  }
  if (!written) {
    unlinkSync(path);
    fail(codes.unwritable, []);
  }
}
