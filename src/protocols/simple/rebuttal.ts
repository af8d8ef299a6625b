// The one rebuttal round (simple-review.txt "One-Pass Workflow" steps 3-5 and the rebuttal prompt
// rules): each reviewer's batch holds every CRITICAL/HIGH finding and every lead-flagged material
// disagreement of the *other* reviewer; each reviewer answers with one verdict per finding_id.
import { fail } from '../../core/errors.js';
import { indexRound1, type Round1 } from './round1.js';
import { isCriticalOrHigh, SimpleRound1Schema, type Rebuttal } from './schema.js';
import { parseOrFail } from '../two-pass/parse-or-fail.js';

export interface RebuttalVerdict {
  readonly by: string;
  readonly verdict: 'agree' | 'disagree' | 'uncertain';
  readonly evidence: string;
}

/** Slot → finding ids it must challenge, in round-1 order. */
export type RebuttalBatches = ReadonlyMap<string, readonly string[]>;

/**
 * Seed step 3: "Include all CRITICAL/HIGH findings and any material disagreement; ... ask each
 * reviewer to challenge only the other reviewer's listed findings." Severity here is the one the
 * reviewer reported (before any contract downgrade), so a downgrade never skips a rebuttal the seed
 * requires ("CRITICAL and HIGH findings require a rebuttal record even when both reviewers found
 * the issue"). Findings the contract rejected are not sent.
 */
export function rebuttalBatches(round1: Round1, materialDisagreements: readonly string[]): RebuttalBatches {
  const batches = new Map<string, string[]>(round1.pair.map((s) => [s, []]));
  for (const [fid, f] of round1.findings) {
    if (f.contract.disposition === 'rejected') continue;
    if (!isCriticalOrHigh(f.finding.severity) && !materialDisagreements.includes(fid)) continue;
    const other = round1.pair[0] === f.slot ? round1.pair[1] : round1.pair[0];
    batches.get(other)?.push(fid);
  }
  return batches;
}

/** Plan the rebuttal round from a round-1 input (what the orchestrator sends to each reviewer). */
export function planSimpleRebuttal(value: unknown): Record<string, readonly string[]> {
  const input = parseOrFail(SimpleRound1Schema, value, 'simple_input_invalid');
  const round1 = indexRound1(input);
  return Object.fromEntries(rebuttalBatches(round1, input.material_disagreements));
}

/**
 * Check the rebuttals against the batches and index the verdicts by finding id. Seed: "requires
 * one verdict per id ... Never accept one aggregate verdict for a multi-finding batch"; one round
 * only, so a second rebuttal from one slot is refused.
 */
export function collectRebuttals(
  round1: Round1,
  batches: RebuttalBatches,
  rebuttals: readonly Rebuttal[],
): { verdicts: ReadonlyMap<string, RebuttalVerdict>; completed: ReadonlySet<string> } {
  const seenSlots = new Set<string>();
  const verdicts = new Map<string, RebuttalVerdict>();
  const completed = new Set<string>();
  for (const r of rebuttals) {
    if (!round1.pair.includes(r.slot)) fail('simple_reviewer_unknown', [r.slot]);
    if (seenSlots.has(r.slot)) fail('simple_rebuttal_round_duplicate', [r.slot]);
    seenSlots.add(r.slot);
    const batch = batches.get(r.slot) ?? [];
    if (r.status === 'failed') {
      if (r.verdicts.length > 0) fail('simple_input_invalid', ['rebuttals', r.slot, 'verdicts']);
      continue;
    }
    const answered = new Set<string>();
    for (const v of r.verdicts) {
      if (!batch.includes(v.finding_id)) fail('simple_rebuttal_unrequested_finding', [r.slot, v.finding_id]);
      if (answered.has(v.finding_id)) fail('simple_rebuttal_verdict_duplicate', [r.slot, v.finding_id]);
      answered.add(v.finding_id);
      verdicts.set(v.finding_id, { by: r.slot, verdict: v.verdict, evidence: v.evidence });
    }
    for (const fid of batch) if (!answered.has(fid)) fail('simple_rebuttal_verdict_missing', [r.slot, fid]);
    completed.add(r.slot);
  }
  return { verdicts, completed };
}
