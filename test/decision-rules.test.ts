// docs/decision.md#the-rules-in-short, docs/decision.md#6-vetoes rules, table-driven (docs/gate.md#7-measurements-benchgate): blocks, restarts, rounds, vetoes and
// authorities judged at their log position. Each row builds a real history (real docs/contract.md#the-states-a-receipt-is-judged-against digests, a
// real loaded policy) and asserts the streak and the reasons the pure rules derive from it.
import { describe, expect, it } from 'vitest';
import { decide, type Decision, type Stage } from '../src/core/decision/index.js';
import { policy, Scenario, TRUST_B, veto } from './decision-fixtures.js';

const streak = (d: Decision, stage: Stage): number => d.stages.find((s) => s.stage === stage)?.streak ?? -1;
const codes = (d: Decision): string[] => d.reasons.map((r) => r.code);
const reason = (d: Decision, code: string) => d.reasons.filter((r) => r.code === code).map((r) => r.ids);

describe('a DIRTY receipt blocks its slot until different content or a dismiss (docs/decision.md#the-rules-in-short)', () => {
  const rows: [string, (s: Scenario) => void, number][] = [
    [
      'CLEAN re-runs on the same work state',
      (s) => {
        s.receipt('development', 'lint', 'DIRTY');
        s.rounds('development', 3);
      },
      0,
    ],
    [
      'CLEAN re-runs after a lease cycle on the same content (new work revision)',
      (s) => {
        s.receipt('development', 'lint', 'DIRTY');
        s.moveTo({ revision: 1 });
        s.rounds('development', 3);
      },
      0,
    ],
    [
      'CLEAN re-runs after a policy_update (a reset never lifts a block)',
      (s) => {
        s.receipt('development', 'lint', 'DIRTY');
        s.reset('policy_update');
        s.rounds('development', 3);
      },
      0,
    ],
    [
      'CLEAN on different content lifts it, and that CLEAN counts',
      (s) => {
        s.receipt('development', 'lint', 'DIRTY');
        s.moveTo({ workspace: 'workspace B', revision: 1 });
        s.rounds('development', 2);
      },
      2,
    ],
  ];
  it.each(rows)('%s', (_name, build, expected) => {
    const s = new Scenario();
    build(s);
    const d = decide(s.input());
    expect(streak(d, 'development')).toBe(expected);
    expect(codes(d).includes('slot_blocked')).toBe(expected === 0);
  });

  it('names the slot and the blocking receipt', () => {
    const s = new Scenario();
    const dirty = s.receipt('development', 'lint', 'DIRTY');
    s.rounds('development', 3);
    expect(reason(decide(s.input()), 'slot_blocked')).toEqual([['development.lint', dirty]]);
    expect(decide(s.input()).stages.find((x) => x.stage === 'development')?.slots.find((x) => x.slot === 'lint')?.blockedBy).toEqual([dirty]);
  });

  it('planning is judged on the planning state: a workspace edit does not lift a planning block, a source change does', () => {
    const s = new Scenario();
    s.receipt('planning', 'source_fidelity', 'DIRTY');
    s.moveTo({ workspace: 'workspace B' });
    s.rounds('planning', 2);
    expect(streak(decide(s.input()), 'planning')).toBe(0);
    s.moveTo({ workspace: 'workspace B', source: 'Add an export command.\nThanks.\n' });
    s.rounds('planning', 2);
    expect(streak(decide(s.input()), 'planning')).toBe(2);
  });

  it('receipts recorded while blocked never count, even after returning to that state', () => {
    // Planning state P1: DIRTY, then CLEAN re-runs; P2 lifts the block; back on P1 the re-runs
    // made while blocked (and everything before the DIRTY) stay out: P1 needs fresh rounds.
    const s = new Scenario();
    s.rounds('planning', 2);
    s.receipt('planning', 'source_fidelity', 'DIRTY');
    s.rounds('planning', 2);
    s.moveTo({ title: 'Add export command, v2' });
    s.rounds('planning', 1);
    s.moveTo({});
    const d = decide(s.input());
    expect(streak(d, 'planning')).toBe(0);
    expect(codes(d)).not.toContain('slot_blocked');
    s.rounds('planning', 2);
    expect(streak(decide(s.input()), 'planning')).toBe(2);
  });

  it('a block in one slot does not erase the other slots’ receipts on the same state', () => {
    const s = new Scenario();
    s.rounds('development', 2);
    const dirty = s.receipt('development', 'lint', 'DIRTY');
    s.authority('dismiss', [dirty]);
    s.receipt('development', 'lint');
    expect(streak(decide(s.input()), 'development')).toBe(1);
    s.receipt('development', 'lint');
    expect(streak(decide(s.input()), 'development')).toBe(2);
  });
});

describe('an ABORTED run blocks its slot like a DIRTY receipt (docs/runner.md#the-run-step-by-step, docs/decision.md#the-rules-in-short)', () => {
  const rows: [string, (s: Scenario) => void, number, boolean][] = [
    ['CLEAN re-runs on the same state stay blocked', (s) => (s.abort('development', 'logic'), s.rounds('development', 3)), 0, true],
    [
      'a CLEAN of the slot on different content lifts it',
      (s) => {
        s.abort('development', 'logic');
        s.moveTo({ workspace: 'workspace C', revision: 1 });
        s.rounds('development', 2);
      },
      2,
      false,
    ],
    [
      'a dismiss naming the run lifts it; only receipts after the dismiss count',
      (s) => {
        const run = s.abort('development', 'logic');
        s.rounds('development', 2);
        s.authority('dismiss', [run]);
        s.rounds('development', 1);
      },
      1,
      false,
    ],
    [
      'an ABORTED run of another slot does not block this one, but blocks the stage',
      (s) => {
        s.rounds('development', 2);
        s.abort('development', 'lint');
      },
      0,
      true,
    ],
  ];
  it.each(rows)('%s', (_name, build, expected, blocked) => {
    const s = new Scenario();
    build(s);
    const d = decide(s.input());
    expect(streak(d, 'development')).toBe(expected);
    expect(codes(d).includes('slot_blocked')).toBe(blocked);
  });
});

describe('a change of workspace, contract, sources, policy or trust restarts (docs/contract.md#the-states-a-receipt-is-judged-against)', () => {
  const rows: [string, (s: Scenario) => void, { planning: number; development: number; integration: number }][] = [
    ['nothing changes', () => undefined, { planning: 2, development: 2, integration: 2 }],
    ['workspace edit', (s) => void s.moveTo({ workspace: 'workspace B' }), { planning: 2, development: 0, integration: 0 }],
    ['lease cycle (work_revision only)', (s) => void s.moveTo({ revision: 1 }), { planning: 2, development: 0, integration: 0 }],
    ['contract edit', (s) => void s.moveTo({ title: 'Add export command (JSON)' }), { planning: 0, development: 0, integration: 0 }],
    ['source bytes', (s) => void s.moveTo({ source: 'Something else entirely.\n' }), { planning: 0, development: 0, integration: 0 }],
    [
      'policy_update (new policy, logged)',
      (s) => {
        s.reset('policy_update');
        s.policy = policy({ challenge_ttl: '5m' });
      },
      { planning: 0, development: 0, integration: 0 },
    ],
    [
      'trust_update (new trust root, logged)',
      (s) => {
        s.reset('trust_update');
        s.trustDigest = TRUST_B;
      },
      { planning: 0, development: 0, integration: 0 },
    ],
    ['a policy_update entry alone (same digest) still cuts every earlier receipt', (s) => s.reset('policy_update'), { planning: 0, development: 0, integration: 0 }],
    ['a new policy digest without its log entry still does not count old receipts', (s) => void (s.policy = policy({ challenge_ttl: '5m' })), { planning: 0, development: 0, integration: 0 }],
    ['a new trust digest without its log entry still does not count old receipts', (s) => void (s.trustDigest = TRUST_B), { planning: 0, development: 0, integration: 0 }],
  ];
  it.each(rows)('%s', (_name, change, expected) => {
    const s = new Scenario().complete();
    expect(decide(s.input()).state).toBe('RELEASE_ELIGIBLE');
    change(s);
    const d = decide(s.input());
    expect({ planning: streak(d, 'planning'), development: streak(d, 'development'), integration: streak(d, 'integration') }).toEqual(expected);
    expect(d.state).toBe(expected.development === 2 ? 'RELEASE_ELIGIBLE' : 'REVIEW_ONLY');
  });

  it('an A→B→A edit still restarts: same content digest, different work state (work_revision)', () => {
    const s = new Scenario().complete();
    const a0 = s.state;
    s.moveTo({ workspace: 'workspace B', revision: 1 });
    s.moveTo({ workspace: 'workspace A', revision: 2 });
    expect(s.state.contentDigest).toBe(a0.contentDigest);
    expect(s.state.workStateDigest).not.toBe(a0.workStateDigest);
    const d = decide(s.input());
    expect(streak(d, 'planning')).toBe(2);
    expect(streak(d, 'development')).toBe(0);
    expect(streak(d, 'integration')).toBe(0);
    expect(reason(d, 'streak_incomplete')).toEqual([['development'], ['integration']]);
  });

  it('receipts after the restart count again', () => {
    const s = new Scenario().complete();
    s.reset('trust_update');
    s.trustDigest = TRUST_B;
    s.complete();
    expect(decide(s.input()).state).toBe('RELEASE_ELIGIBLE');
  });
});

describe('rounds: one current receipt per slot (docs/decision.md#the-rules-in-short)', () => {
  it.each([
    ['a slot filled four times, the other once', { lint: 4, logic: 1 }, 1],
    ['a slot filled twice, the other never', { lint: 2, logic: 0 }, 0],
    ['both filled twice, interleaved or not', { lint: 2, logic: 2 }, 2],
    ['three and two', { lint: 3, logic: 2 }, 2],
  ])('%s → %i', (_name, counts, expected) => {
    const s = new Scenario();
    for (let i = 0; i < counts.lint; i++) s.receipt('development', 'lint');
    for (let i = 0; i < counts.logic; i++) s.receipt('development', 'logic');
    const d = decide(s.input());
    const dev = d.stages.find((x) => x.stage === 'development');
    expect(dev?.streak).toBe(expected);
    expect(dev?.slots.map((x) => [x.slot, x.counted, x.missing])).toEqual([
      ['lint', counts.lint, Math.max(0, 2 - counts.lint)],
      ['logic', counts.logic, Math.max(0, 2 - counts.logic)],
    ]);
  });

  it('one role filled eight times fills no other role', () => {
    const s = new Scenario();
    for (let i = 0; i < 8; i++) s.receipt('planning', 'source_fidelity');
    expect(streak(decide(s.input()), 'planning')).toBe(0);
  });

  it('receipts of a state that is no longer current are reported but never counted', () => {
    const s = new Scenario();
    s.rounds('development', 2);
    s.moveTo({ workspace: 'workspace B', revision: 1 });
    s.rounds('development', 1);
    const dev = decide(s.input()).stages.find((x) => x.stage === 'development');
    expect(dev?.slots.map((x) => x.current)).toEqual([1, 1]);
    expect(dev?.streak).toBe(1);
  });

  it('the proof is the newest floor rounds', () => {
    const s = new Scenario();
    s.rounds('development', 1);
    const newest = s.rounds('development', 2);
    const dev = decide(s.input()).stages.find((x) => x.stage === 'development');
    expect(dev?.rounds).toBe(3);
    expect([...(dev?.proof ?? [])].sort()).toEqual([...newest].sort());
  });
});

describe('planning and integration (docs/decision.md#the-rules-in-short)', () => {
  it('planning receipts never count for integration, nor integration receipts for planning', () => {
    const s = new Scenario();
    s.rounds('planning', 3);
    let d = decide(s.input());
    expect(streak(d, 'planning')).toBe(3);
    expect(streak(d, 'integration')).toBe(0);
    const t = new Scenario();
    t.rounds('integration', 3);
    d = decide(t.input());
    expect(streak(d, 'planning')).toBe(0);
    expect(d.stages.find((x) => x.stage === 'integration')?.rounds).toBe(3);
  });

  it('integration counts only while planning is sealed on the current planning state', () => {
    const s = new Scenario();
    s.rounds('integration', 2);
    s.rounds('development', 2);
    let d = decide(s.input());
    expect(d.stages.find((x) => x.stage === 'integration')).toMatchObject({ rounds: 2, streak: 0, complete: false });
    expect(codes(d)).toEqual(['streak_incomplete', 'streak_incomplete', 'planning_unsealed']);
    expect(reason(d, 'streak_incomplete')).toEqual([['planning'], ['integration']]);
    s.rounds('planning', 2);
    d = decide(s.input());
    expect(d.state).toBe('RELEASE_ELIGIBLE');
    expect(d.planningSealed).toBe(true);
  });

  it('an optional planning stage still gates a required integration', () => {
    const base = policy();
    const p = policy({ stages: { ...base.doc.stages, planning: { ...base.doc.stages.planning!, required: false } } });
    const s = new Scenario(p);
    s.rounds('development', 2);
    s.rounds('integration', 2);
    const d = decide(s.input());
    expect(d.stages.find((x) => x.stage === 'planning')?.gating).toBe(true);
    expect(codes(d)).toContain('planning_unsealed');
  });

  it('a standing planning veto keeps planning unsealed even with a complete streak', () => {
    const s = new Scenario();
    const r = s.receipt('planning', 'baseline_preservation', 'DIRTY', { vetoes: [veto('DIR-1')] });
    s.authority('dismiss', [r]);
    s.complete();
    const d = decide(s.input());
    expect(streak(d, 'planning')).toBe(2);
    expect(d.planningSealed).toBe(false);
    expect(streak(d, 'integration')).toBe(0);
    expect(codes(d)).toEqual(['streak_incomplete', 'planning_unsealed', 'veto_standing']);
  });
});

describe('reuse_window (docs/decision.md#the-rules-in-short)', () => {
  it.each([
    ['age equal to the window counts', 3600, 'RELEASE_ELIGIBLE'],
    ['one second older does not', 3601, 'REVIEW_ONLY'],
  ])('%s', (_name, age, expected) => {
    const s = new Scenario(policy({ reuse_window: '1h' })).complete();
    const oldest = Math.min(...s.receipts.map((r) => r.time));
    expect(decide(s.input(oldest + age)).state).toBe(expected);
  });

  it('without a window, age never matters', () => {
    const s = new Scenario().complete();
    expect(decide(s.input(s.time + 10 * 365 * 86400)).state).toBe('RELEASE_ELIGIBLE');
  });

  it('an old DIRTY keeps blocking after it leaves the window', () => {
    const s = new Scenario(policy({ reuse_window: '1h' }));
    s.receipt('development', 'lint', 'DIRTY');
    s.time += 7200;
    s.complete();
    expect(reason(decide(s.input()), 'slot_blocked')).toHaveLength(1);
  });
});

describe('vetoes persist across revisions (docs/decision.md#6-vetoes)', () => {
  // Integration source_fidelity gets a DIRTY with two veto findings on workspace A; its block is
  // dismissed so only the veto is under test.
  function vetoed(): { s: Scenario; r: string } {
    const s = new Scenario();
    const r = s.receipt('integration', 'source_fidelity', 'DIRTY', { vetoes: [veto('DIR-1'), veto('AC-1', 'TGT-1')] });
    s.authority('dismiss', [r]);
    return { s, r };
  }
  const rows: [string, (s: Scenario, r: string) => void, boolean][] = [
    ['an unrelated edit alone', (s) => void s.moveTo({ workspace: 'workspace B', revision: 1 }), true],
    ['an edit and CLEAN receipts of the other slots', (s) => (s.moveTo({ workspace: 'workspace B', revision: 1 }), ['baseline_preservation', 'implementation_test', 'authority_release'].forEach((slot) => s.receipt('integration', slot))), true],
    ['an edit and a CLEAN of the same slot name in another stage', (s) => (s.moveTo({ workspace: 'workspace B', revision: 1 }), s.receipt('planning', 'source_fidelity')), true],
    ['a CLEAN of the same stage and slot on the same content', (s) => void s.receipt('integration', 'source_fidelity'), true],
    ['a lease cycle and a CLEAN of the slot on the same content', (s) => (s.moveTo({ revision: 1 }), s.receipt('integration', 'source_fidelity')), true],
    ['a policy_update', (s) => s.reset('policy_update'), true],
    ['a dismiss (lifts the block, not the veto)', (s, r) => void s.authority('dismiss', [r]), true],
    ['dismiss_veto naming the refs but not the receipt', (s) => void s.authority('dismiss_veto', ['AC-1', 'DIR-1', 'TGT-1']), true],
    ['dismiss_veto naming the receipt and one finding’s refs', (s, r) => void s.authority('dismiss_veto', [r, 'DIR-1']), true],
    ['dismiss_veto naming the receipt and part of a finding’s refs', (s, r) => void s.authority('dismiss_veto', [r, 'DIR-1', 'AC-1']), true],
    ['an expired dismiss_veto', (s, r) => void s.authority('dismiss_veto', [r, 'AC-1', 'DIR-1', 'TGT-1'], { expiresIn: 0 }), true],
    ['dismiss_veto naming the receipt and every ref', (s, r) => void s.authority('dismiss_veto', [r, 'AC-1', 'DIR-1', 'TGT-1']), false],
    ['two dismiss_veto records, one finding each', (s, r) => (s.authority('dismiss_veto', [r, 'DIR-1']), void s.authority('dismiss_veto', [r, 'AC-1', 'TGT-1'])), false],
    ['a CLEAN of the same stage and slot on different content', (s) => (s.moveTo({ workspace: 'workspace B', revision: 1 }), void s.receipt('integration', 'source_fidelity')), false],
  ];
  it.each(rows)('%s → stands: %s', (_name, act, stands) => {
    const { s, r } = vetoed();
    act(s, r);
    const d = decide(s.input());
    expect(codes(d).includes('veto_standing')).toBe(stands);
    expect(d.vetoes.map((v) => v.receiptId)).toEqual(stands ? [r] : []);
  });

  it('a partial dismiss_veto leaves exactly the findings it did not fully name', () => {
    const { s, r } = vetoed();
    s.authority('dismiss_veto', [r, 'DIR-1']);
    const d = decide(s.input());
    expect(d.vetoes[0]?.findings.map((f) => f.refs)).toEqual([['AC-1', 'TGT-1']]);
    expect(reason(d, 'veto_standing')).toEqual([[r, 'integration.source_fidelity', 'AC-1', 'TGT-1']]);
  });

  it('a veto of an optional stage, or of a stage the policy no longer lists, still stands', () => {
    const base = policy();
    const noDev = policy({ stages: { planning: base.doc.stages.planning, integration: base.doc.stages.integration } });
    const s = new Scenario(noDev);
    const r = s.receipt('development', 'lint', 'DIRTY', { vetoes: [veto('DIR-1')] });
    s.complete();
    const d = decide(s.input());
    expect(d.state).toBe('REVIEW_ONLY');
    expect(reason(d, 'veto_standing')).toEqual([[r, 'development.lint', 'DIR-1']]);
    expect(codes(d)).not.toContain('slot_blocked'); // the slot is not gating; only the veto is
  });
});

describe('authorities are judged at their log position (docs/authority.md#human-authority-records)', () => {
  it('a dismiss recorded before the ABORTED entry it names lifts nothing', () => {
    // The run id exists from the claim on; a record naming it before the run aborted cannot
    // pre-authorise the failure.
    const s = new Scenario();
    const runId = 'RUN-' + 'f'.repeat(32);
    s.authority('dismiss', [runId]);
    s.abort('development', 'lint', { runId });
    s.rounds('development', 2);
    const d = decide(s.input());
    expect(reason(d, 'slot_blocked')).toEqual([['development.lint', runId]]);
    s.authority('dismiss', [runId]);
    s.rounds('development', 2);
    expect(streak(decide(s.input()), 'development')).toBe(2);
  });

  it('a dismiss_veto recorded before the receipt it names lifts nothing', () => {
    const s = new Scenario();
    const predicted = `sha256:${'0'.repeat(64)}`;
    s.authority('dismiss_veto', [predicted, 'DIR-1']);
    s.receipt('development', 'lint', 'DIRTY', { receiptId: predicted, vetoes: [veto('DIR-1')] });
    expect(reason(decide(s.input()), 'veto_standing')).toEqual([[predicted, 'development.lint', 'DIR-1']]);
  });

  it.each([
    ['consumed before its expiry', 60, false],
    ['consumed at its expiry', 0, true],
    ['consumed after its expiry', -60, true],
  ])('a dismiss %s → blocked: %s', (_name, expiresIn, blocked) => {
    const s = new Scenario();
    const r = s.receipt('development', 'lint', 'DIRTY');
    s.authority('dismiss', [r], { expiresIn });
    s.rounds('development', 2);
    expect(codes(decide(s.input())).includes('slot_blocked')).toBe(blocked);
  });

  it.each(['authorize', 'dismiss_veto', 'defer', 'policy_update'])('an authority of operation %s does not lift a block', (operation) => {
    const s = new Scenario();
    const r = s.receipt('development', 'lint', 'DIRTY');
    s.authority(operation, [r]);
    s.rounds('development', 2);
    expect(codes(decide(s.input()))).toContain('slot_blocked');
  });

  it('a dismiss lifts only what it names and what precedes it', () => {
    const s = new Scenario();
    const first = s.receipt('development', 'lint', 'DIRTY');
    const d1 = s.authority('dismiss', [first]);
    const second = s.receipt('development', 'lint', 'DIRTY');
    s.rounds('development', 2);
    const d = decide(s.input());
    expect(reason(d, 'slot_blocked')).toEqual([['development.lint', second]]);
    const block = d.stages.find((x) => x.stage === 'development');
    expect(block?.slots[0]?.blockedBy).toEqual([second]);
    expect(d1).toMatch(/^REC-/);
  });
});
