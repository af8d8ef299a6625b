// Pass 1 — Review (two-pass-review.txt "Pass 1 — Review" and "Auto-progression").
import { fail } from '../../core/errors.js';
import { parseOrFail } from './parse-or-fail.js';
import { ReviewOutputSchema, isP0P1, type ReviewOutput, type TwoPassFinding } from './schema.js';

export type Progression = 'clean' | 'verify';

export interface Pass1Result {
  readonly output: ReviewOutput;
  /** Ids of the P0/P1 findings, in pass 1 order. */
  readonly p0p1Ids: readonly number[];
  /** Seed: zero P0/P1 → terminate with the clean shape; one or more → Pass 2, no user prompt. */
  readonly progression: Progression;
}

/**
 * Seed Pass 1 output rule: "set every finding's validated_by to reviewer, leave verdict and
 * evidence null". Field note: "A caller may set confirmed when routing an observed failure with
 * honest validated_by and evidence values" — so the only other accepted form is a machine routing:
 * verdict confirmed, validated_by machine, and non-empty evidence (the exact check and observed
 * failure). Anything else claims a verification that did not happen.
 */
function isReviewerForm(f: TwoPassFinding): boolean {
  return f.validated_by === 'reviewer' && f.verdict === null && f.evidence === null;
}
function isMachineRouting(f: TwoPassFinding): boolean {
  return f.validated_by === 'machine' && f.verdict === 'confirmed' && f.evidence !== null && f.evidence.trim() !== '';
}

/** Field note: "criterion — required for P0/P1 findings. Name the specific criterion violated." */
export function assertCriterionForP0P1(f: TwoPassFinding): void {
  if (isP0P1(f.severity) && f.criterion.trim() === '') fail('two_pass_criterion_missing', [`finding:${f.id}`]);
}

/** Seed: checks_run lists "every criterion evaluated, file path checked, or acceptance criterion verified". */
export function assertChecksRun(output: ReviewOutput, pass: 'pass1' | 'pass2'): void {
  if (output.checks_run.length === 0) fail('two_pass_checks_run_empty', [pass]);
}

export function evaluatePass1(value: unknown): Pass1Result {
  const output = parseOrFail(ReviewOutputSchema, value, 'two_pass_output_invalid');
  assertChecksRun(output, 'pass1');
  output.findings.forEach((f, i) => {
    // Schema: "id: sequential number starting from 1".
    if (f.id !== i + 1) fail('two_pass_finding_ids_not_sequential', [`findings[${i}]`]);
    if (!isReviewerForm(f) && !isMachineRouting(f)) fail('two_pass_reviewer_fields_invalid', [`finding:${f.id}`]);
    assertCriterionForP0P1(f);
  });
  const p0p1Ids = output.findings.filter((f) => isP0P1(f.severity)).map((f) => f.id);
  return { output, p0p1Ids, progression: p0p1Ids.length === 0 ? 'clean' : 'verify' };
}
