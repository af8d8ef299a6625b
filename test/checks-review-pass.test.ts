// governed review-pass in governed mode with a check slot (docs/reviewers.md#check-reviewers):
// the policy's test stage slot is served by the pinned check-tests adapter through a real
// review-challenge + review-run, like any policy reviewer; a failing test ends the review NOT_CLEAN
// with the DIRTY receipt the store holds, and no test output reaches the review's output.
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { cleanupDirs, gov, readDb, tempDir } from './state-helpers.js';
import { jsonOut } from './helpers/cli.js';
import { CHECK_CANARY, makeCheckWorld, REVIEWERS_DIR, SESSION, sumSource } from './checks-helpers.js';

afterAll(() => cleanupDirs());

describe('governed review-pass with a check slot', () => {
  it('a failing test: the check slot is DIRTY, the review NOT_CLEAN (exit 9), the receipt stored', async () => {
    const w = await makeCheckWorld({ slots: { tests: 'node-tests' } });
    w.repo.write('src/sum.js', sumSource('bug'));
    const out = join(tempDir('governed-checks-rp-'), 'out');
    const r = gov(w, ['review-pass', '--unit', w.unit, '--stage', 'test', '--writer-session', SESSION, '--reviewers-dir', REVIEWERS_DIR, '--attestors', w.attestorsDir, '--out', out, '--json']);
    expect(r.stdout + r.stderr).not.toContain(CHECK_CANARY);
    expect(r.code).toBe(9);
    const o = jsonOut(r) as { result: string; slots: string[]; runs: { slot: string; verdict: string; run_id: string }[] };
    expect(o.result).toBe('NOT_CLEAN');
    expect(o.slots).toEqual(['tests']);
    expect(o.runs.map((x) => `${x.slot}:${x.verdict}`)).toEqual(['tests:DIRTY']);
    const db = readDb(w);
    try {
      expect(db.prepare('SELECT verdict FROM receipts WHERE run_id = ?').pluck().get(o.runs[0]?.run_id)).toBe('DIRTY');
    } finally {
      db.close();
    }
  }, 600_000);
});
