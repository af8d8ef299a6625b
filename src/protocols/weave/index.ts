// Weave review protocol (weave-review.txt Phase 4; docs/review-pass.md#review-protocols). Pure: randomness is a parameter.
export { WeaveInputSchema, WEAVE_SEVERITIES, VERIFICATIONS, LANE_FAILURES, MAX_LANES } from './schema.js';
export type { WeaveInput, WeaveLane, WeaveIssueInput, WeaveSeverity, Verification } from './schema.js';
export { assignBlindLabels, MIN_SEED_BYTES } from './blind-labels.js';
export type { LabelMap } from './blind-labels.js';
export { consensusLevel, consensusTag, promoteByConsensus, strongestSeverity, orderingRank } from './consensus.js';
export type { ConsensusLevel, Stance } from './consensus.js';
export { adjudicateWeave } from './adjudicate.js';
export type { WeaveAgreement, WeaveDissent, WeaveFinding, WeaveResult } from './adjudicate.js';
export { renderWeaveJson, renderWeaveMarkdown, WEAVE_RESULT_SCHEMA } from './render.js';
