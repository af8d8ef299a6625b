// One receipt entry's checks in `audit verify` (docs/audit.md "Cost and memory"): its envelope
// verifies under the trust root in force at its log position (DSSE, two signatures by distinct
// reviewer and runner keys, canonical payload, statement, predicate), and its signed predicate
// equals the challenge_issue, run_claim and run_receipt entries it belongs to. The one definition:
// the audit runs it in its own thread or on worker threads (./receipt-worker.ts) with the same
// inputs, and the results are identical (test/audit-verify-workers.test.ts).
import { receiptBindingMismatches, type ClaimFacts, type IssuedChallengeFacts, type RecordedReceiptFacts } from '../../core/audit/receipt-binding.js';
import { GovernedError, isGovernedError } from '../../core/errors.js';
import { isoOfSeconds, type TrustRoot } from '../../core/trust-root.js';
import { verifyReceiptBytes } from '../../core/verify-receipt.js';
import type { AuditFailure, AuditReport } from '../../core/command-output.js';

type Payload = Record<string, unknown>;

/** What one receipt check needs: all plain data, so it can cross to a worker thread. */
export interface ReceiptJob {
  readonly seq: number;
  /** The entry's log time (seconds): the signatures are judged then. */
  readonly time: number;
  /** The run_receipt entry's payload. */
  readonly p: Payload;
  /** The challenge_issue payload; null: consumed by an earlier answer (the envelope is verified, the binding is not); undefined: none. */
  readonly issue: Payload | null | undefined;
  readonly claim: Payload | undefined;
}

export interface ReceiptOutcome {
  readonly seq: number;
  /** A failure, or a second answer to one challenge (counted failed; its code is the pass's). */
  readonly failed: boolean;
  readonly failures: AuditFailure[];
  readonly trustMode: AuditReport['trust_modes'][number] | null;
}

const failureOf = (e: GovernedError, extra: readonly string[] = []): AuditFailure => ({ code: e.code, exit: e.exit, ids: [...extra, ...e.ids] });

export function checkReceipt(job: ReceiptJob, trust: TrustRoot): ReceiptOutcome {
  const { seq, p, issue, claim } = job;
  const id = p.receipt as string;
  const failures: AuditFailure[] = [];
  if (issue === undefined || (issue !== null && claim === undefined)) {
    return { seq, failed: true, failures: [failureOf(new GovernedError('audit_orphan_record', { ids: [`seq:${seq}`, id] }))], trustMode: null };
  }
  let trustMode: ReceiptOutcome['trustMode'] = null;
  try {
    const v = verifyReceiptBytes(Buffer.from(p.envelope_b64 as string, 'base64'), trust, { at: isoOfSeconds(job.time), offline: false });
    trustMode = v.predicate.trust_mode;
    if (issue !== null && claim !== undefined) {
      const fields = receiptBindingMismatches(
        v.id,
        v.predicate,
        issue as unknown as IssuedChallengeFacts,
        claim as unknown as ClaimFacts,
        p as unknown as RecordedReceiptFacts,
      );
      // Field names only, never values (docs/commands.md#exit-codes: a rejection never prints the rejected value).
      if (fields.length > 0) failures.push(failureOf(new GovernedError('audit_receipt_mismatch', { ids: [`seq:${seq}`, id, ...fields.slice(0, 8)] })));
    }
  } catch (e) {
    if (!isGovernedError(e)) throw e;
    failures.push(failureOf(e, [`seq:${seq}`, id]));
  }
  return { seq, failed: failures.length > 0 || issue === null, failures, trustMode };
}
