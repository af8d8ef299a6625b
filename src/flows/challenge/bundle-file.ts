// Writing a bundle file (docs/state.md#the-store, docs/bundle.md#views): `<home>/bundles/<challenge>.json`, written ONCE with
// exclusive create (O_EXCL, O_NOFOLLOW), mode 0600 from the first byte, fsync'ed before the
// challenge is recorded. A file that cannot be written fully is removed and nothing is recorded.
import { closeSync, constants, fchmodSync, fsyncSync, lstatSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fail } from '../../core/errors.js';
import { CHALLENGE_ID_RE } from '../../store/index.js';

export function bundlePath(bundlesDir: string, challengeId: string): string {
  if (!CHALLENGE_ID_RE.test(challengeId)) fail('internal_error', ['challenge_id']);
  return join(bundlesDir, `${challengeId}.json`);
}

export function writeBundleFile(bundlesDir: string, challengeId: string, bytes: Uint8Array): string {
  const path = bundlePath(bundlesDir, challengeId);
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (e) {
    return fail('bundle_write_failed', [challengeId], e);
  }
  let ok = false;
  try {
    // The umask can only narrow the creation mode; set it exactly so the file is 0600, not less.
    fchmodSync(fd, 0o600);
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
    ok = true;
  } catch (e) {
    fail('bundle_write_failed', [challengeId], e);
  } finally {
    closeSync(fd);
    if (!ok) removeBundleFile(bundlesDir, challengeId);
  }
  return path;
}

/** Remove a challenge's bundle file; a file already gone is fine. Never throws. */
export function removeBundleFile(bundlesDir: string, challengeId: string): boolean {
  try {
    unlinkSync(bundlePath(bundlesDir, challengeId));
    return true;
  } catch {
    return false;
  }
}

/**
 * Inside the recording transaction: the file written for `challengeId` is still there, a regular
 * file of the written size. An orphan cleanup (orphan-bundles.ts) that removed it before this
 * transaction took the write lock makes the issuance fail closed (`bundle_write_failed`, nothing
 * recorded) instead of recording a challenge whose bundle is gone.
 */
export function assertBundleFileWritten(bundlesDir: string, challengeId: string, size: number): void {
  let ok = false;
  try {
    const st = lstatSync(bundlePath(bundlesDir, challengeId));
    ok = st.isFile() && st.size === size;
  } catch {
    ok = false;
  }
  if (!ok) fail('bundle_write_failed', [challengeId]);
}
