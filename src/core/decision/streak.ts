// Current receipts, rounds and streaks of one stage (docs/decision.md#the-rules-in-short, docs/contract.md#the-states-a-receipt-is-judged-against).
//
// A receipt of (stage, slot) *counts* when all of these hold:
//   1. it is current: planning → its planning-state digest is the unit's; other stages → its
//      work-state digest is the unit's (and, belt and braces, its content and planning digests too);
//   2. it comes after the last policy_update / trust_update in the log, and it is bound to the
//      policy digest and trust digest in force (docs/contract.md#the-states-a-receipt-is-judged-against);
//   3. it is not older than the policy's `reuse_window` at `now` (age = now - log time; age equal to
//      the window still counts);
//   4. its slot has no standing block, and it is at or after the slot's `countsFrom` — the latest
//      position from which a lifted block lets receipts count (the lifting CLEAN receipt itself, or
//      the entry after a `dismiss`). So nothing recorded while the slot was blocked, and nothing
//      before a DIRTY or ABORTED, ever counts again: a streak is consecutive per slot.
//
// Rounds: order each slot's counted receipts from the newest. Round 1 is the newest counted receipt
// of every slot, round 2 the second newest of every slot, and so on; a round exists only when every
// slot of the stage has a receipt for it. The streak is the number of rounds, counting from round 1,
// whose receipts are all CLEAN. A slot filled twice therefore adds a round only for itself: it never
// fills another slot. (Rule 4 already removes every DIRTY from the counted receipts; the CLEAN test
// is docs/decision.md's definition of a round and is kept as stated.)
import { compareUtf8 } from '../contract/ids.js';
import { fail } from '../errors.js';
import type { History } from './history.js';
import type { Block, EvidenceInput, ReceiptFact, SlotReport, Stage } from './types.js';
import { slotKey } from './vocabulary.js';

/** The stage evaluated on its own, before the cross-stage rules (planning sealed, gating). */
export interface StageEvaluation {
  readonly stage: Stage;
  readonly required: boolean;
  readonly floor: number;
  readonly currentDigest: string;
  /** Consecutive CLEAN complete rounds from the newest. */
  readonly rounds: number;
  readonly slots: readonly SlotReport[];
  /** Receipts of the newest `floor` rounds when `rounds >= floor`, else empty. */
  readonly proof: readonly string[];
  /** Every block of the stage's slots, lifted or not (what lifted them is relied on). */
  readonly blocks: readonly Block[];
}

function currentDigestOf(stage: Stage, current: EvidenceInput['current']): string {
  if (stage === 'planning') return current.planningStateDigest;
  // Development, test and integration are judged on the work state: without it, fail closed.
  if (current.workStateDigest === undefined || current.contentDigest === undefined) {
    fail('decision_input_invalid', ['current.work_state_digest']);
  }
  return current.workStateDigest;
}

function isCurrent(stage: Stage, r: ReceiptFact, current: EvidenceInput['current']): boolean {
  if (r.planningStateDigest !== current.planningStateDigest) return false;
  if (stage === 'planning') return true;
  return r.workStateDigest === current.workStateDigest && r.contentDigest === current.contentDigest;
}

/** Receipts grouped by `stage.slot`, each list in log order. Built once per decision. */
export function receiptsBySlot(receipts: readonly ReceiptFact[]): Map<string, ReceiptFact[]> {
  const out = new Map<string, ReceiptFact[]>();
  for (const r of receipts) {
    const key = slotKey(r.stage, r.slot);
    const list = out.get(key);
    if (list === undefined) out.set(key, [r]);
    else list.push(r);
  }
  for (const list of out.values()) list.sort((a, b) => a.seq - b.seq);
  return out;
}

/** The position of the last policy_update / trust_update (0 when there is none). */
export function lastResetSeq(input: Pick<EvidenceInput, 'resets'>): number {
  return input.resets.reduce((max, r) => (r.seq > max ? r.seq : max), 0);
}

export function evaluateStage(
  stage: Stage,
  input: EvidenceInput,
  history: History,
  bySlot: ReadonlyMap<string, readonly ReceiptFact[]>,
): StageEvaluation {
  const spec = input.policy.doc.stages[stage];
  if (spec === undefined) fail('decision_input_invalid', [`policy.stages.${stage}`]);
  const currentDigest = currentDigestOf(stage, input.current);
  const resetSeq = lastResetSeq(input);
  const window = input.policy.reuseWindowSeconds;
  const slots = Object.keys(spec.slots).sort(compareUtf8);

  const blocks: Block[] = [];
  const counted: ReceiptFact[][] = [];
  const partial: Omit<SlotReport, 'missing'>[] = [];
  for (const slot of slots) {
    const key = slotKey(stage, slot);
    const slotBlocks = history.blocksBySlot.get(key) ?? [];
    blocks.push(...slotBlocks);
    const blockedBy = slotBlocks.filter((b) => b.countsFrom === null).map((b) => b.id);
    const countsFrom = slotBlocks.reduce((max, b) => (b.countsFrom !== null && b.countsFrom > max ? b.countsFrom : max), 0);
    const current = (bySlot.get(key) ?? []).filter((r) => isCurrent(stage, r, input.current));
    const counting =
      blockedBy.length > 0
        ? []
        : current.filter(
            (r) =>
              r.seq > resetSeq &&
              r.policyDigest === input.policy.digest &&
              r.trustDigest === input.trustDigest &&
              (window === null || input.now - r.time <= window) &&
              r.seq >= countsFrom,
          );
    counting.reverse(); // newest first
    counted.push(counting);
    partial.push({ slot, current: current.length, counted: counting.length, blockedBy });
  }

  let rounds = 0;
  for (;;) {
    const round = counted.map((list) => list[rounds]);
    if (round.some((r) => r === undefined || r.verdict !== 'CLEAN')) break;
    rounds += 1;
  }
  const floor = spec.streak;
  const proof = rounds >= floor ? counted.flatMap((list) => list.slice(0, floor).map((r) => r.receiptId)) : [];
  const slotReports: SlotReport[] = partial.map((p) => ({ ...p, missing: Math.max(0, floor - p.counted) }));
  return { stage, required: spec.required, floor, currentDigest, rounds, slots: slotReports, proof, blocks };
}
