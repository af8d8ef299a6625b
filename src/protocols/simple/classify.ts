// simple-review.txt "Evidence And Adjudication": the lead gives each finding one status.
// - ACCEPTED: independently reported by both reviewers, or reported by one and verified by a
//   bounded lead-side check.
// - REBUTTED: disproved by the other reviewer or lead-side evidence.
// - UNVERIFIED: plausible but unsupported; keep it at MEDIUM or lower.
// "CRITICAL and HIGH findings require a rebuttal record even when both reviewers found the issue."
// "The lead classifies evidence; reviewers do not decide the outcome": a lead-side check outranks
// a reviewer's rebuttal verdict in both directions.
import type { RebuttalVerdict } from './rebuttal.js';
import type { IndexedFinding } from './round1.js';
import { isCriticalOrHigh, severityIndex, type LeadCheck, type SimpleSeverity } from './schema.js';

export type SimpleStatus = 'ACCEPTED' | 'REBUTTED' | 'UNVERIFIED';
export type StatusReason =
  | 'lead_disproved'
  | 'no_rebuttal_record'
  | 'reported_by_both'
  | 'lead_verified'
  | 'disproved_by_other_reviewer'
  | 'unsupported';

export interface Classification {
  readonly status: SimpleStatus;
  readonly reason: StatusReason;
  readonly final_severity: SimpleSeverity;
  readonly rebuttal: RebuttalVerdict | null;
  readonly lead_check: LeadCheck | null;
}

/** Seed: UNVERIFIED "keep it at MEDIUM or lower". */
export function capAtMedium(s: SimpleSeverity): SimpleSeverity {
  return severityIndex(s) < severityIndex('MEDIUM') ? 'MEDIUM' : s;
}

/** The strongest rebuttal of an issue: a disagreement outranks uncertainty, which outranks agreement. */
function strongest(records: readonly RebuttalVerdict[]): RebuttalVerdict | null {
  const weight = { disagree: 0, uncertain: 1, agree: 2 } as const;
  return [...records].sort((a, b) => weight[a.verdict] - weight[b.verdict])[0] ?? null;
}

export function classifyFinding(
  f: IndexedFinding,
  partner: IndexedFinding | null,
  verdicts: ReadonlyMap<string, RebuttalVerdict>,
  leadChecks: ReadonlyMap<string, LeadCheck>,
): Classification {
  const ids = [f.finding.finding_id, ...(partner === null ? [] : [partner.finding.finding_id])];
  const rebuttal = strongest(ids.flatMap((id) => verdicts.get(id) ?? []));
  const checks = ids.flatMap((id) => leadChecks.get(id) ?? []);
  const disproved = checks.find((c) => c.outcome === 'disproved') ?? null;
  const verified = checks.find((c) => c.outcome === 'verified') ?? null;
  const lead_check = disproved ?? verified ?? checks[0] ?? null;
  const severity = f.contract.severity;
  const unverified = (reason: StatusReason): Classification => ({
    status: 'UNVERIFIED', reason, final_severity: capAtMedium(severity), rebuttal, lead_check,
  });

  if (disproved !== null) return { status: 'REBUTTED', reason: 'lead_disproved', final_severity: severity, rebuttal, lead_check };
  const needsRecord = isCriticalOrHigh(f.finding.severity) || (partner !== null && isCriticalOrHigh(partner.finding.severity));
  if (needsRecord && rebuttal === null) return unverified('no_rebuttal_record');
  if (partner !== null && partner.contract.disposition !== 'rejected') {
    return { status: 'ACCEPTED', reason: 'reported_by_both', final_severity: severity, rebuttal, lead_check };
  }
  if (verified !== null) return { status: 'ACCEPTED', reason: 'lead_verified', final_severity: severity, rebuttal, lead_check };
  if (rebuttal?.verdict === 'disagree') {
    return { status: 'REBUTTED', reason: 'disproved_by_other_reviewer', final_severity: severity, rebuttal, lead_check };
  }
  return unverified('unsupported');
}
