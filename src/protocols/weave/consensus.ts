// Consensus levels and severity promotion (weave-review.txt "Cross-Reference and Deduplicate").
import { WEAVE_SEVERITIES, type WeaveSeverity } from './schema.js';

export type ConsensusLevel = 'unanimous' | 'majority' | 'split' | 'single';
export type Stance = 'agree' | 'dissent' | 'silent';

/**
 * Seed: "over M lanes the levels are unanimous (M/M), majority (> M/2, someone dissents or is
 * silent), split (no position > M/2), and single (one agree, rest silent)". Dissent and silence
 * differ: one agree with every other lane silent is `single` ("a single uncontested finding
 * outranks a split one"), one agree with any dissent is contested.
 *
 * Decisions where the seed's wording leaves a gap (written down here, as a careful
 * user would expect):
 * - M = 1 (the seed's "Claude-only" fallback): one lane agreeing is `single`, not `unanimous` —
 *   there is no second opinion, so no consensus boost is implied.
 * - Every other finding without an agree-majority (e.g. 1 agree vs 2 dissents, or 2 of 4 agree
 *   with 2 silent) is `split`: it is contested or uncorroborated, and is listed under Reviewer
 *   Disagreements.
 */
export function consensusLevel(agree: number, dissent: number, lanes: number): ConsensusLevel {
  if (agree === 1 && dissent === 0) return 'single';
  if (agree === lanes) return 'unanimous';
  if (agree * 2 > lanes) return 'majority';
  return 'split';
}

/** Report tag: "consensus 2/3", "consensus 1/3 (uncontested)"; split findings say so too. */
export function consensusTag(level: ConsensusLevel, agree: number, lanes: number): string {
  const base = `consensus ${agree}/${lanes}`;
  if (level === 'single') return `${base} (uncontested)`;
  if (level === 'split') return `${base} (split)`;
  return base;
}

/**
 * Seed "Consensus boost": 1 reviewer → reported severity as-is; 2 reviewers → promote one level
 * (Suggestion → Important, Important → Critical); 3 reviewers → Critical regardless. More than
 * three lanes agreeing is at least as strong as three, so ≥ 3 → Critical.
 */
export function promoteByConsensus(reported: WeaveSeverity, agree: number): WeaveSeverity {
  if (agree >= 3) return 'Critical';
  if (agree === 2) return WEAVE_SEVERITIES[Math.max(0, WEAVE_SEVERITIES.indexOf(reported) - 1)] as WeaveSeverity;
  return reported;
}

/** The strongest severity among the agreeing lanes (conservative: fail closed on calibration). */
export function strongestSeverity(severities: readonly WeaveSeverity[]): WeaveSeverity {
  let best = WEAVE_SEVERITIES.length - 1;
  for (const s of severities) best = Math.min(best, WEAVE_SEVERITIES.indexOf(s));
  return WEAVE_SEVERITIES[best] as WeaveSeverity;
}

/**
 * Seed ordering within a severity band: "unanimous-verified, majority-verified, single-verified,
 * then unverified". Split findings that verification confirmed come after single-verified (a
 * single uncontested finding outranks a split one); unverified findings follow, in the same
 * level order among themselves.
 */
const LEVEL_ORDER: readonly ConsensusLevel[] = ['unanimous', 'majority', 'single', 'split'];
export function orderingRank(level: ConsensusLevel, verified: boolean): number {
  return (verified ? 0 : LEVEL_ORDER.length) + LEVEL_ORDER.indexOf(level);
}
