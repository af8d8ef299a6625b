// simple-review protocol (simple-review.txt; docs/review-pass.md#review-protocols). Pure: the lead's checks are inputs.
export {
  SimpleInputSchema, SimpleRound1Schema, SimpleFindingSchema, SIMPLE_SEVERITIES, VERIFICATION_METHODS, CLAIM_KINDS,
  COMPLEX_CLAIM_KINDS, DECISION_IMPACTS,
} from './schema.js';
export type { SimpleInput, SimpleRound1, SimpleFinding, SimpleSeverity, DecisionImpact, ReviewerRound, Rebuttal, LeadCheck } from './schema.js';
export { checkFindingContract, deficienciesOf, lowerOneLevel, MAX_SNIPPET_LINES, MAX_FIX_DIRECTION_LINES } from './finding-contract.js';
export type { ContractCheck, ContractDisposition, Deficiency } from './finding-contract.js';
export { assertReviewerPair, indexRound1, MAX_RETRIES } from './round1.js';
export type { Round1, IndexedFinding } from './round1.js';
export { planSimpleRebuttal, rebuttalBatches, collectRebuttals } from './rebuttal.js';
export type { RebuttalBatches, RebuttalVerdict } from './rebuttal.js';
export { classifyFinding, capAtMedium } from './classify.js';
export type { Classification, SimpleStatus, StatusReason } from './classify.js';
export { reviewerCoverage } from './coverage.js';
export type { ReviewerCoverage, CoverageGap } from './coverage.js';
export { recommend } from './recommend.js';
export type { Recommendation, RecommendationFinding, RecommendationResult } from './recommend.js';
export { adjudicateSimple } from './adjudicate.js';
export type { SimpleResult, SimpleFindingResult, SimpleReviewerResult } from './adjudicate.js';
export { renderSimpleJson, renderSimpleMarkdown, SIMPLE_RESULT_SCHEMA } from './render.js';
