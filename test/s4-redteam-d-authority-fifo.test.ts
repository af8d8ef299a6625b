// Red team D: `authority sign --key` naming a FIFO (SPEC §11; the brief's "FIFOs where a file is
// expected"). Opening a FIFO for reading blocks until a writer appears, so before the fix the
// command hung forever before its fstat check could refuse it. It must refuse at once with a code
// (input_unreadable, exit 2), prompt nothing and write nothing.
import { spawnSync, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeStore, initStore } from '../src/store/index.js';
import { CLI, runCli } from './helpers/cli.js';
import { bytesOf, cleanupDirs, policyDoc, tempDir, world } from './authority-helpers.js';

afterEach(cleanupDirs);

describe('authority sign with a FIFO where the key file is expected', () => {
  it('refuses with input_unreadable instead of blocking', () => {
    const w = world();
    const dir = tempDir();
    const home = join(dir, 'state');
    closeStore(initStore(home, { policyBytes: bytesOf(policyDoc()), trustBytes: bytesOf(w.trust), now: Math.floor(Date.now() / 1000) }));
    const presentation = join(dir, 'req.json');
    const req = runCli(['authority', 'request', '--operation', 'policy_update', '--state-after', `sha256:${'1'.repeat(64)}`, '--out', presentation, '--home', home, '--json'], { cwd: dir });
    expect(req.code, req.stderr).toBe(0);
    const fifo = join(dir, 'key.fifo');
    execFileSync('mkfifo', ['-m', '0600', fifo]);
    const out = join(dir, 'record.json');
    const r = spawnSync(process.execPath, [CLI, 'authority', 'sign', '--request', presentation, '--key', fifo, '--out', out, '--json'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1' },
      input: '',
      timeout: 10_000,
    });
    expect(r.signal, 'authority sign blocked on the FIFO and was killed').toBeNull();
    expect(r.status).toBe(2);
    expect(JSON.parse(r.stdout.trim())).toMatchObject({ ok: false, error: { code: 'input_unreadable', ids: ['key'] } });
    expect(existsSync(out)).toBe(false);
    expect(readFileSync(presentation).length).toBeGreaterThan(0);
  });
});
