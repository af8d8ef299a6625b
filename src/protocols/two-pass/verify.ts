// Pass 2 — Verify (two-pass-review.txt "Pass 2 — Verify"): the verifier returns the full findings
// array, a verdict and evidence for every finding, validated_by verifier, severity moved up only
// under confirmed and down only under demoted, and it may not add findings ("Boundary: Verify only
// Pass 1 findings; do not add findings").
import { fail } from '../../core/errors.js';
import { parseOrFail } from './parse-or-fail.js';
import { assertChecksRun, assertCriterionForP0P1 } from './pass1.js';
import { ReviewOutputSchema, severityRank, type ReviewOutput, type Severity, type TwoPassFinding, type Verdict } from './schema.js';

export interface VerifiedFinding {
  readonly pass1: TwoPassFinding;
  readonly pass2: TwoPassFinding;
  readonly verdict: Verdict;
  readonly evidence: string;
  readonly originalSeverity: Severity;
  readonly finalSeverity: Severity;
}

export interface Pass2Result {
  readonly output: ReviewOutput;
  /** In pass 1 order. */
  readonly findings: readonly VerifiedFinding[];
}

/** The fields that say *what* a finding is about; changing them would be a new finding. */
const IDENTITY_FIELDS = ['title', 'file', 'line_start', 'line_end', 'criterion'] as const;

/**
 * Seed "Severity: Adjust severity up under confirmed or down under demoted." A demotion must
 * actually lower the severity; a rejection leaves it where the reviewer put it.
 */
export function severityMoveAllowed(verdict: Verdict, from: Severity, to: Severity): boolean {
  const delta = severityRank(to) - severityRank(from); // negative = more severe
  if (verdict === 'confirmed') return delta <= 0;
  if (verdict === 'demoted') return delta > 0;
  return delta === 0;
}

export function evaluatePass2(pass1: ReviewOutput, value: unknown): Pass2Result {
  const output = parseOrFail(ReviewOutputSchema, value, 'two_pass_output_invalid');
  // Seed: "Output: Return a ReviewOutput with the full findings array and populated checks_run."
  assertChecksRun(output, 'pass2');
  const byId = new Map<number, TwoPassFinding>();
  for (const f of output.findings) {
    // Boundary: an id pass 1 never reported, or a second finding under one id, is an addition.
    if (byId.has(f.id) || !pass1.findings.some((p) => p.id === f.id)) fail('two_pass_verifier_added_finding', [`finding:${f.id}`]);
    byId.set(f.id, f);
  }
  const findings = pass1.findings.map((p): VerifiedFinding => {
    const v = byId.get(p.id);
    if (v === undefined) return fail('two_pass_verifier_dropped_finding', [`finding:${p.id}`]);
    for (const field of IDENTITY_FIELDS) {
      if (v[field] !== p[field]) fail('two_pass_verifier_changed_finding', [`finding:${p.id}`, field]);
    }
    // Seed: "Set every finding to confirmed, demoted, or rejected and provide evidence" and
    // "Set every finding's validated_by to verifier".
    if (v.verdict === null || v.validated_by !== 'verifier' || v.evidence === null || v.evidence.trim() === '') {
      return fail('two_pass_verdict_missing', [`finding:${p.id}`]);
    }
    if (!severityMoveAllowed(v.verdict, p.severity, v.severity)) fail('two_pass_severity_move_invalid', [`finding:${p.id}`]);
    // A finding promoted into P0/P1 must name its criterion too (field note on criterion).
    assertCriterionForP0P1(v);
    return { pass1: p, pass2: v, verdict: v.verdict, evidence: v.evidence, originalSeverity: p.severity, finalSeverity: v.severity };
  });
  return { output, findings };
}
