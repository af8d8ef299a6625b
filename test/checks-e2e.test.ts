// Check reviewers end to end (docs/reviewers.md#check-reviewers): a real small npm package, its
// own node:test suite, tsc (checkJs) and ESLint run by the pinned check adapters through the real
// runner (bwrap, seccomp, sealed snapshot and dependency root, both attestors). A change that breaks
// a test, a type or a lint rule gets a DIRTY receipt from its slot, the slot is blocked and the unit
// stays REVIEW_ONLY; fixed on new content, two CLEAN rounds make it RELEASE_ELIGIBLE. The receipt
// names the adapter, the command and the snapshot and dependency-root digests; nothing the project
// printed reaches governed's output or the receipt.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { cleanupDirs } from './state-helpers.js';
import { parseEnvelopeBytes } from '../src/core/dsse.js';
import { jsonOut } from './helpers/cli.js';
import { staticProfileSha256 } from '../runner/sandbox/profile.js';
import { CHECK_CANARY, COMMANDS, issueCheck, makeCheckWorld, runCheck, statusOf, sumSource, type CheckWorld } from './checks-helpers.js';

let w: CheckWorld;
beforeAll(async () => {
  w = await makeCheckWorld();
}, 120_000);
afterAll(() => cleanupDirs());

function receiptPredicate(receiptId: string): { raw: string; predicate: Record<string, unknown> } {
  const db = new Database(join(w.home, 'governed.db'), { readonly: true });
  try {
    const envelope = db.prepare('SELECT envelope FROM receipts WHERE id = ?').pluck().get(receiptId) as Buffer | undefined;
    if (envelope === undefined) throw new Error('no receipt row');
    const env = parseEnvelopeBytes(envelope);
    const payload = env.payload.toString('utf8');
    const statement = JSON.parse(payload) as { predicate: Record<string, unknown> };
    return { raw: envelope.toString('utf8') + payload, predicate: statement.predicate };
  } finally {
    db.close();
  }
}

function review(slot: string): { verdict: string; receiptId: string } {
  const r = runCheck(w, issueCheck(w, slot));
  for (const text of [r.stdout, r.stderr]) expect(text).not.toContain(CHECK_CANARY);
  expect(r.code === 0 || r.code === 9).toBe(true);
  const out = jsonOut(r) as { verdict: string; receipt_id: string };
  expect(r.code).toBe(out.verdict === 'CLEAN' ? 0 : 9);
  return { verdict: out.verdict, receiptId: out.receipt_id };
}

const blocked = (slot: string): boolean => statusOf(w).reasons.some((r) => r.code === 'slot_blocked' && r.ids[0] === `test.${slot}`);

describe('check reviewers gate a real package', () => {
  it('a change that breaks a test, a type and a lint rule: DIRTY from each slot, slot_blocked, REVIEW_ONLY', () => {
    w.repo.write('src/sum.js', sumSource('bug', 'type-error', 'lint-error'));
    const tests = review('tests');
    expect(tests.verdict).toBe('DIRTY');
    const { raw, predicate } = receiptPredicate(tests.receiptId);
    expect(raw).not.toContain(CHECK_CANARY);
    expect(raw).not.toContain('sum.js');
    // A failing test maps to the view IDs of the test file (evidence EVD-1), code correctness/HIGH.
    expect(predicate.findings).toEqual([{ class: 'correctness', code: 'correctness', refs: ['EVD-1'], severity: 'HIGH' }]);
    const check = predicate.check as Record<string, unknown>;
    expect(check.adapter_sha256).toBe(w.adapters['check-tests']);
    expect(check.command).toEqual(COMMANDS.tests);
    expect(check.snapshot_digest).toBe((predicate.inputs as Record<string, unknown>).workspace_digest);
    expect((check.dependency_root as Record<string, unknown>).path).toBe('node_modules');
    expect((check.dependency_root as Record<string, unknown>).digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect((predicate.sandbox as Record<string, unknown>).profile_digest).toBe(`sha256:${staticProfileSha256('check')}`);

    const types = review('types');
    expect(types.verdict).toBe('DIRTY');
    expect(receiptPredicate(types.receiptId).predicate.findings).toEqual([{ class: 'correctness', code: 'correctness', refs: ['IMP-1', 'TGT-1'], severity: 'HIGH' }]);
    const lint = review('lint');
    expect(lint.verdict).toBe('DIRTY');
    expect(receiptPredicate(lint.receiptId).predicate.findings).toEqual([{ class: 'correctness', code: 'other', refs: ['IMP-1', 'TGT-1'], severity: 'MEDIUM' }]);

    expect(statusOf(w).state).toBe('REVIEW_ONLY');
    for (const slot of ['tests', 'types', 'lint']) expect(blocked(slot)).toBe(true);
  }, 600_000);

  it('fixed on new content: CLEAN ×2 in every slot lifts every block → RELEASE_ELIGIBLE', () => {
    w.repo.write('src/sum.js', sumSource('good'));
    for (let round = 0; round < 2; round++) {
      for (const slot of ['tests', 'types', 'lint']) expect(review(slot).verdict).toBe('CLEAN');
      if (round === 0) expect(statusOf(w).state).toBe('REVIEW_ONLY'); // one round is not the streak
    }
    const s = statusOf(w);
    expect(s.reasons).toEqual([]);
    expect(s.state).toBe('RELEASE_ELIGIBLE');
  }, 900_000);
});
