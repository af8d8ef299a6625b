// A check command that never ends (docs/reviewers.md#check-reviewers): the pinned adapter kills it
// at its time budget (CHECK_BUDGET_PER_MILLE of the policy's sandbox timeout, src/core/limits.ts),
// and review-run through the real runner (bwrap, seccomp, sealed snapshot, both attestors) records
// the run ABORTED with check_command_timeout (9) — no receipt, nothing the command printed in the
// output — while a command that ends within the budget, in the same world, reaches its verdict.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { cleanupDirs } from './state-helpers.js';
import { jsonOut } from './helpers/cli.js';
import { CHECK_CANARY, adapterDigests, checkEntry, issueCheck, makeCheckWorld, NODE, runCheck, type CheckWorld } from './checks-helpers.js';

// 20 s of sandbox timeout: an 18 s budget for the command, 2 s for the adapter's own start and report.
const TIMEOUT = '20s';
let w: CheckWorld;

beforeAll(async () => {
  const a = adapterDigests();
  w = await makeCheckWorld({
    timeout: TIMEOUT,
    extraReviewers: {
      hang: checkEntry(a, 'check-tests', [NODE, '-e', `console.log(${JSON.stringify(CHECK_CANARY)}); setInterval(() => {}, 1000)`], 'exit-code'),
      quick: checkEntry(a, 'check-tests', [NODE, '-e', `console.log(${JSON.stringify(CHECK_CANARY)})`], 'exit-code'),
    },
    slots: { hang: 'hang', quick: 'quick' },
  });
}, 300_000);
afterAll(() => cleanupDirs());

function count(table: 'receipts' | 'runs', where = ''): number {
  const db = new Database(join(w.home, 'governed.db'), { readonly: true });
  try {
    return db.prepare(`SELECT count(*) FROM ${table} ${where}`).pluck().get() as number;
  } finally {
    db.close();
  }
}

describe('a check command over its time budget', () => {
  it('is killed: ABORTED with check_command_timeout (9), no receipt, nothing it printed shown', () => {
    const receipts = count('receipts');
    const t0 = Date.now();
    const r = runCheck(w, issueCheck(w, 'hang'));
    const elapsed = Date.now() - t0;
    expect(r.stdout + r.stderr).not.toContain(CHECK_CANARY);
    const out = jsonOut(r) as { verdict: string; error: { code: string } };
    expect({ exit: r.code, verdict: out.verdict, code: out.error.code }).toEqual({ exit: 9, verdict: 'ABORTED', code: 'check_command_timeout' });
    expect(count('receipts')).toBe(receipts);
    expect(count('runs', "WHERE status = 'aborted' AND abort_code = 'check_command_timeout'")).toBe(1);
    // It ran for the budget (not refused at once): the kill came from the adapter's clock.
    expect(elapsed).toBeGreaterThanOrEqual(18_000);
  }, 120_000);

  it('positive control: a command that ends within the budget, in the same world, reaches a verdict and a receipt', () => {
    const receipts = count('receipts');
    const r = runCheck(w, issueCheck(w, 'quick'));
    expect(r.stdout + r.stderr).not.toContain(CHECK_CANARY);
    expect((jsonOut(r) as { verdict: string }).verdict).toBe('CLEAN');
    expect(count('receipts')).toBe(receipts + 1);
  }, 120_000);
});
