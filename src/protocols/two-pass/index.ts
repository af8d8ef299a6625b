// Two-pass review protocol (two-pass-review.txt; docs/review-pass.md#review-protocols). Pure: no I/O, no clock.
export { FindingSchema, ReviewOutputSchema, SEVERITIES, VERDICTS, severityRank, isP0P1 } from './schema.js';
export type { Severity, Verdict, TwoPassFinding, ReviewOutput } from './schema.js';
export { evaluatePass1 } from './pass1.js';
export type { Pass1Result, Progression } from './pass1.js';
export { evaluatePass2, severityMoveAllowed } from './verify.js';
export type { Pass2Result, VerifiedFinding } from './verify.js';
export { adjudicateTwoPass } from './adjudicate.js';
export type { TwoPassEntry, TwoPassInput, TwoPassOutcome, TwoPassResult, TwoPassSummary, SeverityChange } from './adjudicate.js';
export { renderTwoPassJson, renderTwoPassMarkdown, TWO_PASS_RESULT_SCHEMA } from './render.js';
