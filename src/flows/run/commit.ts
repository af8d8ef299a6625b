// docs/runner.md#the-run-step-by-step step 9, the end of a successful run: ONE transaction re-checks under the write lock that the
// claim is still ours and still claimed (not reaped meanwhile), that its deadline has not passed and
// that no lease is active, stores the exact receipt bytes and consumes the challenge (one log entry,
// store/runs.ts `commitReceiptIn`). Only after it committed is the bundle file deleted and the receipt
// id shown: a signed receipt that did not commit is never printed (its bytes are simply dropped).
import { commitReceiptIn, mutate, type Challenge, type Store } from '../../store/index.js';
import { removeBundleFile } from '../challenge/bundle-file.js';
import type { ReviewOutput } from '../../core/review-output.js';
import type { SignedReceipt } from './sign.js';

export function commitReceipt(store: Store, now: number, c: Challenge, runId: string, output: ReviewOutput, signed: SignedReceipt): number {
  const seq = mutate(store, now, (tx) =>
    commitReceiptIn(tx, {
      runId,
      receiptId: signed.receiptId,
      verdict: output.verdict,
      hasVeto: output.vetoes.length > 0,
      planningStateDigest: c.planningStateDigest,
      contentDigest: c.contentDigest,
      workStateDigest: c.workStateDigest,
      policyDigest: c.policyDigest,
      trustDigest: c.trustDigest,
      envelope: signed.envelope,
    }),
  );
  // docs/state.md#the-store: the bundle of a consumed challenge is deleted (best effort: the challenge can no longer
  // be claimed whatever remains on disk, and `run reap` removes leftovers).
  removeBundleFile(store.bundlesDir, c.challengeId);
  return seq;
}
