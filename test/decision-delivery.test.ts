// docs/decision.md#8-delivery-state-and-reason-codes delivery state: every reason as {code, ids}, in a deterministic order, and the
// conditions beyond streaks (leases, controls, trust mode, directives, deferrals, preservation).
import { describe, expect, it } from 'vitest';
import { CONTROL_REGISTRY, decide, type Decision } from '../src/core/decision/index.js';
import { DECISION_REASONS } from '../src/core/error-codes/decision.js';
import { REASON_CODES } from '../src/core/errors.js';
import { policy, Scenario, veto } from './decision-fixtures.js';

const codes = (d: Decision): string[] => d.reasons.map((r) => r.code);

describe('RELEASE_ELIGIBLE ⇔ every condition holds (docs/decision.md#8-delivery-state-and-reason-codes)', () => {
  it('a complete unit is RELEASE_ELIGIBLE with no reasons, and the waiver is shown', () => {
    const d = decide(new Scenario().complete().input());
    expect(d.state).toBe('RELEASE_ELIGIBLE');
    expect(d.reasons).toEqual([]);
    expect(d.preservationWaiver).toBe('no preservation adapter for this project yet');
    expect(d.planningSealed).toBe(true);
    expect(d.trustMode).toBe('co-located');
  });

  it('a unit with no evidence is REVIEW_ONLY with one streak reason per required stage', () => {
    const d = decide(new Scenario().input());
    expect(d.state).toBe('REVIEW_ONLY');
    expect(d.reasons).toEqual([
      { code: 'streak_incomplete', ids: ['planning'] },
      { code: 'streak_incomplete', ids: ['development'] },
      { code: 'streak_incomplete', ids: ['integration'] },
      { code: 'planning_unsealed', ids: ['integration'] },
    ]);
  });

  it('an optional stage with no evidence does not block', () => {
    const base = policy();
    const p = policy({ stages: { ...base.doc.stages, test: { required: false, streak: 3, slots: { unit: 'coverage' } } } });
    const s = new Scenario(p);
    s.rounds('planning', 2);
    s.rounds('development', 2);
    s.rounds('integration', 2);
    const d = decide(s.input());
    expect(d.state).toBe('RELEASE_ELIGIBLE');
    expect(d.stages.find((x) => x.stage === 'test')).toMatchObject({ required: false, gating: false, streak: 0 });
  });

  it('a policy that requires no stage never makes a unit eligible', () => {
    const base = policy();
    const p = policy({ stages: { development: { ...base.doc.stages.development!, required: false } } });
    const d = decide(new Scenario(p).complete().input());
    expect(d.reasons).toEqual([{ code: 'no_required_stage', ids: [] }]);
  });
});

describe('leases (docs/decision.md#8-delivery-state-and-reason-codes)', () => {
  it.each([
    ['an active lease', [{ leaseId: 'LSE-b', expiresAt: 10 ** 10 }], [['LSE-b']]],
    ['an expired lease not yet swept (its sweep will bump work_revision)', [{ leaseId: 'LSE-a', expiresAt: 1 }], [['LSE-a']]],
    [
      'two open leases, listed by id',
      [
        { leaseId: 'LSE-z', expiresAt: 10 ** 10 },
        { leaseId: 'LSE-a', expiresAt: 10 ** 10 },
      ],
      [['LSE-a'], ['LSE-z']],
    ],
  ])('%s → lease_active', (_name, leases, ids) => {
    const s = new Scenario().complete();
    s.openLeases = leases;
    const d = decide(s.input());
    expect(d.state).toBe('REVIEW_ONLY');
    expect(d.reasons.map((r) => [r.code, ...r.ids])).toEqual(ids.map((i) => ['lease_active', ...i]));
  });
});

describe('controls (docs/policy.md#policy-and-trust-root registry)', () => {
  it('the registry marks only deploy_gate implemented (its acceptance tests: test/gate-*.test.ts)', () => {
    expect(Object.entries(CONTROL_REGISTRY).filter(([, status]) => status === 'implemented').map(([c]) => c)).toEqual(['deploy_gate']);
  });

  it.each([
    [['deploy_gate'], CONTROL_REGISTRY, []],
    [['cross_role_comparison', 'deploy_gate'], CONTROL_REGISTRY, ['control_pending:cross_role_comparison']],
    [['deploy_gate'], { ...CONTROL_REGISTRY, deploy_gate: 'pending' as const }, ['control_pending:deploy_gate']],
    [['external_effect_gate'], { deploy_gate: 'implemented' as const }, ['control_pending:external_effect_gate']],
    [[], CONTROL_REGISTRY, []],
  ] as const)('required %j → %j', (required, registry, expected) => {
    const s = new Scenario(policy({ controls: [...required] })).complete();
    s.controls = registry;
    const d = decide(s.input());
    expect(codes(d)).toEqual(expected);
    expect(d.reasons.map((r) => r.ids)).toEqual(expected.map((c) => [c.split(':')[1]]));
  });
});

describe('trust mode (docs/threat-model.md#trust-modes)', () => {
  it.each([
    ['co-located accepted', true, 'co-located', []],
    ['co-located with accept_co_located: false', false, 'co-located', ['trust_mode_not_accepted']],
    ['separated under a co-located policy', true, 'separated', ['trust_mode_not_accepted']],
  ] as const)('%s', (_name, accept, mode, expected) => {
    const s = new Scenario(policy({ accept_co_located: accept })).complete();
    s.trustMode = mode;
    const d = decide(s.input());
    expect(codes(d)).toEqual(expected);
    if (expected.length > 0) expect(d.reasons[0]?.ids).toEqual([mode]);
  });
});

describe('directives and deferrals (docs/contract.md#validation-rules, docs/authority.md#human-authority-records)', () => {
  it('an active directive blocks; done does not', () => {
    const s = new Scenario().complete();
    s.directives = [
      { id: 'DIR-2', state: 'active', tombstone: null },
      { id: 'DIR-1', state: 'done', tombstone: null },
    ];
    expect(decide(s.input()).reasons).toEqual([{ code: 'directive_not_done', ids: ['DIR-2'] }]);
  });

  const rows: [string, (s: Scenario) => void, string[] | null][] = [
    ['a valid defer record covering the directive', (s) => void s.authority('defer', ['DIR-2'], { recordId: 'REC-77aa' }), null],
    ['no tombstone at all', (s) => ((s.directives = [{ id: 'DIR-2', state: 'deferred', tombstone: null }]), void s.authority('defer', ['DIR-2'], { recordId: 'REC-77aa' })), ['DIR-2']],
    ['a tombstone whose record was never consumed', () => undefined, ['DIR-2', 'TMB-2']],
    ['a record of the wrong operation', (s) => void s.authority('abandon', ['DIR-2'], { recordId: 'REC-77aa' }), ['DIR-2', 'TMB-2']],
    ['a record that covers another directive', (s) => void s.authority('defer', ['DIR-9'], { recordId: 'REC-77aa' }), ['DIR-2', 'TMB-2']],
    ['a record consumed after its expiry', (s) => void s.authority('defer', ['DIR-2'], { recordId: 'REC-77aa', expiresIn: -1 }), ['DIR-2', 'TMB-2']],
  ];
  it.each(rows)('deferred directive with %s', (_name, arrange, ids) => {
    const s = new Scenario().complete();
    s.directives = [
      { id: 'DIR-1', state: 'done', tombstone: null },
      { id: 'DIR-2', state: 'deferred', tombstone: { id: 'TMB-2', authorityRecord: 'REC-77aa' } },
    ];
    arrange(s);
    const d = decide(s.input());
    expect(d.reasons).toEqual(ids === null ? [] : [{ code: 'deferral_not_disposed', ids }]);
    expect(d.reliedOn.authorities).toEqual(ids === null ? ['REC-77aa'] : []);
  });

  it.each([
    ['superseded', 'supersede'],
    ['abandoned', 'abandon'],
  ] as const)('%s needs a %s record', (state, operation) => {
    const s = new Scenario().complete();
    s.directives = [{ id: 'DIR-3', state, tombstone: { id: 'TMB-3', authorityRecord: 'REC-3' } }];
    s.authority('defer', ['DIR-3'], { recordId: 'REC-3' });
    expect(codes(decide(s.input()))).toEqual(['deferral_not_disposed']);
    const t = new Scenario().complete();
    t.directives = [{ id: 'DIR-3', state, tombstone: { id: 'TMB-3', authorityRecord: 'REC-3' } }];
    t.authority(operation, ['DIR-3'], { recordId: 'REC-3' });
    expect(decide(t.input()).state).toBe('RELEASE_ELIGIBLE');
  });
});

describe('preservation (docs/authority.md#human-authority-records)', () => {
  it.each([
    ['no contract, no history', { contract: false, incidentHistory: false, unsatisfiedSurfaces: [] }, [['preservation_contract_missing'], ['incident_history_missing']]],
    ['contract, no history', { contract: true, incidentHistory: false, unsatisfiedSurfaces: [] }, [['incident_history_missing']]],
    ['an unsatisfied surface', { contract: true, incidentHistory: true, unsatisfiedSurfaces: ['SURF-b', 'SURF-a'] }, [['preservation_unsatisfied', 'SURF-a', 'SURF-b']]],
    ['satisfied', { contract: true, incidentHistory: true, unsatisfiedSurfaces: [] }, []],
  ])('required: %s', (_name, preservation, expected) => {
    const s = new Scenario(policy({ preservation: 'required' })).complete();
    s.preservation = preservation;
    const d = decide(s.input());
    expect(d.reasons.map((r) => [r.code, ...r.ids])).toEqual(expected);
    expect(d.preservationWaiver).toBeNull();
  });

  it('waived: nothing is required and the reason is carried in the decision', () => {
    const s = new Scenario(policy({ preservation: { waived: 'greenfield service' } })).complete();
    s.preservation = { contract: false, incidentHistory: false, unsatisfiedSurfaces: [] };
    const d = decide(s.input());
    expect(d.state).toBe('RELEASE_ELIGIBLE');
    expect(d.preservationWaiver).toBe('greenfield service');
  });
});

describe('every reason at once, in one deterministic order', () => {
  function everything(shuffle: boolean): Decision {
    const s = new Scenario(policy({ accept_co_located: false, controls: ['external_effect_gate', 'deploy_gate'], preservation: 'required' }));
    s.rounds('integration', 2);
    s.receipt('development', 'logic', 'DIRTY', { vetoes: [veto('DIR-1')] });
    s.abort('development', 'lint');
    s.openLeases = [{ leaseId: 'LSE-1', expiresAt: 10 ** 10 }];
    s.directives = [
      { id: 'DIR-2', state: 'deferred', tombstone: null },
      { id: 'DIR-1', state: 'active', tombstone: null },
    ];
    s.preservation = { contract: true, incidentHistory: false, unsatisfiedSurfaces: ['SURF-1'] };
    const input = s.input();
    if (!shuffle) return decide(input);
    const rev = <T>(a: readonly T[]): T[] => [...a].reverse();
    return decide({ ...input, receipts: rev(input.receipts), abortedRuns: rev(input.abortedRuns), directives: rev(input.directives) });
  }

  it('lists each reason as {code, ids} in the order of the reason table', () => {
    const d = everything(false);
    const order = Object.keys(DECISION_REASONS);
    const ranks = d.reasons.map((r) => order.indexOf(r.code));
    expect(ranks.every((r) => r >= 0)).toBe(true);
    expect([...ranks].sort((a, b) => a - b)).toEqual(ranks);
    expect(codes(d)).toEqual([
      'trust_mode_not_accepted',
      'control_pending:external_effect_gate',
      'lease_active',
      'streak_incomplete',
      'streak_incomplete',
      'streak_incomplete',
      'planning_unsealed',
      'slot_blocked',
      'slot_blocked',
      'veto_standing',
      'directive_not_done',
      'deferral_not_disposed',
      'incident_history_missing',
      'preservation_unsatisfied',
    ]);
    for (const r of d.reasons) expect(REASON_CODES).toHaveProperty([r.code]);
  });

  it('does not depend on the order the facts were loaded in', () => {
    expect(everything(true)).toEqual(everything(false));
  });
});

describe('reliedOn: what gate must re-verify (docs/decision.md#8-delivery-state-and-reason-codes)', () => {
  it('holds the proving rounds, block lifters, veto lifters and disposal records — nothing else', () => {
    const s = new Scenario();
    s.rounds('planning', 1); // an older round: not needed for the floor
    const dirty = s.receipt('integration', 'authority_release', 'DIRTY', { vetoes: [veto('DIR-1')] });
    const dismiss = s.authority('dismiss', [dirty]);
    const dismissVeto = s.authority('dismiss_veto', [dirty, 'DIR-1']);
    s.abort('development', 'lint');
    s.moveTo({ workspace: 'workspace B', revision: 1 });
    const proof = [...s.rounds('planning', 2), ...s.rounds('development', 2), ...s.rounds('integration', 2)];
    const d = decide(s.input());
    expect(d.state).toBe('RELEASE_ELIGIBLE');
    // The ABORTED lint run was lifted by the first CLEAN lint on workspace B, which is in the proof.
    const lint = d.stages.find((x) => x.stage === 'development')?.slots.find((x) => x.slot === 'lint');
    expect(lint?.blockedBy).toEqual([]);
    expect(d.reliedOn.receipts).toEqual([...proof].sort());
    expect(d.reliedOn.authorities).toEqual([dismiss, dismissVeto].sort());
    expect(d.reliedOn.receipts).not.toContain(dirty);
  });

  it('a lifting receipt outside the proof is relied on too', () => {
    const s = new Scenario();
    const dirty = s.receipt('development', 'lint', 'DIRTY');
    s.moveTo({ workspace: 'workspace B', revision: 1 });
    const lifter = s.receipt('development', 'lint');
    s.moveTo({ workspace: 'workspace C', revision: 2 });
    const proof = s.complete().receipts.filter((r) => r.seq > 2).map((r) => r.receiptId);
    const d = decide(s.input());
    expect(d.state).toBe('RELEASE_ELIGIBLE');
    expect(d.reliedOn.receipts).toEqual([...proof, lifter].sort());
    expect(d.reliedOn.receipts).not.toContain(dirty);
  });
});
