// The one temp-directory maker of the tests: every directory made (or tracked) here is removed after its
// test file by test/setup/temp-per-file.ts, whatever the file's own hooks do.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Set<string>();

/** A fresh private temp directory (mode 0700), removed after the test file at the latest. */
export function makeTempDir(prefix = 'governed-test-'): string {
  return trackTempDir(mkdtempSync(join(tmpdir(), prefix)));
}

/** Remove `dir` after the test file at the latest (for directories made elsewhere). */
export function trackTempDir(dir: string): string {
  made.add(dir);
  return dir;
}

/** Remove every tracked directory now. */
export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
}
