// Which receipts a decision needs (the lean gate path, docs/gate.md bench/gate). The rules give the same
// decision on the full history and on this subset, so a loader may fetch only these rows with
// indexed queries instead of every receipt of the unit (test/decision-sufficient.test.ts checks the
// equality on generated histories). The subset is:
//   1. every DIRTY receipt (blocks, vetoes);
//   2. every receipt on the current state: planning receipts on the current planning-state digest,
//      other stages' receipts on the current work-state digest (rounds and streaks);
//   3. for every DIRTY receipt and every ABORTED run, the first later CLEAN receipt of the same
//      stage and slot on different reviewed content that lifts it (the one receipt that can lift it,
//      docs/decision.md#4-which-receipts-count, docs/decision.md#6-vetoes; ./incident-lift.ts when the history was only re-bound).
// ABORTED runs, authorities and resets are few and always loaded whole. This module is the
// executable statement of that contract; a loader's SQL is correct when it selects the same rows.
import { reviewedContentOf } from './history.js';
import { liftsFact } from './incident-lift.js';
import { receiptsBySlot } from './streak.js';
import type { DecisionInput, ReceiptFact } from './types.js';
import { slotKey } from './vocabulary.js';

export function sufficientReceipts(input: Pick<DecisionInput, 'receipts' | 'abortedRuns' | 'current'>): ReceiptFact[] {
  const keep = new Set<ReceiptFact>();
  const bySlot = receiptsBySlot(input.receipts);
  const firstLifter = (stage: ReceiptFact['stage'], slot: string, seq: number, content: string, work: string | null | undefined): ReceiptFact | undefined =>
    (bySlot.get(slotKey(stage, slot)) ?? []).find(
      (r) => r.seq > seq && r.verdict === 'CLEAN' && liftsFact({ seq, reviewedContent: content, work }, { reviewedContent: reviewedContentOf(stage, r), work: r.work, historySeenUpto: r.historySeenUpto }),
    );

  for (const r of input.receipts) {
    const current =
      r.stage === 'planning' ? r.planningStateDigest === input.current.planningStateDigest : r.workStateDigest === input.current.workStateDigest;
    if (current) keep.add(r);
    if (r.verdict === 'DIRTY') {
      keep.add(r);
      const lifter = firstLifter(r.stage, r.slot, r.seq, reviewedContentOf(r.stage, r), r.work);
      if (lifter !== undefined) keep.add(lifter);
    }
  }
  for (const a of input.abortedRuns) {
    const lifter = firstLifter(a.stage, a.slot, a.seq, reviewedContentOf(a.stage, a), a.work);
    if (lifter !== undefined) keep.add(lifter);
  }
  return input.receipts.filter((r) => keep.has(r));
}
