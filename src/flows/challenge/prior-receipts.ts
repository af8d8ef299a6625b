// `prior_receipts` of a bundle (docs/bundle.md#views: receipt ids and verdicts of *earlier stages* only; the
// authority_release role sees them, and an integration bundle carries them).
//
// Read from the receipts the runner recorded (src/store/runs.ts, docs/runner.md#the-run-step-by-step): every receipt of the
// unit whose stage precedes this one, in log order, as {receipt_id, stage, slot, verdict}. A row
// that does not fit the bundle's closed schema is refused (`prior_receipts_unavailable`) rather
// than dropped: a reviewer must never be handed an incomplete history.
import { fail } from '../../core/errors.js';
import type { Stage } from '../../core/policy.js';
import { STAGES } from '../../core/receipt-predicate.js';
import type { PriorReceipt } from '../../core/bundle/index.js';
import { listReceipts, type Db } from '../../store/index.js';
import { DIGEST_RE, NAME_RE } from '../../core/ids.js';

const SLOT_RE = NAME_RE;

export function loadPriorReceipts(db: Db, unit: string, stage: Stage): PriorReceipt[] {
  const earlier = new Set<string>(STAGES.slice(0, STAGES.indexOf(stage)));
  if (earlier.size === 0) return [];
  const out: PriorReceipt[] = [];
  for (const r of listReceipts(db, unit)) {
    if (!(STAGES as readonly string[]).includes(r.stage)) fail('prior_receipts_unavailable', [unit]);
    if (!earlier.has(r.stage)) continue;
    if (!DIGEST_RE.test(r.id) || !SLOT_RE.test(r.slot) || (r.verdict !== 'CLEAN' && r.verdict !== 'DIRTY')) {
      fail('prior_receipts_unavailable', [unit]);
    }
    out.push({ receipt_id: r.id, stage: r.stage as Stage, slot: r.slot, verdict: r.verdict });
  }
  return out;
}
