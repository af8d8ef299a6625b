// setupFiles: this test file's own TMPDIR under the run's temp root (test/setup/temp-root.ts). After the
// file's own hooks have run (afterAll hooks run in reverse order of registration, so this one last),
// and the shared helpers' directories are removed (test/helpers/temp.ts),
// anything still in it is a leak: it is written to the run's leak list and removed.
import { appendFileSync, chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, expect } from 'vitest';
import { removeTempDirs } from '../helpers/temp.js';

const root = process.env.TEST_TMP_ROOT_GOVERNED;
if (root !== undefined) {
  const fileDir = mkdtempSync(join(root, 'file-'));
  chmodSync(fileDir, 0o1777);
  process.env.TMPDIR = fileDir;
  const testPath = expect.getState().testPath ?? 'unknown test file';
  afterAll(() => {
    const left = readdirSync(fileDir).sort();
    if (left.length > 0) appendFileSync(join(root, 'leaks.txt'), `${relative(process.cwd(), testPath)}: ${left.join(' ')}\n`);
    rmSync(fileDir, { recursive: true, force: true });
  });
}
// Registered after the check, so it runs before it: what the shared helpers made is theirs to remove.
afterAll(removeTempDirs);
