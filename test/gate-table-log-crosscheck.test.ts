// Guards: the gate decides from tables the log derives, so a receipt row deleted, edited, moved or
// relabelled behind governed (no trigger protects `receipts`) is tampering — exit 4,
// `decision_table_log_mismatch`, the store unchanged — never an ALLOW, never a REVIEW_ONLY.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupDirs, govOk } from './state-helpers.js';
import { cloneHome, eligibleStory, expectGateRefused, gate, gateJson, review, SESSION, status, type Story } from './gate-world.js';

let s: Story;
/** The RELEASE_ELIGIBLE store, copied before the DIRTY receipt. */
let eligibleHome: string;
/** A counted CLEAN receipt of a gating work slot (integration, a proof receipt). */
let counted: string;
/** The DIRTY receipt in that integration slot that makes the gate say slot_blocked. */
let dirty: string;
/** A second unit of the same store (the target of relabelled rows). */
let other: string;

beforeAll(() => {
  s = eligibleStory();
  const proof = s.receipts.filter((r) => r.predicate.stage === 'integration').at(-1);
  counted = proof?.receiptId as string;
  other = govOk(s.w, ['unit', 'create', '--contract', s.w.contractFile, '--baseline', s.w.baseline]).unit as string;
  govOk(s.w, ['writer', 'register', '--unit', other, '--writer-session', SESSION]);
  eligibleHome = cloneHome(s);
  const bug = { code: 'test_gap' as const, class: 'correctness' as const, severity: 'MEDIUM' as const, refs: ['AC-1'] };
  dirty = review(s, 'integration', proof?.predicate.slot as string, { findings: [bug] }).receiptId;
  // A whole eligible story (≈ 20 CLI runs): the default 60 s hook budget is used up at load ≈ 14.
}, 300_000);
afterAll(() => cleanupDirs());

function edit(home: string, sql: string, ...params: unknown[]): void {
  const db = new Database(join(home, 'governed.db'));
  try {
    db.pragma('foreign_keys = OFF');
    expect(db.prepare(sql).run(...params).changes).toBeGreaterThan(0);
  } finally {
    db.close();
  }
}

describe('positive controls', () => {
  it('the eligible copy exits 0; with the DIRTY receipt the gate says 3, slot_blocked', () => {
    expect(gate(s, { home: eligibleHome }).code).toBe(0);
    const r = gate(s);
    expect({ code: r.code, error: gateJson(r).error }).toEqual({ code: 3, error: null });
    expect(gateJson(r).reasons.map((x) => x.code)).toContain('slot_blocked');
    // An untouched clone of either is not tampering.
    expect(gate(s, { home: cloneHome(s) }).code).toBe(3);
  });
});

// Each row: which store to start from, the edit, and the unit whose gate must refuse.
const MATRIX: readonly (readonly [string, 'dirty' | 'eligible', (home: string) => void, 'story' | 'other'])[] = [
  ['the DIRTY row deleted (the block would vanish: ALLOW before)', 'dirty', (h) => edit(h, 'DELETE FROM receipts WHERE id = ?', dirty), 'story'],
  ['a counted CLEAN row deleted', 'eligible', (h) => edit(h, 'DELETE FROM receipts WHERE id = ?', counted), 'story'],
  ['the DIRTY verdict edited to CLEAN', 'dirty', (h) => edit(h, "UPDATE receipts SET verdict = 'CLEAN' WHERE id = ?", dirty), 'story'],
  ['a counted CLEAN verdict edited to DIRTY', 'eligible', (h) => edit(h, "UPDATE receipts SET verdict = 'DIRTY' WHERE id = ?", counted), 'story'],
  ['the DIRTY row moved to another slot', 'dirty', (h) => edit(h, "UPDATE receipts SET slot = 'elsewhere' WHERE id = ?", dirty), 'story'],
  ['the DIRTY row moved to another stage', 'dirty', (h) => edit(h, "UPDATE receipts SET stage = 'test' WHERE id = ?", dirty), 'story'],
  ['a counted CLEAN row moved to another stage', 'eligible', (h) => edit(h, "UPDATE receipts SET stage = 'test' WHERE id = ?", counted), 'story'],
  ['the DIRTY row relabelled to another unit (gate of its unit)', 'dirty', (h) => edit(h, 'UPDATE receipts SET unit = ? WHERE id = ?', other, dirty), 'story'],
  ['every row relabelled to another unit (gate of its unit)', 'dirty', (h) => edit(h, 'UPDATE receipts SET unit = ? WHERE unit = ?', other, s.unit), 'story'],
  ['the DIRTY row relabelled to another unit (gate of that unit)', 'dirty', (h) => edit(h, 'UPDATE receipts SET unit = ? WHERE id = ?', other, dirty), 'other'],
];

describe('the unit tables must be what its log entries derive', () => {
  it.each(MATRIX)('%s: exit 4 decision_table_log_mismatch, store unchanged', (_name, from, tamper, whose) => {
    const target = from === 'eligible' ? cloneHome({ ...s, w: { ...s.w, home: eligibleHome } }) : cloneHome(s);
    tamper(target);
    const d = expectGateRefused(s, { home: target, ...(whose === 'other' ? { unit: other } : {}) }, 'decision_table_log_mismatch', 4);
    expect(d.error?.ids[0]).toBe('receipts');
    expect(d.error?.ids[1]).toMatch(/^seq:\d+$/);
  });

  it('status reports the same tampering (same loader), exit 4', () => {
    const home = cloneHome(s);
    edit(home, 'DELETE FROM receipts WHERE id = ?', dirty);
    const r = status(s, home);
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout).error.code).toBe('decision_table_log_mismatch');
  });
});

describe('the other tables the decision reads whole', () => {
  it('an ABORTED run row relabelled as a receipt run: exit 4 naming runs', () => {
    const home = cloneHome(s);
    const db = new Database(join(home, 'governed.db'));
    const aborted = db.prepare("SELECT COUNT(*) FROM runs WHERE status = 'aborted'").pluck().get() as number;
    db.close();
    // The story has no aborted run: deleting nothing proves nothing, so fabricate one instead — a
    // receipt run's row turned into an ABORTED one (a block the log never recorded) is refused.
    expect(aborted).toBe(0);
    edit(home, "UPDATE runs SET status = 'aborted', abort_code = 'x' WHERE id = (SELECT run_id FROM receipts WHERE id = ?)", counted);
    const d = expectGateRefused(s, { home }, 'decision_table_log_mismatch', 4);
    expect(d.error?.ids[0]).toBe('runs');
  });
});
