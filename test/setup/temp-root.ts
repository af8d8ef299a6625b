// globalSetup: one private temp root per run; each test file gets its own TMPDIR under it
// (test/setup/temp-per-file.ts). At the end, whatever a test file left in its TMPDIR is named and
// the run fails, so a test that leaks a temporary directory is found at once; the root is removed either way.
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT_ENV = 'TEST_TMP_ROOT_GOVERNED';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'governed-vitest-'));
  chmodSync(root, 0o1777); // like /tmp: system users of some tests must traverse it
  process.env[ROOT_ENV] = root;
  return () => {
    let leaks = '';
    try {
      leaks = readFileSync(join(root, 'leaks.txt'), 'utf8');
    } catch {
      // no file left anything behind
    }
    const stray = readdirSync(root).filter((n) => n !== 'leaks.txt');
    rmSync(root, { recursive: true, force: true });
    if (leaks !== '' || stray.length > 0) {
      process.exitCode = 1; // vitest reports an error thrown here but would still exit 0
      throw new Error(`tests left temporary files behind (now removed):\n${leaks}${stray.length > 0 ? `not removed by their file: ${stray.join(' ')}\n` : ''}`);
    }
  };
}
