// Caller-named input files (src/flows/read-file.ts, used by init, policy update, unit create,
// authority sign --request, verify, gate --trust …) must be refused with a code when they are a FIFO.
// Opening a FIFO for reading blocks until a writer appears, so before O_NONBLOCK the command hung
// before its fstat check could refuse it (found by red team D). SPEC §3: fail closed, coded errors.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI } from './helpers/cli.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function fifoIn(): { dir: string; fifo: string } {
  const dir = mkdtempSync(join(tmpdir(), 'governed-fifo-'));
  dirs.push(dir);
  const fifo = join(dir, 'input.fifo');
  execFileSync('mkfifo', ['-m', '0600', fifo]);
  return { dir, fifo };
}

// Only through a child process: an in-process open of a FIFO would block the test worker itself.
describe('readInputFile on a FIFO', () => {
  it('governed init --policy FIFO answers input_unreadable, exit 2, creates no store', () => {
    const { dir, fifo } = fifoIn();
    const home = join(dir, 'state');
    const r = spawnSync(process.execPath, [CLI, 'init', '--policy', fifo, '--trust', fifo, '--home', home, '--json'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1' },
      timeout: 10_000,
    });
    expect(r.signal, 'init blocked on the FIFO and was killed').toBeNull();
    expect(r.status).toBe(2);
    expect(JSON.parse(r.stdout.trim())).toMatchObject({ ok: false, error: { code: 'input_unreadable' } });
    expect(existsSync(join(home, 'governed.db'))).toBe(false);
  });
});
