// `governed status` (docs/commands.md#what-each-command-guarantees, docs/decision.md#the-rules-in-short; docs/gate.md#6-the-cold-gate-path) through the built CLI: the stable JSON object
// (docs/gate.md "status") and the human table — per stage and slot the streak, what is counted and
// missing, what blocks a slot (DIRTY receipts, ABORTED runs), standing vetoes, leases, preservation,
// the delivery state with every reason — read-only, exit 0 whenever it could report, 7 for an
// unknown unit; and blocks and vetoes lifted by `dismiss` / `dismiss_veto` authority records, which
// the gate then re-verifies under the deploy-side trust root like every receipt it relies on.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOut } from './helpers/cli.js';
import { trustRootDoc } from './helpers/receipts.js';
import { abortChallenge, consumeAuthority } from './helpers/store-receipts.js';
import { assertNoSecrets, cleanupDirs, gov, makeKeys, policyDoc, recordAuthorityFor, tempDir, writeJsonFile } from './state-helpers.js';
import { challenge, cloneHome, gate, gateJson, newStory, review, rounds, status, storeDigestAt, type Story } from './gate-world.js';

interface StatusJson {
  schemaVersion: number;
  command: string;
  unit: string;
  state: string;
  reasons: { code: string; ids: string[] }[];
  evaluatedAt: string;
  trustMode: string;
  policyDigest: string;
  trustDigest: string;
  current: { planningStateDigest: string; contentDigest: string; workStateDigest: string; workspaceDigest: string; workRevision: number; scopeVersion: number; scopeEpoch: number };
  planningSealed: boolean;
  preservation: { required: boolean; waiver: string | null; contract: boolean; incidentHistory: boolean; unsatisfiedSurfaces: string[] };
  stages: { stage: string; required: boolean; gating: boolean; floor: number; rounds: number; streak: number; missingRounds: number; complete: boolean; slots: { slot: string; current: number; counted: number; missing: number; blockedBy: string[] }[]; proof: string[] }[];
  vetoes: { receipt: string; stage: string; slot: string; findings: { code: string; class: string; severity: string; refs: string[] }[] }[];
  leases: { lease: string; writerSession: string; acquiredAt: string; expiresAt: string; expired: boolean }[];
  abortedRuns: { run: string; stage: string; slot: string }[];
  receipts: { total: number; loaded: number };
  reliedOn: { receipts: string[]; authorities: string[] };
}

let s: Story;
const VETO = { code: 'scope_omission' as const, class: 'scope' as const, severity: 'CRITICAL' as const, refs: ['DIR-1'] };

function report(home = s.w.home): StatusJson {
  const before = storeDigestAt(home);
  const r = status(s, home);
  expect(r.code).toBe(0);
  assertNoSecrets(r);
  // status is read-only.
  expect(storeDigestAt(home)).toBe(before);
  return jsonOut(r) as unknown as StatusJson;
}
const slotOf = (st: StatusJson, stage: string, slot: string) => st.stages.find((x) => x.stage === stage)?.slots.find((x) => x.slot === slot);

beforeAll(() => {
  s = newStory();
});
afterAll(() => cleanupDirs());

describe('the status object (schema version 1)', () => {
  it('a new unit: every field present, REVIEW_ONLY with its reasons, nothing counted', () => {
    const st = report();
    expect(st).toMatchObject({ schemaVersion: 1, command: 'status', unit: s.unit, state: 'REVIEW_ONLY', trustMode: 'co-located', planningSealed: false });
    expect(st.policyDigest).toBe(s.policyDigest);
    expect(st.evaluatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(st.current).toMatchObject({ workRevision: 0, scopeVersion: 1, scopeEpoch: 1 });
    for (const d of ['planningStateDigest', 'contentDigest', 'workStateDigest', 'workspaceDigest'] as const) expect(st.current[d]).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(st.stages.map((x) => [x.stage, x.required, x.gating, x.floor, x.streak, x.missingRounds])).toEqual([
      ['planning', true, true, 2, 0, 2],
      ['development', false, false, 2, 0, 2],
      ['integration', true, true, 2, 0, 2],
    ]);
    expect(st.stages[0]?.slots.map((x) => x.slot)).toEqual(['authority_release', 'baseline_preservation', 'implementation_test', 'source_fidelity']);
    expect(st.preservation).toEqual({ required: false, waiver: 'preservation arrives with a later issue', contract: false, incidentHistory: false, incident_history: false, unsatisfiedSurfaces: [], unsatisfied_surfaces: [] });
    expect(st).toMatchObject({ vetoes: [], leases: [], abortedRuns: [], receipts: { total: 0, loaded: 0 }, reliedOn: { receipts: [], authorities: [] } });
    expect(st.reasons.map((r) => r.code)).toEqual(['streak_incomplete', 'streak_incomplete', 'planning_unsealed', 'directive_not_done', 'directive_not_done']);
  });

  it('the human table names stages, slots, counts and every reason', () => {
    const r = gov(s.w, ['status', '--unit', s.unit]);
    expect(r.code).toBe(0);
    assertNoSecrets(r);
    expect(r.stdout).toContain(`unit ${s.unit}: REVIEW_ONLY`);
    expect(r.stdout).toMatch(/stage \/ slot\s+gating\s+streak\s+counted\s+missing\s+blocked by/);
    expect(r.stdout).toMatch(/planning\s+yes\s+0\/2/);
    expect(r.stdout).toMatch(/ {2}source_fidelity\s+0\s+2\s+-/);
    expect(r.stdout).toContain('preservation waived: preservation arrives with a later issue');
    expect(r.stdout).toContain('streak_incomplete [integration]');
    expect(r.stdout).toContain('leases: none');
  });

  it('an unknown unit: exit 7, store unchanged, a malformed id never echoed', () => {
    for (const unit of [`UNIT-${'0'.repeat(32)}`, 'CANARY-unit-42']) {
      const before = storeDigestAt(s.w.home);
      const r = gov(s.w, ['status', '--unit', unit, '--json']);
      expect(r.code).toBe(7);
      expect((jsonOut(r) as { error: { code: string } }).error.code).toBe('unit_unknown');
      expect(r.stdout + r.stderr).not.toContain('CANARY');
      expect(storeDigestAt(s.w.home)).toBe(before);
    }
  });

  it('no store: exit 2', () => {
    const r = gov({ ...s.w, home: join(tempDir(), 'none') }, ['status', '--unit', s.unit, '--json']);
    expect(r.code).toBe(2);
    expect((jsonOut(r) as { error: { code: string } }).error.code).toBe('store_missing');
  });
});

describe('blocks, vetoes and their lifts (docs/decision.md#the-rules-in-short, docs/decision.md#6-vetoes)', () => {
  let dirty: string;
  let aborted: string;

  it('a DIRTY receipt with a veto blocks its slot and stands as a veto; an ABORTED run blocks its slot', () => {
    rounds(s, 'planning', 1);
    dirty = review(s, 'planning', 'source_fidelity', { findings: [VETO] }).receiptId;
    aborted = abortChallenge(s.w.home, challenge(s, 'planning', 'baseline_preservation')).runId;
    const st = report();
    expect(slotOf(st, 'planning', 'source_fidelity')).toMatchObject({ counted: 0, blockedBy: [dirty] });
    expect(slotOf(st, 'planning', 'baseline_preservation')).toMatchObject({ counted: 0, blockedBy: [aborted] });
    expect(st.vetoes).toEqual([{ receipt: dirty, stage: 'planning', slot: 'source_fidelity', findings: [VETO] }]);
    expect(st.abortedRuns).toEqual([{ run: aborted, stage: 'planning', slot: 'baseline_preservation' }]);
    expect(st.reasons).toEqual(
      expect.arrayContaining([
        { code: 'slot_blocked', ids: ['planning.baseline_preservation', aborted] },
        { code: 'slot_blocked', ids: ['planning.source_fidelity', dirty] },
        { code: 'veto_standing', ids: [dirty, 'planning.source_fidelity', 'DIR-1'] },
      ]),
    );
    const human = gov(s.w, ['status', '--unit', s.unit]).stdout;
    expect(human).toContain(`veto ${dirty} planning.source_fidelity: scope_omission scope [DIR-1]`);
    expect(human).toMatch(new RegExp(` {2}baseline_preservation\\s+0\\s+2\\s+${aborted}`));
  });

  it('CLEAN re-runs on the same content never lift a block', () => {
    review(s, 'planning', 'source_fidelity');
    review(s, 'planning', 'source_fidelity');
    expect(slotOf(report(), 'planning', 'source_fidelity')?.blockedBy).toEqual([dirty]);
  });

  it('a consumed `dismiss` lifts the ABORTED block; a `dismiss_veto` lifts the veto but not the DIRTY block', () => {
    const planning = report().current.planningStateDigest;
    const dismiss = recordAuthorityFor(s.w, { unit: s.unit, operation: 'dismiss', ids: [aborted], stateBefore: planning, stateAfter: null as unknown as string });
    consumeAuthority(s.w.home, { recordId: dismiss, operation: 'dismiss', ids: [aborted], unit: s.unit, stateBefore: planning, stateAfter: null });
    const dv = recordAuthorityFor(s.w, { unit: s.unit, operation: 'dismiss_veto', ids: [dirty, 'DIR-1'], stateBefore: planning, stateAfter: null as unknown as string });
    consumeAuthority(s.w.home, { recordId: dv, operation: 'dismiss_veto', ids: [dirty, 'DIR-1'], unit: s.unit, stateBefore: planning, stateAfter: null });
    const st = report();
    expect(slotOf(st, 'planning', 'baseline_preservation')).toMatchObject({ blockedBy: [] });
    expect(st.vetoes).toEqual([]);
    expect(slotOf(st, 'planning', 'source_fidelity')?.blockedBy).toEqual([dirty]);
    expect(st.reliedOn.authorities).toEqual([dismiss, dv].sort());
    expect(st.reasons.map((r) => r.code)).not.toContain('veto_standing');
  });

  it('the gate re-verifies those authority records under the deploy-side trust root (6 without the authority key)', () => {
    const k = s.w.keys;
    // Planning REVIEW_ONLY (source_fidelity still blocked): exit 3 under the full trust root ...
    expect(gate(s).code).toBe(3);
    // ... but a deploy trust root without the authority key cannot vouch for the lifts: never 3 or 0.
    const noAuthority = writeJsonFile(join(tempDir(), 'trust.json'), trustRootDoc([{ key: k.reviewer, roles: ['reviewer'] }, { key: k.runner, roles: ['runner'] }]));
    const r = gate(s, { trust: noAuthority });
    expect(r.code).toBe(6);
    expect(gateJson(r).error).toMatchObject({ code: 'key_unknown', ids: [k.authority.keyId] });
  });

  it('an authority row edited behind governed (its ids) is refused: decision_fact_mismatch (4)', () => {
    const home = cloneHome(s);
    const db = new Database(join(home, 'governed.db'));
    try {
      db.prepare("UPDATE authority_records SET ids = ? WHERE operation = 'dismiss'").run(JSON.stringify([aborted, `RUN-${'0'.repeat(32)}`]));
    } finally {
      db.close();
    }
    const r = status(s, home);
    expect(r.code).toBe(4);
    expect((jsonOut(r) as { error: { code: string } }).error.code).toBe('decision_fact_mismatch');
  });

  it('an expired lease is shown expired and still blocks (lease_active) until a logged sweep', async () => {
    // Leases wait for sealed planning (planning_not_sealed); this story's policy makes planning optional.
    const keys = makeKeys();
    const t = newStory({ keys, policy: policyDoc(keys) });
    const home = t.w.home;
    const lease = (jsonOut(gov({ ...t.w, home }, ['lease', 'acquire', '--unit', t.unit, '--writer-session', 'agent-1', '--ttl', '1s', '--json'])) as { lease: string }).lease;
    await new Promise((r) => setTimeout(r, 2100));
    const st = jsonOut(status(t, home)) as unknown as StatusJson;
    expect(st.leases).toEqual([expect.objectContaining({ lease, writerSession: 'agent-1', expired: true })]);
    expect(st.reasons).toContainEqual({ code: 'lease_active', ids: [lease] });
  });

  it('a receipt read for its veto findings, its row edited, makes status fail closed (4), not report', () => {
    const home = cloneHome(s);
    const id = s.receipts.find((r) => r.predicate.verdict === 'DIRTY')?.receiptId;
    const db = new Database(join(home, 'governed.db'));
    try {
      db.prepare('UPDATE receipts SET recorded_at = recorded_at + 1 WHERE id = ?').run(id);
    } finally {
      db.close();
    }
    const r = status(s, home);
    expect(r.code).toBe(4);
    // The row is no longer the one its run_receipt entry derives (docs/gate.md#5a-the-tables-must-be-what-the-log-says-decision_table_log_mismatch-4).
    expect((jsonOut(r) as { error: { code: string } }).error.code).toBe('decision_table_log_mismatch');
  });
});
