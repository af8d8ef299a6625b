// Decision rules (docs/decision.md#the-rules-in-short): pure functions over facts a flow loads from the store. See
// docs/decision.md for the rules, the reason codes and worked examples.
export type {
  AbortedRunFact,
  AuthorityFact,
  Block,
  ControlName,
  ControlRegistry,
  ControlStatus,
  Decision,
  DecisionInput,
  DeliveryState,
  DirectiveFact,
  EvidenceInput,
  LeaseFact,
  LogPosition,
  PreservationFact,
  Reason,
  ReceiptFact,
  ResetFact,
  SlotReport,
  Stage,
  StageReport,
  StandingVeto,
  StateDigests,
  TrustMode,
  Verdict,
  VetoFinding,
} from './types.js';
export { CONTROL_REGISTRY, pendingControls } from './controls.js';
export { decide, trustModeAccepted } from './delivery.js';
export { authorityInForce, buildHistory, reviewedContentOf, type History, type VetoLift } from './history.js';
export { assertLeaseAllowed, planningSealed, type PlanningSeal } from './planning.js';
export { evaluateStage, receiptsBySlot, type StageEvaluation } from './streak.js';
export { validateDecisionInput, validateEvidenceInput } from './validate-input.js';
export { CONTROL_NAMES, STAGE_ORDER, slotKey } from './vocabulary.js';
export { sufficientReceipts } from './sufficient.js';
