// The planning stage sealed (docs/contract.md#the-states-a-receipt-is-judged-against, docs/decision.md#the-rules-in-short): its streak complete on the current planning state.
// Two rules rest on it: integration counts only while planning is sealed, and `lease acquire` is
// refused (`planning_not_sealed`) while the policy requires planning and it is not sealed.
//
// A standing veto of the planning stage also keeps planning unsealed
// (docs/decision.md "Integration needs planning sealed"). A veto on planning says the plan itself is
// wrong (preservation, scope, authority or release); starting implementation or counting
// integration on it would build on it.
import { fail } from '../errors.js';
import { buildHistory, type History } from './history.js';
import { evaluateStage, receiptsBySlot, type StageEvaluation } from './streak.js';
import type { EvidenceInput, StandingVeto } from './types.js';
import { validateEvidenceInput } from './validate-input.js';

export interface PlanningSeal {
  /** The policy lists a planning stage. */
  readonly listed: boolean;
  /** The policy requires planning (`stages.planning.required`). */
  readonly required: boolean;
  readonly sealed: boolean;
  /** Consecutive CLEAN rounds on the current planning state, and the floor (0/0 when unlisted). */
  readonly rounds: number;
  readonly floor: number;
  /** Standing vetoes of the planning stage. */
  readonly vetoes: readonly StandingVeto[];
}

/** Seal from an evaluation already made (the delivery decision reuses its own). */
export function sealOf(evaluation: StageEvaluation | null, history: History): PlanningSeal {
  const vetoes = history.vetoes.filter((v) => v.stage === 'planning');
  if (evaluation === null) return { listed: false, required: false, sealed: false, rounds: 0, floor: 0, vetoes };
  return {
    listed: true,
    required: evaluation.required,
    sealed: evaluation.rounds >= evaluation.floor && vetoes.length === 0,
    rounds: evaluation.rounds,
    floor: evaluation.floor,
    vetoes,
  };
}

/** Whether planning is sealed on `input.current.planningStateDigest` at `input.now`. */
export function planningSealed(input: EvidenceInput): PlanningSeal {
  validateEvidenceInput(input);
  const history = buildHistory(input);
  const evaluation =
    input.policy.doc.stages.planning === undefined ? null : evaluateStage('planning', input, history, receiptsBySlot(input.receipts));
  return sealOf(evaluation, history);
}

/**
 * The lease rule (docs/contract.md#the-states-a-receipt-is-judged-against, docs/commands.md#what-each-command-guarantees `lease acquire`): implementation starts only after planning.
 * Throws `planning_not_sealed` (exit 8) when the policy requires planning and it is not sealed.
 */
export function assertLeaseAllowed(input: EvidenceInput): PlanningSeal {
  const seal = planningSealed(input);
  if (seal.required && !seal.sealed) fail('planning_not_sealed', ['planning']);
  return seal;
}
