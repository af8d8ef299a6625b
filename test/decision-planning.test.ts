// docs/contract.md#the-states-a-receipt-is-judged-against, docs/commands.md#what-each-command-guarantees: `lease acquire` is refused (`planning_not_sealed`, exit 8) while the policy
// requires planning and the planning stage is not sealed on the current planning state. The rule
// needs only the planning-state digest, so the lease flow never has to hash the workspace.
import { describe, expect, it } from 'vitest';
import { assertLeaseAllowed, planningSealed, type EvidenceInput } from '../src/core/decision/index.js';
import { exitCodeOf } from '../src/core/errors.js';
import { codeAndIdsOf, codeOf } from './helpers/codes.js';
import { policy, Scenario, veto } from './decision-fixtures.js';

/** The evidence part of a scenario, with only the planning-state digest known. */
function planningOnly(s: Scenario, now?: number): EvidenceInput {
  const { unit, now: n, policy: p, trustDigest, current, receipts, abortedRuns, authorities, resets } = s.input(now);
  return { unit, now: n, policy: p, trustDigest, current: { planningStateDigest: current.planningStateDigest }, receipts, abortedRuns, authorities, resets };
}

describe('planning sealed and the lease rule', () => {
  const rows: [string, (s: Scenario) => void, boolean][] = [
    ['no planning receipts', () => undefined, false],
    ['one CLEAN round (floor 2)', (s) => void s.rounds('planning', 1), false],
    ['two CLEAN rounds', (s) => void s.rounds('planning', 2), true],
    ['two rounds, then a DIRTY', (s) => (s.rounds('planning', 2), void s.receipt('planning', 'authority_release', 'DIRTY')), false],
    ['two rounds, then an ABORTED run', (s) => (s.rounds('planning', 2), void s.abort('planning', 'implementation_test')), false],
    ['two rounds, then the contract changes', (s) => (s.rounds('planning', 2), void s.moveTo({ title: 'Another title' })), false],
    ['two rounds, then only the workspace changes', (s) => (s.rounds('planning', 2), void s.moveTo({ workspace: 'workspace B', revision: 3 })), true],
    ['two rounds, then a trust_update', (s) => (s.rounds('planning', 2), s.reset('trust_update')), false],
    ['two integration rounds (never planning)', (s) => void s.rounds('integration', 2), false],
    [
      'two rounds and a standing planning veto (block dismissed)',
      (s) => {
        const r = s.receipt('planning', 'baseline_preservation', 'DIRTY', { vetoes: [veto('SRC-1')] });
        s.authority('dismiss', [r]);
        s.rounds('planning', 2);
      },
      false,
    ],
  ];

  it.each(rows)('%s → sealed: %s', (_name, arrange, sealed) => {
    const s = new Scenario();
    arrange(s);
    const input = planningOnly(s);
    expect(planningSealed(input).sealed).toBe(sealed);
    expect(codeOf(() => assertLeaseAllowed(input))).toBe(sealed ? undefined : 'planning_not_sealed');
  });

  it('planning_not_sealed exits 8 (refused by state) and names only the stage', () => {
    const input = planningOnly(new Scenario());
    expect(codeAndIdsOf(() => assertLeaseAllowed(input))).toBe('planning_not_sealed:planning');
    expect(exitCodeOf('planning_not_sealed')).toBe(8);
  });

  it('an optional planning stage never blocks a lease, and an unlisted one reports not listed', () => {
    const base = policy();
    const optional = new Scenario(policy({ stages: { ...base.doc.stages, planning: { ...base.doc.stages.planning!, required: false } } }));
    expect(planningSealed(planningOnly(optional))).toMatchObject({ listed: true, required: false, sealed: false });
    expect(codeOf(() => assertLeaseAllowed(planningOnly(optional)))).toBeUndefined();
    const unlisted = new Scenario(policy({ stages: { development: base.doc.stages.development! } }));
    expect(planningSealed(planningOnly(unlisted))).toMatchObject({ listed: false, required: false, sealed: false });
    expect(codeOf(() => assertLeaseAllowed(planningOnly(unlisted)))).toBeUndefined();
  });

  it('reports rounds and floor for status', () => {
    const s = new Scenario();
    s.rounds('planning', 3);
    expect(planningSealed(planningOnly(s))).toMatchObject({ rounds: 3, floor: 2, sealed: true, vetoes: [] });
  });

  it('other stages cannot be judged without the work state (fail closed)', async () => {
    const { evaluateStage, buildHistory, receiptsBySlot } = await import('../src/core/decision/index.js');
    const input = planningOnly(new Scenario());
    expect(codeAndIdsOf(() => evaluateStage('development', input, buildHistory(input), receiptsBySlot(input.receipts)))).toBe(
      'decision_input_invalid:current.work_state_digest',
    );
  });
});
