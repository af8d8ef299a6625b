// Per-reviewer health score (docs/review-pass-protocol.md#health-score), computed from the parsed output, no extra calls:
//   files_read  = Files Read section non-empty                                   → 1
//   specificity = (findings with file:line or file:symbol) / max(findings, 1) > 0.5 → 1
//   req_aligned = findings reference REQ-IDs when applicable                      → 1
//   verdict_ok  = (findings > 0 ↔ verdict == FOUND_ISSUES)                         → 1
//   health = (files_read*0.2 + specificity*0.3 + req_aligned*0.3 + verdict_ok*0.2) * 100
// computed in integers (20/30/30/20) so the value stays in the canonical JSON domain.
// Readings governed makes explicit:
//   - specificity uses the seed's formula literally: with zero findings the ratio is 0, so the signal
//     is 0 (a clean reviewer scores at most 70; the < 40 warning still separates broken outputs).
//   - req_aligned: 1 when REQ-IDs are not applicable; otherwise 1 when more than half of the findings
//     name one of the review's REQ-IDs, or, with zero findings, when the reviewer reported REQ-ID
//     coverage.
//   - verdict_ok: VETO is a FOUND_ISSUES verdict with a veto (docs/review-pass-protocol.md#reviewer-output-format verdicts); a missing verdict is 0.
//   - output with no structured data (docs/review-pass-protocol.md#output-parsing-rules) scores 0.
import type { ParsedReviewerOutput } from './reviewer-output.js';

export const LOW_HEALTH_THRESHOLD = 40; // docs/review-pass-protocol.md#health-score "if health < 40: warn"

/** Defined once in zod/mini (src/core/review-pass-result.ts, part of the published review-pass result). */
export type { HealthScore, HealthSignals } from '../../core/review-pass-result.js';
import type { HealthScore, HealthSignals } from '../../core/review-pass-result.js';

const bit = (b: boolean): 0 | 1 => (b ? 1 : 0);

export function healthSignals(out: ParsedReviewerOutput, reqIds: readonly string[]): HealthSignals {
  if (!out.structured) return { files_read: 0, specificity: 0, req_aligned: 0, verdict_ok: 0 };
  const n = out.findings.length;
  const located = out.findings.filter((f) => f.line !== null || f.symbol !== null).length;
  let reqAligned: boolean;
  if (reqIds.length === 0) reqAligned = true;
  else if (n === 0) reqAligned = out.req_coverage !== null;
  else reqAligned = out.findings.filter((f) => f.req_id !== null && reqIds.includes(f.req_id)).length / n > 0.5;
  const foundIssues = out.verdict === 'FOUND_ISSUES' || out.verdict === 'VETO';
  return {
    files_read: bit(out.read_evidence),
    specificity: bit(located / Math.max(n, 1) > 0.5),
    req_aligned: bit(reqAligned),
    verdict_ok: bit(out.verdict !== null && (n > 0) === foundIssues),
  };
}

export function healthScore(out: ParsedReviewerOutput, reqIds: readonly string[]): HealthScore {
  const s = healthSignals(out, reqIds);
  const health = s.files_read * 20 + s.specificity * 30 + s.req_aligned * 30 + s.verdict_ok * 20;
  return { reviewer: out.reviewer, health, low: health < LOW_HEALTH_THRESHOLD, signals: s };
}
