// A complete story through the built CLI (docs/gate.md#7-measurements-benchgate; acceptance tests of the deploy_gate
// control, docs/policy.md#policy-and-trust-root): planning rounds for the four roles on the baseline, a lease while the change
// is written, development and integration rounds, `status` and `gate` at each step — REVIEW_ONLY
// with its reasons first — then RELEASE_ELIGIBLE under a policy that requires `deploy_gate`, with
// the preservation waiver shown in every decision, and the gate bound to exactly the reviewed commit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_REGISTRY } from '../src/core/decision/index.js';
import { jsonOut } from './helpers/cli.js';
import { join } from 'node:path';
import { assertNoSecrets, cleanupDirs, gov, govOk, makeKeys, policyDoc, writeJsonFile } from './state-helpers.js';
import { doneContract, gate, gateJson, implement, newStory, rounds, status, storeDigestAt, SESSION, type Story } from './gate-world.js';

const WAIVER = 'preservation arrives with a later issue';
let s: Story;

const codesOf = (reasons: { code: string; ids: string[] }[]): string[][] => reasons.map((r) => [r.code, ...r.ids]);

function statusJson(): Record<string, unknown> & { state: string; reasons: { code: string; ids: string[] }[] } {
  const r = status(s);
  expect(r.code).toBe(0);
  assertNoSecrets(r);
  return jsonOut(r) as never;
}

beforeAll(() => {
  s = newStory();
});
afterAll(() => cleanupDirs());

describe('deploy_gate control (docs/policy.md#policy-and-trust-root)', () => {
  it('is implemented by this version, and the story policy requires it', () => {
    expect(CONTROL_REGISTRY.deploy_gate).toBe('implemented');
    expect(statusJson().reasons.map((r) => r.code)).not.toContain('control_pending:deploy_gate');
  });
});

describe('a unit from nothing to RELEASE_ELIGIBLE', () => {
  it('without a single receipt: status reports REVIEW_ONLY with its reasons, gate exits 7', () => {
    const st = statusJson();
    expect(st.state).toBe('REVIEW_ONLY');
    expect(codesOf(st.reasons)).toEqual([
      ['streak_incomplete', 'planning'],
      ['streak_incomplete', 'integration'],
      ['planning_unsealed', 'integration'],
      ['directive_not_done', 'DIR-1'],
      ['directive_not_done', 'DIR-2'],
    ]);
    expect((st.preservation as { waiver: string }).waiver).toBe(WAIVER);
    const r = gate(s);
    expect(r.code).toBe(7);
    const d = gateJson(r);
    expect(d.error?.code).toBe('gate_no_evidence');
    expect(d.decision).toBe('DENY');
    expect(d.preservationWaiver).toBe(WAIVER);
  });

  it('after one planning round: streak 1 of 2 on every role, planning not sealed', () => {
    rounds(s, 'planning', 1);
    const st = statusJson();
    const planning = (st.stages as { stage: string; streak: number; floor: number; slots: { counted: number; missing: number }[] }[])[0];
    expect(planning).toMatchObject({ stage: 'planning', streak: 1, floor: 2 });
    expect(planning?.slots.every((x) => x.counted === 1 && x.missing === 1)).toBe(true);
    expect(st.planningSealed).toBe(false);
    const r = gate(s);
    expect(r.code).toBe(3);
    expect(codesOf(gateJson(r).reasons)).toContainEqual(['streak_incomplete', 'planning']);
  });

  it('after two planning rounds: planning sealed; the gate on the baseline is REVIEW_ONLY (exit 3) with reasons', () => {
    rounds(s, 'planning', 1);
    const st = statusJson();
    expect(st.planningSealed).toBe(true);
    const r = gate(s);
    expect(r.code).toBe(3);
    const d = gateJson(r);
    expect(d).toMatchObject({ decision: 'DENY', state: 'REVIEW_ONLY', exit: 3, error: null, preservationWaiver: WAIVER, trustMode: 'co-located' });
    expect(codesOf(d.reasons)).toEqual([
      ['streak_incomplete', 'integration'],
      ['directive_not_done', 'DIR-1'],
      ['directive_not_done', 'DIR-2'],
    ]);
    expect(d.reliedOn?.receipts).toHaveLength(8);
  });

  it('a lease while the change is written: lease_active in status and gate', () => {
    const lease = govOk(s.w, ['lease', 'acquire', '--unit', s.unit, '--writer-session', SESSION]).lease as string;
    const st = statusJson();
    expect(codesOf(st.reasons)).toContainEqual(['lease_active', lease]);
    expect((st.leases as { lease: string; writerSession: string; expired: boolean }[])[0]).toMatchObject({ lease, writerSession: SESSION, expired: false });
    const d = gateJson(gate(s));
    expect(codesOf(d.reasons)).toContainEqual(['lease_active', lease]);
    govOk(s.w, ['lease', 'release', '--lease', lease, '--writer-session', SESSION]);
  });

  it('the change committed and the contract bound done: integration still missing', () => {
    implement(s);
    const st = statusJson();
    expect(codesOf(st.reasons)).toEqual([['streak_incomplete', 'integration']]);
    expect(st.planningSealed).toBe(true);
    const d = gateJson(gate(s));
    expect(d.exit).toBe(3);
    expect(codesOf(d.reasons)).toEqual([['streak_incomplete', 'integration']]);
  });

  it('development rounds (optional stage) are reported but never gate', () => {
    rounds(s, 'development', 2);
    const st = statusJson();
    const dev = (st.stages as { stage: string; gating: boolean; streak: number; complete: boolean }[]).find((x) => x.stage === 'development');
    expect(dev).toMatchObject({ gating: false, streak: 2, complete: true });
    expect(codesOf(st.reasons)).toEqual([['streak_incomplete', 'integration']]);
  });

  it('one integration round: still REVIEW_ONLY; the gate says so (exit 3)', () => {
    rounds(s, 'integration', 1);
    expect(gate(s).code).toBe(3);
  });

  it('two integration rounds: status RELEASE_ELIGIBLE, gate exit 0 ALLOW on the reviewed commit', () => {
    rounds(s, 'integration', 1);
    const st = statusJson();
    expect(st.state).toBe('RELEASE_ELIGIBLE');
    expect(st.reasons).toEqual([]);
    const before = storeDigestAt(s.w.home);
    const r = gate(s);
    assertNoSecrets(r);
    expect(r.code).toBe(0);
    const d = gateJson(r);
    expect(d).toMatchObject({
      schemaVersion: 1,
      decision: 'ALLOW',
      exit: 0,
      state: 'RELEASE_ELIGIBLE',
      unit: s.unit,
      trustMode: 'co-located',
      policyDigest: s.policyDigest,
      preservationWaiver: WAIVER,
      reasons: [],
      error: null,
      attestation: null,
    });
    expect(d.subject.commit).toBe(s.subject);
    expect(d.subject.manifestDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(d.gateTrustDigest).toBe(d.trustDigest);
    expect(d.evaluatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    // Proof of the gating stages: 4 roles x 2 rounds of planning and of integration.
    expect(d.reliedOn?.receipts).toHaveLength(16);
    // The gate is read-only.
    expect(storeDigestAt(s.w.home)).toBe(before);
    // The subject's manifest is the workspace every integration proof receipt reviewed.
    const integration = s.receipts.filter((x) => x.predicate.stage === 'integration');
    for (const x of integration) expect(x.predicate.inputs.workspace_digest).toBe(d.subject.manifestDigest);
  });

  it('the human output names the state, the subject and the waiver', () => {
    const human = gov(s.w, ['gate', '--unit', s.unit, '--trust', s.w.trustFile, '--policy-digest', s.policyDigest, '--subject', s.subject]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('ALLOW (exit 0): RELEASE_ELIGIBLE');
    expect(human.stdout).toContain(s.subject);
    expect(human.stdout).toContain(`waived: ${WAIVER}`);
  });

  it('the baseline commit is not the reviewed content: exit 4, never 0', () => {
    const r = gate(s, { subject: s.baseline });
    expect(r.code).toBe(4);
    expect(gateJson(r).error?.code).toBe('gate_subject_mismatch');
  });

  it('a later edit of the workspace without a lease: status moves to REVIEW_ONLY, the gate still judges the shipped commit', () => {
    s.w.repo.write('src/export.ts', 'export const changed = true;\n');
    const st = statusJson();
    expect(st.state).toBe('REVIEW_ONLY');
    expect(codesOf(st.reasons)).toContainEqual(['streak_incomplete', 'integration']);
    expect(gate(s).code).toBe(0);
    s.w.repo.git('checkout', '--', 'src/export.ts');
    expect(statusJson().state).toBe('RELEASE_ELIGIBLE');
  });
});


describe('a decision resting on planning alone never vouches for a commit', () => {
  it('planning-only policy, RELEASE_ELIGIBLE in status, gate exit 7 gate_subject_unreviewed', () => {
    const roles = { source_fidelity: 'coverage', baseline_preservation: 'coverage', implementation_test: 'coverage', authority_release: 'coverage' };
    const keys = makeKeys();
    const p = newStory({ keys, policy: policyDoc(keys, { stages: { planning: { required: true, streak: 2, slots: roles } } }) });
    govOk(p.w, ['unit', 'bind', '--unit', p.unit, '--contract', writeJsonFile(join(p.w.dir, 'done.json'), doneContract())]);
    rounds(p, 'planning', 2);
    expect((jsonOut(status(p)) as { state: string }).state).toBe('RELEASE_ELIGIBLE');
    const r = gate(p);
    expect(r.code).toBe(7);
    expect(gateJson(r)).toMatchObject({ decision: 'DENY', state: null, error: { code: 'gate_subject_unreviewed', ids: [p.subject] } });
  });
});

describe('the lease rule for the lease flow (docs/contract.md#the-states-a-receipt-is-judged-against): assertLeaseAllowedFor', () => {
  it('refuses (planning_not_sealed, 8) until planning is sealed on the current planning state, then allows', async () => {
    const { openStore, closeStore } = await import('../src/store/index.js');
    const { assertLeaseAllowedFor } = await import('../src/flows/decide/lease-guard.js');
    const p = newStory();
    const check = async (): Promise<string> => {
      const store = openStore(p.w.home);
      try {
        const seal = await assertLeaseAllowedFor(store.db, p.unit, Math.floor(Date.now() / 1000));
        return seal.sealed ? 'sealed' : 'not sealed';
      } catch (e) {
        return (e as { code: string; exit: number }).code + (e as { exit: number }).exit;
      } finally {
        closeStore(store);
      }
    };
    expect(await check()).toBe('planning_not_sealed8');
    rounds(p, 'planning', 1);
    expect(await check()).toBe('planning_not_sealed8');
    rounds(p, 'planning', 1);
    expect(await check()).toBe('sealed');
  });
});
