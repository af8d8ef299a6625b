// The lead recommendation of simple-review.txt "User Decision Report": NO_BLOCKING_EVIDENCE,
// CHANGES_ADVISED, INCOMPLETE_REVIEW or ESCALATE_TO_DEEP_REVIEW. Simple review never issues a
// merge or acceptance gate: the report always ends "Final decision: USER_DECISION_REQUIRED".
//
// Precedence (first match wins), each rule citing the seed:
// 1. INCOMPLETE_REVIEW — "whenever either selected reviewer did not complete the required scope and
//    focus"; "Incomplete coverage ... cannot support a NO_BLOCKING_EVIDENCE recommendation". A
//    CRITICAL/HIGH finding without its required rebuttal record also leaves the one-pass workflow
//    incomplete.
// 2. ESCALATE_TO_DEEP_REVIEW — "Use deep-review when the work needs iterative fixes, repeated
//    review rounds, or deep ... investigation": a CRITICAL/HIGH claim one round could not settle
//    (UNVERIFIED), or an ACCEPTED finding whose lead-validated decision impact is major.
// 3. CHANGES_ADVISED — at least one ACCEPTED finding above INFO (INFO is "context, caveat, ...
//    confirmed non-issue, or optional improvement").
// 4. NO_BLOCKING_EVIDENCE — otherwise.
import { isCriticalOrHigh, type DecisionImpact, type SimpleSeverity } from './schema.js';
import type { SimpleStatus, StatusReason } from './classify.js';
import type { ReviewerCoverage } from './coverage.js';

export type Recommendation = 'NO_BLOCKING_EVIDENCE' | 'CHANGES_ADVISED' | 'INCOMPLETE_REVIEW' | 'ESCALATE_TO_DEEP_REVIEW';

export interface RecommendationFinding {
  readonly finding_id: string;
  readonly status: SimpleStatus | 'REJECTED_INCOMPLETE';
  readonly reason: StatusReason | null;
  readonly reported_severity: SimpleSeverity;
  readonly final_severity: SimpleSeverity;
  readonly decision_impact: DecisionImpact;
}

export interface RecommendationResult {
  readonly recommendation: Recommendation;
  /** Finding ids and reviewer slots that drove the recommendation. */
  readonly because: readonly string[];
}

export function recommend(coverage: readonly ReviewerCoverage[], findings: readonly RecommendationFinding[]): RecommendationResult {
  const incompleteSlots = coverage.filter((c) => c.coverage === 'INCOMPLETE').map((c) => c.slot);
  const noRecord = findings.filter((f) => f.reason === 'no_rebuttal_record').map((f) => f.finding_id);
  if (incompleteSlots.length > 0 || noRecord.length > 0) return { recommendation: 'INCOMPLETE_REVIEW', because: [...incompleteSlots, ...noRecord] };

  const escalate = findings
    .filter(
      (f) =>
        (f.status === 'UNVERIFIED' && isCriticalOrHigh(f.reported_severity)) ||
        (f.status === 'ACCEPTED' && f.decision_impact === 'major'),
    )
    .map((f) => f.finding_id);
  if (escalate.length > 0) return { recommendation: 'ESCALATE_TO_DEEP_REVIEW', because: escalate };

  const changes = findings.filter((f) => f.status === 'ACCEPTED' && f.final_severity !== 'INFO').map((f) => f.finding_id);
  if (changes.length > 0) return { recommendation: 'CHANGES_ADVISED', because: changes };
  return { recommendation: 'NO_BLOCKING_EVIDENCE', because: [] };
}
