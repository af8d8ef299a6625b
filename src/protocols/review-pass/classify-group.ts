// Classification of a matched group (docs/review-pass-protocol.md#classification), with the guards of docs/review-pass-protocol.md#graceful-degradation and docs/review-pass-protocol.md#health-score.
//
// R = number of available reviewers this round (docs/review-pass-protocol.md#classification "R = number of available reviewers").
//   VETO (evaluated first): any member CRITICAL and class in [preservation, scope, authority, release]
//     → VETO even with one supporter; never AUTO_DISMISSED (docs/review-pass-protocol.md#classification).
//   CRITICAL: supporters == R → CONFIRMED; supporters >= 2 → CONTESTED;
//             supporters == 1 and R >= 3 → AUTO_DISMISSED (non-veto correctness only); else CONTESTED.
//   HIGH/MEDIUM/LOW/INFO: supporters >= max(2, ceil(R/2)) → CONFIRMED;
//             supporters == 1 and R >= 3 → AUTO_DISMISSED; else CONTESTED.
// AUTO_DISMISSED is further withheld (→ CONTESTED) when:
//   - auto-dismiss is disabled for the round (docs/review-pass-protocol.md#graceful-degradation degradation: a configured reviewer is missing);
//   - the group lost its class tag (parse-text-output.ts downgrade: it may be a veto class);
//   - the dismissal would rest solely on low-health reviewers' silence (docs/review-pass-protocol.md#health-score "Do NOT auto-dismiss based
//     solely on low-health reviewer output"): at least one non-supporting reviewer must be healthy.
import type { FindingGroup } from './match-findings.js';

export type Classification = 'CONFIRMED' | 'CONTESTED' | 'AUTO_DISMISSED' | 'VETO';

export interface ClassifyContext {
  /** R: reviewers available this round. */
  readonly reviewers_available: number;
  /** The available reviewers (to find the non-supporters whose silence a dismissal rests on). */
  readonly available: readonly string[];
  /** docs/review-pass-protocol.md#graceful-degradation: false when the round is degraded. */
  readonly auto_dismiss_enabled: boolean;
  /** docs/review-pass-protocol.md#health-score: reviewers whose health this round is < 40. */
  readonly low_health: ReadonlySet<string>;
}

/** docs/review-pass-protocol.md#classification HIGH..INFO confirmation threshold: max(2, ceil(R/2)). */
export function confirmThreshold(r: number): number {
  return Math.max(2, Math.ceil(r / 2));
}

export function classifyGroup(group: FindingGroup, ctx: ClassifyContext): Classification {
  const r = ctx.reviewers_available;
  const supporters = group.supporters.length;
  if (group.veto) return 'VETO';

  const mayAutoDismiss = (): boolean => {
    if (!ctx.auto_dismiss_enabled || group.class_missing) return false;
    const silent = ctx.available.filter((rv) => !group.supporters.includes(rv));
    return silent.some((rv) => !ctx.low_health.has(rv));
  };

  if (group.severity === 'CRITICAL') {
    if (supporters === r) return 'CONFIRMED';
    if (supporters >= 2) return 'CONTESTED';
    if (supporters === 1 && r >= 3 && group.finding_class === 'correctness' && mayAutoDismiss()) {
      return 'AUTO_DISMISSED';
    }
    return 'CONTESTED';
  }
  if (supporters >= confirmThreshold(r)) return 'CONFIRMED';
  if (supporters === 1 && r >= 3 && mayAutoDismiss()) return 'AUTO_DISMISSED';
  return 'CONTESTED';
}
