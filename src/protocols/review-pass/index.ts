// Public API of the review-pass protocol engine (docs/review-pass.md#review-protocols; docs/review-pass-protocol.md). Pure.
export * from './finding.js';
export * from './reviewer-output.js';
export { parseJsonReviewerOutput, JsonReviewerOutputSchema } from './parse-json-output.js';
export { parseTextReviewerOutput, parseFindingEntry, parseLocation } from './parse-text-output.js';
export {
  parseGovernedReviewerOutput,
  governedMatchKey,
  GovernedReviewerOutputSchema,
  GOVERNED_FINDING_CODES,
  type GovernedReviewerOutput,
} from './parse-governed-output.js';
export { parseReviewerRunOutput, type ReviewerRunOutput } from './parse-reviewer-run.js';
export * from './match-findings.js';
export * from './classify-group.js';
export * from './health-score.js';
export * from './known-issues.js';
export * from './stage-profile.js';
export * from './degradation.js';
export * from './adjudicate-round.js';
export * from './review-state.js';
export * from './review-result.js';
export { renderReviewPassJson } from './report-json.js';
export { renderReviewPassMarkdown, formatDuration } from './report-markdown.js';
