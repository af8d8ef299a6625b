// `unit dismiss` / `unit dismiss-veto` consume signed dismiss / dismiss_veto records at their log position: the decision then lifts the block or veto; every refusal (wrong unit, kind, targets, state, consumed, expired, unknown) has its code and leaves the store unchanged; replay and audit verify accept what was written.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assertReplayMatches, stateDigest } from '../src/store/index.js';
import { abortChallenge, consumeAuthority, type RecordedReceipt } from './helpers/store-receipts.js';
import type { Finding } from '../src/core/receipt-predicate.js';
import { jsonOut } from './helpers/cli.js';
import { challenge, newStory, review, status, type Story } from './gate-world.js';
import { cleanupDirs, errorOf, expectRefused, gov, govOk, readDb, recordAuthorityFor, storeDigest } from './state-helpers.js';

afterEach(cleanupDirs);

const VETO = { code: 'scope_omission' as const, class: 'scope' as const, severity: 'CRITICAL' as const, refs: ['DIR-1'] };
const BUG = { code: 'test_gap' as const, class: 'correctness' as const, severity: 'MEDIUM' as const, refs: ['AC-1'] };

type Reason = { code: string; ids: string[] };
const reasonsOf = (s: Story): Reason[] => (jsonOut(status(s)) as { reasons: Reason[] }).reasons;
const blockedSlots = (s: Story): Reason[] => reasonsOf(s).filter((r) => r.code === 'slot_blocked');
const standingVetoes = (s: Story): Reason[] => reasonsOf(s).filter((r) => r.code === 'veto_standing');

/** The state_before the command's dry run derives for these IDs. */
function planned(s: Story, verb: 'dismiss' | 'dismiss-veto', ids: readonly string[]): string {
  const out = govOk(s.w, ['unit', verb, '--unit', s.unit, '--dry-run', '--ids', ids.join(',')]);
  expect(out).toMatchObject({ ok: true, dry_run: true, ids, state_after: null, record_id: null, consumed_seq: null });
  return out.state_before as string;
}

function record(s: Story, operation: string, ids: readonly string[], stateBefore: string, o: { unit?: string; ttlSeconds?: number } = {}): string {
  return recordAuthorityFor(s.w, { unit: o.unit ?? s.unit, operation, ids, stateBefore, stateAfter: null, ttlSeconds: o.ttlSeconds });
}

function expectReplayAndAudit(s: Story): void {
  const db = readDb(s.w);
  try {
    expect(assertReplayMatches(db, join(s.w.dir, `replayed-${Date.now()}.db`)).stateDigest).toBe(stateDigest(db));
  } finally {
    db.close();
  }
  const audit = gov(s.w, ['audit', 'verify', '--json']);
  expect(audit.code, audit.stdout).toBe(0);
}

function dirtyStory(findings: readonly Finding[] = [BUG]): { s: Story; dirty: RecordedReceipt } {
  const s = newStory();
  const dirty = review(s, 'planning', 'source_fidelity', { verdict: 'DIRTY', findings });
  return { s, dirty };
}

describe('unit dismiss', () => {
  it('lifts the block of a DIRTY receipt: consumed once at its log position, replay and audit verify pass', () => {
    const { s, dirty } = dirtyStory();
    expect(blockedSlots(s)).toEqual([{ code: 'slot_blocked', ids: ['planning.source_fidelity', dirty.receiptId] }]);
    const before = planned(s, 'dismiss', [dirty.receiptId]);
    expect(before).toBe(dirty.predicate.planning_state_digest);
    const rec = record(s, 'dismiss', [dirty.receiptId], before);
    const r = gov(s.w, ['unit', 'dismiss', '--unit', s.unit, '--authority', rec, '--json']);
    expect(r.code, r.stdout).toBe(0);
    expect(jsonOut(r)).toMatchObject({ ok: true, dry_run: false, operation: 'dismiss', unit: s.unit, record_id: rec, ids: [dirty.receiptId], state_before: before });
    expect(blockedSlots(s)).toEqual([]);
    const db = readDb(s.w);
    try {
      expect(db.prepare('SELECT operation, unit FROM authority_consumptions WHERE record = ?').get(rec)).toEqual({ operation: 'dismiss', unit: s.unit });
    } finally {
      db.close();
    }
    expectReplayAndAudit(s);
    // Consumed: a second use is a replay, and nothing changes.
    expectRefused(s.w, ['unit', 'dismiss', '--unit', s.unit, '--authority', rec], 'authority_replayed', 5);
  });

  it('lifts the block of an ABORTED run named by its run id', () => {
    const s = newStory();
    const { runId } = abortChallenge(s.w.home, challenge(s, 'planning', 'baseline_preservation'));
    expect(blockedSlots(s)).toEqual([{ code: 'slot_blocked', ids: ['planning.baseline_preservation', runId] }]);
    const rec = record(s, 'dismiss', [runId], planned(s, 'dismiss', [runId]));
    govOk(s.w, ['unit', 'dismiss', '--unit', s.unit, '--authority', rec]);
    expect(blockedSlots(s)).toEqual([]);
    expectReplayAndAudit(s);
  });

  it('refusals, each with its code, store unchanged', async () => {
    const { s, dirty } = dirtyStory();
    const clean = review(s, 'planning', 'baseline_preservation');
    const before = planned(s, 'dismiss', [dirty.receiptId]);
    const cmd = (rec: string, unit = s.unit): string[] => ['unit', 'dismiss', '--unit', unit, '--authority', rec];
    // another unit of the same store
    const other = govOk(s.w, ['unit', 'create', '--contract', s.w.contractFile, '--baseline', s.w.baseline]).unit as string;
    expectRefused(s.w, cmd(record(s, 'dismiss', [dirty.receiptId], before), other), 'authority_unit_mismatch', 4);
    // wrong kind: a dismiss_veto record for `unit dismiss`
    expectRefused(s.w, cmd(record(s, 'dismiss_veto', [dirty.receiptId], before)), 'authority_operation_mismatch', 4);
    // a CLEAN receipt is not a block
    expectRefused(s.w, cmd(record(s, 'dismiss', [clean.receiptId], clean.predicate.planning_state_digest)), 'authority_dismiss_target_invalid', 4);
    expectRefused(s.w, ['unit', 'dismiss', '--unit', s.unit, '--dry-run', '--ids', clean.receiptId], 'authority_dismiss_target_invalid', 4);
    // a state_before that is not the content the receipt was judged on
    expectRefused(s.w, cmd(record(s, 'dismiss', [dirty.receiptId], `sha256:${'e'.repeat(64)}`)), 'authority_state_mismatch', 4);
    // unknown record, unknown unit
    expectRefused(s.w, cmd(`REC-${'0'.repeat(24)}`), 'authority_record_unknown', 7);
    expectRefused(s.w, cmd(record(s, 'dismiss', [dirty.receiptId], before), `UNIT-${'0'.repeat(32)}`), 'unit_unknown', 7);
    // usage: neither or both of --authority / --dry-run --ids
    expectRefused(s.w, ['unit', 'dismiss', '--unit', s.unit], 'usage_error', 2);
    expectRefused(s.w, ['unit', 'dismiss', '--unit', s.unit, '--dry-run'], 'usage_error', 2);
    // expired: a record whose one-second life ends before it is used
    const short = record(s, 'dismiss', [dirty.receiptId], before, { ttlSeconds: 1 });
    const expiresAt = Math.floor(Date.now() / 1000) + 1;
    while (Math.floor(Date.now() / 1000) <= expiresAt) await new Promise((r) => setTimeout(r, 100));
    expectRefused(s.w, cmd(short), 'authority_expired', 5);
    // The slot is still blocked after all of these.
    expect(blockedSlots(s)).toHaveLength(1);
    // Positive control: the right record on the right unit is consumed.
    govOk(s.w, cmd(record(s, 'dismiss', [dirty.receiptId], before)));
    expect(blockedSlots(s)).toEqual([]);
    expectReplayAndAudit(s);
  });
});

describe('unit dismiss-veto', () => {
  it('a DIRTY receipt with a veto needs both: dismiss lifts the block, dismiss-veto the veto', () => {
    const { s, dirty } = dirtyStory([VETO]);
    expect(standingVetoes(s).map((r) => r.ids[0])).toEqual([dirty.receiptId]);
    const before = planned(s, 'dismiss', [dirty.receiptId]);
    govOk(s.w, ['unit', 'dismiss', '--unit', s.unit, '--authority', record(s, 'dismiss', [dirty.receiptId], before)]);
    expect(blockedSlots(s)).toEqual([]);
    expect(standingVetoes(s)).toHaveLength(1); // a dismiss never lifts a veto
    const ids = [dirty.receiptId, 'DIR-1'];
    expect(planned(s, 'dismiss-veto', ids)).toBe(before);
    const rec = record(s, 'dismiss_veto', ids, before);
    // wrong kind the other way round
    expectRefused(s.w, ['unit', 'dismiss', '--unit', s.unit, '--authority', rec], 'authority_operation_mismatch', 4);
    const r = gov(s.w, ['unit', 'dismiss-veto', '--unit', s.unit, '--authority', rec, '--json']);
    expect(r.code, r.stdout).toBe(0);
    expect(jsonOut(r)).toMatchObject({ operation: 'dismiss_veto', record_id: rec, ids: [...ids].sort() });
    expect(standingVetoes(s)).toEqual([]);
    expectReplayAndAudit(s);
    expectRefused(s.w, ['unit', 'dismiss-veto', '--unit', s.unit, '--authority', rec], 'authority_replayed', 5);
  });

  it('a record that would lift no finding, or names no vetoing receipt, is refused; store unchanged', () => {
    const { s, dirty } = dirtyStory([VETO]);
    const before = dirty.predicate.planning_state_digest;
    const verb = (rec: string): string[] => ['unit', 'dismiss-veto', '--unit', s.unit, '--authority', rec];
    // refs only: no receipt named
    expectRefused(s.w, verb(record(s, 'dismiss_veto', ['DIR-1'], before)), 'authority_dismiss_target_invalid', 4);
    // the receipt without the refs of any finding: lifts nothing
    const { ids } = expectRefused(s.w, verb(record(s, 'dismiss_veto', [dirty.receiptId], before)), 'authority_dismiss_target_invalid', 4);
    expect(ids[1]).toBe(dirty.receiptId);
    // a ref that is not one of the receipt's findings
    expectRefused(s.w, verb(record(s, 'dismiss_veto', [dirty.receiptId, 'DIR-1', 'DIR-2'], before)), 'authority_dismiss_target_invalid', 4);
    expect(standingVetoes(s)).toHaveLength(1);
    expect(errorOf(gov(s.w, ['unit', 'dismiss-veto', '--unit', s.unit, '--dry-run', '--ids', 'DIR-1', '--json'])).code).toBe('authority_dismiss_target_invalid');
  });
});

describe('the store re-asserts the rule (authority_consume reducer, live and at replay)', () => {
  it('a store-level consumption the command would refuse is log_entry_not_applicable; store unchanged; the valid one is accepted', () => {
    const { s, dirty } = dirtyStory([VETO]);
    const clean = review(s, 'planning', 'baseline_preservation');
    const attempt = (operation: string, ids: string[], stateBefore: string): string => {
      const rec = record(s, operation, ids, stateBefore);
      const before = storeDigest(s.w);
      let code = 'no-error';
      try {
        consumeAuthority(s.w.home, { recordId: rec, operation, ids, unit: s.unit, stateBefore, stateAfter: null });
      } catch (e) {
        code = (e as { code?: string }).code ?? 'not-coded';
      }
      if (code !== 'no-error') expect(storeDigest(s.w)).toBe(before);
      return code;
    };
    const planningOf = (r: RecordedReceipt): string => r.predicate.planning_state_digest;
    expect(attempt('dismiss', [clean.receiptId], planningOf(clean))).toBe('log_entry_not_applicable');
    expect(attempt('dismiss', [dirty.receiptId], dirty.predicate.content_digest)).toBe('log_entry_not_applicable'); // not the reviewed content
    expect(attempt('dismiss_veto', ['DIR-1'], planningOf(dirty))).toBe('log_entry_not_applicable');
    expect(attempt('dismiss_veto', [clean.receiptId, 'DIR-1'], planningOf(clean))).toBe('log_entry_not_applicable');
    // Positive controls: what the command accepts, the store accepts; replay agrees.
    expect(attempt('dismiss', [dirty.receiptId], planningOf(dirty))).toBe('no-error');
    expect(attempt('dismiss_veto', [dirty.receiptId, 'DIR-1'], planningOf(dirty))).toBe('no-error');
    expect(blockedSlots(s)).toEqual([]);
    expect(standingVetoes(s)).toEqual([]);
    expectReplayAndAudit(s);
  });
});
