// The `receipts.trust_mode` column (migration 0010): the gate reads each loaded receipt's trust mode
// from it instead of parsing every envelope, so the column must never be trusted where it matters.
// Guards: the column is what the `run_receipt` reducer derives from the signed predicate (live, at
// replay, and backfilled by the migration for older rows); a store edited so that the column
// disagrees with the signed predicate is refused — by the gate and status with
// decision_fact_mismatch (exit 4, the store unchanged) for a re-verified receipt and for any loaded
// receipt whose column claims `separated`, and by audit verify with state_replay_mismatch.
// Positive controls: the untouched stores are ALLOW (co-located and separated) and audit-clean.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.setConfig({ testTimeout: 180_000 });
import { ROLES } from '../src/core/policy.js';
import { cleanupDirs, gov } from './state-helpers.js';
import { cloneHome, eligibleStory, expectGateRefused, gate, gateJson, implement, newStory, review, status, storeDigestAt, type Story } from './gate-world.js';
import { jsonOut } from './helpers/cli.js';

/** What a daemon observed (docs/runnerd.md): uids outside every governed uid of the test policy. */
const SEPARATION = {
  boot_id: '01234567-89ab-cdef-0123-456789abcdef',
  daemon_pid: 4242,
  daemon_start_time: '123456',
  daemon_uid: 61000,
  attestor_uids: { reviewer: 61001, runner: 61002 },
  client_uid: 1000,
  client_pid: 4343,
};

let colocated: Story;
let separated: Story;

function separatedStory(): Story {
  const s = newStory();
  const sep = (stage: 'planning' | 'development' | 'integration'): void => {
    for (let i = 0; i < 2; i++) for (const slot of stage === 'development' ? ['coverage'] : [...ROLES]) review(s, stage, slot, { separation: SEPARATION });
  };
  sep('planning');
  implement(s);
  sep('development');
  sep('integration');
  return s;
}

const db = (home: string): Database.Database => new Database(join(home, 'governed.db'));
function columnOf(home: string): Map<string, string> {
  const d = db(home);
  try {
    return new Map((d.prepare('SELECT id, trust_mode FROM receipts').all() as { id: string; trust_mode: string }[]).map((r) => [r.id, r.trust_mode]));
  } finally {
    d.close();
  }
}
function edit(home: string, sql: string, ...params: unknown[]): void {
  const d = db(home);
  try {
    expect(d.prepare(sql).run(...params).changes).toBeGreaterThan(0);
  } finally {
    d.close();
  }
}
const clone = (s: Story): string => cloneHome(s);
const auditCode = (s: Story, home: string): { exit: number | null; code: unknown } => {
  const r = gov({ ...s.w, home }, ['audit', 'verify', '--json']);
  const j = jsonOut(r) as { ok?: boolean; failures?: { code: string }[] };
  return { exit: r.code, code: j.failures?.[0]?.code ?? (j.ok === true ? 'ok' : 'no code') };
};

beforeAll(() => {
  colocated = eligibleStory();
  // A third development round: the loader reads every receipt on the current work state, the
  // decision relies on the streak's (so one loaded receipt is outside reliedOn).
  review(colocated, 'development', 'coverage');
  separated = separatedStory();
}, 300_000);
afterAll(() => cleanupDirs());

describe('positive controls', () => {
  it('co-located: the column is every signed predicate\'s, the gate allows in co-located mode, the audit passes', () => {
    expect([...columnOf(colocated.w.home).values()].every((m) => m === 'co-located')).toBe(true);
    expect(columnOf(colocated.w.home).size).toBe(colocated.receipts.length);
    const r = gate(colocated);
    expect(r.code).toBe(0);
    expect(gateJson(r).trustMode).toBe('co-located');
    expect(auditCode(colocated, colocated.w.home)).toEqual({ exit: 0, code: 'ok' });
  });
  it('separated: every column says separated, the gate allows in separated mode, the audit passes', () => {
    const col = columnOf(separated.w.home);
    for (const r of separated.receipts) expect(col.get(r.receiptId)).toBe(r.predicate.trust_mode);
    expect(separated.receipts.every((r) => r.predicate.trust_mode === 'separated')).toBe(true);
    const g = gate(separated);
    expect(g.code).toBe(0);
    expect(gateJson(g).trustMode).toBe('separated');
    expect(auditCode(separated, separated.w.home)).toEqual({ exit: 0, code: 'ok' });
  });
});

describe('a column that disagrees with the signed predicate is refused', () => {
  it('every co-located receipt relabelled separated (a co-located store passed off as separated): gate and status refuse, decision_fact_mismatch', () => {
    const home = clone(colocated);
    edit(home, "UPDATE receipts SET trust_mode = 'separated'");
    expectGateRefused(colocated, { home }, 'decision_fact_mismatch', 4);
    const before = storeDigestAt(home);
    const st = status(colocated, home);
    expect(st.code).toBe(4);
    expect(storeDigestAt(home)).toBe(before);
  });
  it('one relied-on separated receipt relabelled co-located: the re-verification refuses it', () => {
    const relied = (gateJson(gate(separated)).reliedOn as { receipts: string[] }).receipts;
    const home = clone(separated);
    edit(home, "UPDATE receipts SET trust_mode = 'co-located' WHERE id = ?", relied[0]);
    expectGateRefused(separated, { home }, 'decision_fact_mismatch', 4);
  });
  it('a loaded receipt the decision does not rely on, relabelled separated: refused too (it would count for the trust mode)', () => {
    const s = colocated;
    const relied = new Set((gateJson(gate(s)).reliedOn as { receipts: string[] }).receipts);
    const onState = s.receipts.filter((r) => r.predicate.stage !== 'planning' && r.predicate.work_state_digest === s.receipts.at(-1)!.predicate.work_state_digest);
    const spare = onState.find((r) => !relied.has(r.receiptId));
    expect(spare, 'a loaded receipt outside reliedOn').toBeDefined();
    const home = clone(s);
    edit(home, "UPDATE receipts SET trust_mode = 'separated' WHERE id = ?", spare!.receiptId);
    expectGateRefused(s, { home }, 'decision_fact_mismatch', 4);
  });
  it('audit verify rebuilds the column from the signed predicates: an edited column is state_replay_mismatch', () => {
    const home = clone(colocated);
    edit(home, "UPDATE receipts SET trust_mode = 'separated' WHERE id = ?", colocated.receipts[0]!.receiptId);
    expect(auditCode(colocated, home)).toEqual({ exit: 4, code: 'state_replay_mismatch' });
  });
  it('the schema refuses a value that is neither mode', () => {
    const home = clone(colocated);
    const d = db(home);
    try {
      expect(() => d.prepare("UPDATE receipts SET trust_mode = 'trusted'").run()).toThrow(/CHECK constraint/);
    } finally {
      d.close();
    }
  });
});

describe('migration 0010 fills the column of older rows from their envelopes', () => {
  it('a store at schema 9 (no column): read-only gate refuses store_migration_required; status migrates; every row gets its signed mode; the gate allows', () => {
    const home = clone(separated);
    const d = db(home);
    try {
      d.exec('ALTER TABLE receipts DROP COLUMN trust_mode');
      d.exec('DROP INDEX log_unit_preservation_set');
      d.pragma('user_version = 9');
    } finally {
      d.close();
    }
    expectGateRefused(separated, { home }, 'store_migration_required', 2);
    expect(status(separated, home).code).toBe(0);
    const col = columnOf(home);
    for (const r of separated.receipts) expect(col.get(r.receiptId)).toBe('separated');
    const g = gate(separated, { home });
    expect(g.code).toBe(0);
    expect(gateJson(g).trustMode).toBe('separated');
  });
});
