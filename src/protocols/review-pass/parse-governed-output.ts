// Adapter from governed's opaque reviewer output (docs/reviewers.md#reviewer-output: findings are `{code, class, severity,
// refs}`, never text or paths) to the review-pass finding model, so governed mode adjudicates "by
// code and refs" (docs/review-pass.md#review-protocols):
//   file        = the finding code (the docs/commands.md#what-each-command-guarantees grouping key: only same-code findings can match)
//   symbol      = the sorted refs joined by "," (the IDs the finding is about; shown in reports)
//   line        = null, req_id = null, description = the code
//   match_key   = "<code>|<ref1>,<ref2>..." — findings match iff their keys are equal (match-findings.ts)
// The runner already validated the output (docs/reviewers.md#reviewer-output); this adapter re-checks the same closed shape so
// the pure engine never trusts a caller-assembled object.
import * as z from 'zod/mini';
import { list, str } from '../../core/schema-primitives.js';
import { fail } from '../../core/errors.js';
import { FINDING_CODES } from '../../core/receipt-predicate.js';
import { FindingClassSchema, SeveritySchema, makeFinding, isVetoShape } from './finding.js';
import type { ParsedReviewerOutput } from './reviewer-output.js';
import { CONTRACT_ID_RE } from '../../core/ids.js';

/** The closed finding codes of docs/reviewers.md#reviewer-output: one list, owned by the receipt predicate schema. */
export const GOVERNED_FINDING_CODES = FINDING_CODES;

/** docs/contract.md#validation-rules ID grammar: every ref is an ID present in the view. */
const ID_RE = CONTRACT_ID_RE;

function sortedUnique(xs: readonly string[]): boolean {
  for (let i = 1; i < xs.length; i++) {
    const a = xs[i - 1] as string;
    const b = xs[i] as string;
    if (Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')) >= 0) return false;
  }
  return true;
}

const OpaqueFindingSchema = z.strictObject({
  code: z.enum(GOVERNED_FINDING_CODES),
  class: FindingClassSchema,
  severity: SeveritySchema,
  refs: list(str({ re: ID_RE }), 1, 4).check(z.refine(sortedUnique)),
});

/** The fields of a receipt that the protocol adjudicates (docs/reviewers.md#reviewer-output, docs/formats.md#receipt predicate). */
export const GovernedReviewerOutputSchema = z
  .strictObject({
    verdict: z.enum(['CLEAN', 'DIRTY']),
    coverage_matched: z.boolean(),
    findings: list(OpaqueFindingSchema, 0, 32),
  })
  .check(z.refine((o) => (o.verdict === 'CLEAN') === (o.findings.length === 0)));

export type GovernedReviewerOutput = z.infer<typeof GovernedReviewerOutputSchema>;

/** The match key of docs/review-pass.md#review-protocols: code plus sorted refs. */
export function governedMatchKey(code: string, refs: readonly string[]): string {
  return `${code}|${[...refs].sort().join(',')}`;
}

export function parseGovernedReviewerOutput(reviewer: string, value: unknown): ParsedReviewerOutput {
  const parsed = GovernedReviewerOutputSchema.safeParse(value);
  if (!parsed.success) fail('review_pass_governed_output_invalid', [reviewer]);
  const out = parsed.data;
  const findings = out.findings.map((f) =>
    makeFinding({
      file: f.code,
      line: null,
      symbol: f.refs.join(','),
      severity: f.severity,
      finding_class: f.class,
      req_id: null,
      description: f.code,
      reviewer,
      match_key: governedMatchKey(f.code, f.refs),
    }),
  );
  const hasVeto = out.findings.some((f) => isVetoShape(f.severity, f.class));
  return {
    reviewer,
    strategy: 'governed',
    structured: true,
    // Opaque output carries no paths; the runner's coverage check (coverage_matched, docs/reviewers.md#the-reviewers-world) is
    // governed's read-evidence signal for the health score.
    files_read: [],
    read_evidence: out.coverage_matched,
    files_read_rejected: 0,
    findings,
    rejected_findings: 0,
    downgraded_findings: 0,
    req_coverage: null,
    verdict: out.verdict === 'CLEAN' ? 'CLEAN' : hasVeto ? 'VETO' : 'FOUND_ISSUES',
  };
}
