// The delivery state (docs/decision.md#8-delivery-state-and-reason-codes). RELEASE_ELIGIBLE ⇔ no reason below applies:
//   trust mode accepted by the policy (docs/threat-model.md#trust-modes)            else trust_mode_not_accepted
//   every required control implemented (docs/policy.md#policy-and-trust-root)            else control_pending:<name>
//   the policy requires at least one stage              else no_required_stage
//   no open lease                                       else lease_active (one per lease)
//   every gating stage has its streak on current state  else streak_incomplete (one per stage)
//   integration only while planning is sealed           else planning_unsealed
//   no gating slot blocked                              else slot_blocked (one per slot)
//   no veto standing (any stage, any state)             else veto_standing (one per receipt)
//   no directive active (docs/contract.md#validation-rules)                        else directive_not_done (one per directive)
//   every deferral disposed by authority and tombstone  else deferral_not_disposed (one per directive)
//   preservation satisfied, unless the policy waives it else preservation_* (docs/preservation.md#delivery-state)
// Reasons are listed in the order of DECISION_REASONS, then in the order each rule produces them
// (stage order, slot name, log position, id), so one input always prints one decision.
import { compareUtf8, sortedUnique } from '../contract/ids.js';
import { DISPOSAL_OPERATION } from '../contract/tombstones.js';
import { DECISION_REASONS } from '../error-codes/decision.js';
import type { ReasonCode } from '../errors.js';
import { pendingControls } from './controls.js';
import { authorityInForce, buildHistory, type History } from './history.js';
import { sealOf, type PlanningSeal } from './planning.js';
import { evaluateStage, receiptsBySlot, type StageEvaluation } from './streak.js';
import type { Decision, DecisionInput, ReceiptFact, Reason, StageReport, TrustMode } from './types.js';
import { validateDecisionInput } from './validate-input.js';
import { STAGE_ORDER, slotKey } from './vocabulary.js';

const REASON_RANK: ReadonlyMap<string, number> = new Map(Object.keys(DECISION_REASONS).map((code, i) => [code, i]));

function rank(code: string): number {
  // Every code produced here is in DECISION_REASONS (test/decision-reasons checks it).
  return REASON_RANK.get(code) ?? Number.MAX_SAFE_INTEGER;
}

/** Whether the policy accepts the trust mode governed runs in (docs/threat-model.md#trust-modes). */
export function trustModeAccepted(input: Pick<DecisionInput, 'trustMode' | 'policy'>): boolean {
  // Separated evidence is accepted by every policy; co-located only by a co-located policy that
  // says accept_co_located (policies/strict.yaml: trust_mode separated, accept_co_located false).
  if (input.trustMode === 'separated') return true;
  return input.policy.doc.trust_mode === 'co-located' && input.policy.doc.accept_co_located;
}

/**
 * The trust mode of a decision: separated only when every receipt it may rely on was made by the
 * daemon (docs/security.md); one co-located receipt among them makes the whole decision co-located.
 */
export function receiptsTrustMode(receipts: readonly Pick<ReceiptFact, 'trustMode'>[]): TrustMode {
  return receipts.length > 0 && receipts.every((r) => r.trustMode === 'separated') ? 'separated' : 'co-located';
}

/**
 * The trust mode of a decision over its review receipts and the probe receipts its preservation
 * fact counted: separated only when every one of them was made by the daemon (a probe run in a
 * caller's own process is co-located evidence, docs/runnerd.md#probes-through-the-daemon).
 */
export function decisionTrustMode(receipts: readonly Pick<ReceiptFact, 'trustMode'>[], coLocatedProbeReceipts: readonly string[]): TrustMode {
  return receiptsTrustMode(receipts) === 'separated' && coLocatedProbeReceipts.length === 0 ? 'separated' : 'co-located';
}

/** Stages the delivery state depends on: required ones, and planning whenever integration is. */
function isGating(stage: StageEvaluation, input: DecisionInput): boolean {
  if (stage.required) return true;
  return stage.stage === 'planning' && input.policy.doc.stages.integration?.required === true;
}

function stageReport(e: StageEvaluation, input: DecisionInput, seal: PlanningSeal): StageReport {
  const streak = e.stage === 'integration' && !seal.sealed ? 0 : e.rounds;
  return {
    stage: e.stage,
    required: e.required,
    gating: isGating(e, input),
    floor: e.floor,
    currentDigest: e.currentDigest,
    rounds: e.rounds,
    streak,
    complete: streak >= e.floor,
    slots: e.slots,
    proof: streak >= e.floor ? e.proof : [],
  };
}

function deferralReasons(input: DecisionInput): { reasons: Reason[]; records: string[] } {
  const reasons: Reason[] = [];
  const records: string[] = [];
  const byRecord = new Map(input.authorities.map((a) => [a.recordId, a]));
  for (const d of [...input.directives].sort((a, b) => compareUtf8(a.id, b.id))) {
    const operation = DISPOSAL_OPERATION[d.state];
    if (operation === undefined) continue;
    const record = d.tombstone === null ? undefined : byRecord.get(d.tombstone.authorityRecord);
    // Disposed only by a consumed record of the matching operation that covers this directive and
    // was consumed before it expired (docs/contract.md#validation-rules, docs/authority.md#human-authority-records).
    if (record !== undefined && record.operation === operation && record.ids.includes(d.id) && authorityInForce(record)) {
      records.push(record.recordId);
    } else {
      reasons.push({ code: 'deferral_not_disposed', ids: d.tombstone === null ? [d.id] : [d.id, d.tombstone.id] });
    }
  }
  return { reasons, records };
}

function preservationReasons(input: DecisionInput): Reason[] {
  if (input.policy.doc.preservation !== 'required') return [];
  const p = input.preservation;
  const reasons: Reason[] = [];
  if (!p.contract) reasons.push({ code: 'preservation_contract_missing', ids: [] });
  if (!p.incidentHistory) reasons.push({ code: 'incident_history_missing', ids: [] });
  if (p.unsatisfiedSurfaces.length > 0) reasons.push({ code: 'preservation_unsatisfied', ids: sortedUnique(p.unsatisfiedSurfaces) });
  // Every reason the preservation check gave, as it gave it (validate-input: codes of the table).
  for (const v of p.violations ?? []) reasons.push({ code: v.code as ReasonCode, ids: [...v.ids] });
  return reasons;
}

function reliedOn(
  stages: readonly StageReport[],
  evaluations: readonly StageEvaluation[],
  history: History,
  disposalRecords: readonly string[],
  input: DecisionInput,
): Decision['reliedOn'] {
  const receipts: string[] = [];
  const authorities: string[] = [...disposalRecords];
  stages.forEach((s, i) => {
    if (!s.gating) return;
    receipts.push(...s.proof);
    for (const b of (evaluations[i] as StageEvaluation).blocks) {
      if (b.liftedBy === null) continue;
      (b.liftedBy.kind === 'receipt' ? receipts : authorities).push(b.liftedBy.id);
    }
  });
  for (const lift of history.vetoLifts) (lift.by.kind === 'receipt' ? receipts : authorities).push(lift.by.id);
  // Probe receipts count only where preservation is judged (a waiver judges none).
  const probes = input.policy.doc.preservation === 'required' ? sortedUnique(input.preservation?.probeReceipts ?? []) : [];
  return { receipts: sortedUnique(receipts), authorities: sortedUnique(authorities), probes };
}

/** The delivery state of one unit at `input.now` (docs/decision.md#8-delivery-state-and-reason-codes). Pure; throws only on bad input. */
export function decide(input: DecisionInput): Decision {
  validateDecisionInput(input);
  const history = buildHistory(input);
  const bySlot = receiptsBySlot(input.receipts);
  const evaluations = STAGE_ORDER.filter((s) => input.policy.doc.stages[s] !== undefined).map((s) => evaluateStage(s, input, history, bySlot));
  const seal = sealOf(evaluations.find((e) => e.stage === 'planning') ?? null, history);
  const stages = evaluations.map((e) => stageReport(e, input, seal));

  const reasons: Reason[] = [];
  const push = (code: ReasonCode, ids: readonly string[]): void => void reasons.push({ code, ids });

  if (!trustModeAccepted(input)) push('trust_mode_not_accepted', [input.trustMode]);
  for (const name of pendingControls(input.policy.doc.controls, input.controls)) push(`control_pending:${name}`, [name]);
  if (!stages.some((s) => s.required)) push('no_required_stage', []);
  for (const lease of [...input.openLeases].sort((a, b) => compareUtf8(a.leaseId, b.leaseId))) push('lease_active', [lease.leaseId]);
  for (const s of stages) if (s.gating && !s.complete) push('streak_incomplete', [s.stage]);
  if (stages.some((s) => s.stage === 'integration' && s.gating) && !seal.sealed) push('planning_unsealed', ['integration']);
  for (const s of stages) {
    if (!s.gating) continue;
    for (const slot of s.slots) if (slot.blockedBy.length > 0) push('slot_blocked', [slotKey(s.stage, slot.slot), ...slot.blockedBy]);
  }
  for (const v of history.vetoes) {
    push('veto_standing', [v.receiptId, slotKey(v.stage, v.slot), ...sortedUnique(v.findings.flatMap((f) => f.refs))]);
  }
  for (const d of [...input.directives].sort((a, b) => compareUtf8(a.id, b.id))) if (d.state === 'active') push('directive_not_done', [d.id]);
  const deferrals = deferralReasons(input);
  reasons.push(...deferrals.reasons);
  reasons.push(...preservationReasons(input));

  // Stable sort: the rank fixes the code order; within a code the production order stays.
  const ordered = reasons.map((r, i) => ({ r, i })).sort((a, b) => rank(a.r.code) - rank(b.r.code) || a.i - b.i).map((x) => x.r);
  const waiver = input.policy.doc.preservation;
  return {
    state: ordered.length === 0 ? 'RELEASE_ELIGIBLE' : 'REVIEW_ONLY',
    reasons: ordered,
    unit: input.unit,
    trustMode: input.trustMode,
    policyDigest: input.policy.digest,
    trustDigest: input.trustDigest,
    current: {
      planningStateDigest: input.current.planningStateDigest,
      contentDigest: input.current.contentDigest,
      workStateDigest: input.current.workStateDigest,
    },
    evaluatedAt: input.now,
    preservationWaiver: waiver === 'required' ? null : waiver.waived,
    planningSealed: seal.sealed,
    stages,
    vetoes: history.vetoes,
    reliedOn: reliedOn(stages, evaluations, history, deferrals.records, input),
  };
}
