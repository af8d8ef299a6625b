// What binds a receipt to its log (docs/state.md#the-store, docs/contract.md#the-states-a-receipt-is-judged-against, docs/formats.md#receipt, docs/runner.md#the-run-step-by-step): the audit re-reads the three log entries
// a receipt belongs to — the `challenge_issue` that froze the state, the `run_claim` that took the
// challenge, the `run_receipt` that recorded the envelope — and requires every field they share
// with the SIGNED predicate to be equal. The runner checked these before it committed; the audit
// re-checks them from the signed bytes, so an entry rewritten behind governed (even one whose
// hashes were recomputed) cannot say something the signatures do not. Pure: values in, the names of
// the fields that differ out.
import type { ReviewReceiptPredicate } from '../receipt-predicate.js';

/** The fields of a `challenge_issue` payload (src/store/reducers/challenges.ts) that a receipt binds. */
export interface IssuedChallengeFacts {
  readonly challenge: string;
  readonly unit: string;
  readonly stage: string;
  readonly slot: string;
  readonly reviewer: { readonly name: string; readonly sha256: string; readonly interpreter: string };
  readonly bundle_digest: string;
  readonly view_digest: string;
  readonly planning_state_digest: string;
  readonly content_digest: string;
  readonly work_state_digest: string;
  readonly contract_digest: string;
  readonly sources_digest: string;
  readonly workspace_digest: string;
  readonly baseline: { readonly commit: string; readonly tree: string };
  readonly policy_digest: string;
  readonly trust_digest: string;
  readonly scope_epoch: number;
  readonly work_revision: number;
  readonly issued_at: number;
}

/** The fields of a `run_claim` payload a receipt binds. */
export interface ClaimFacts {
  readonly run: string;
  readonly challenge: string;
  readonly execution: string;
  readonly unit: string;
  readonly stage: string;
  readonly slot: string;
  readonly reviewer_name: string;
  readonly reviewer_sha256: string;
}

/** The fields of a `run_receipt` payload (what the store's tables and the decision read). */
export interface RecordedReceiptFacts {
  readonly run: string;
  readonly challenge: string;
  readonly unit: string;
  readonly receipt: string;
  readonly stage: string;
  readonly slot: string;
  readonly verdict: string;
  readonly has_veto: boolean;
  readonly planning_state_digest: string;
  readonly content_digest: string;
  readonly work_state_digest: string;
  readonly policy_digest: string;
  readonly trust_digest: string;
}

function isoOf(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Names of the fields where the signed predicate (with its receipt id, the payload digest) and the
 * three log entries disagree, in a fixed order; empty when all agree.
 */
export function receiptBindingMismatches(
  receiptId: string,
  p: ReviewReceiptPredicate,
  issue: IssuedChallengeFacts,
  claim: ClaimFacts,
  recorded: RecordedReceiptFacts,
): string[] {
  const checks: [string, unknown, unknown][] = [
    // the run_receipt entry: every column the decision reads
    ['receipt.receipt', recorded.receipt, receiptId],
    ['receipt.run', recorded.run, p.run_id],
    ['receipt.challenge', recorded.challenge, p.challenge_id],
    ['receipt.unit', recorded.unit, p.unit],
    ['receipt.stage', recorded.stage, p.stage],
    ['receipt.slot', recorded.slot, p.slot],
    ['receipt.verdict', recorded.verdict, p.verdict],
    ['receipt.has_veto', recorded.has_veto, p.vetoes.length > 0],
    ['receipt.planning_state_digest', recorded.planning_state_digest, p.planning_state_digest],
    ['receipt.content_digest', recorded.content_digest, p.content_digest],
    ['receipt.work_state_digest', recorded.work_state_digest, p.work_state_digest],
    ['receipt.policy_digest', recorded.policy_digest, p.inputs.policy_digest],
    ['receipt.trust_digest', recorded.trust_digest, p.inputs.trust_digest],
    // the run_claim entry: the run that took the challenge ran this reviewer
    ['claim.run', claim.run, p.run_id],
    ['claim.challenge', claim.challenge, p.challenge_id],
    ['claim.execution', claim.execution, p.execution_id],
    ['claim.unit', claim.unit, p.unit],
    ['claim.stage', claim.stage, p.stage],
    ['claim.slot', claim.slot, p.slot],
    ['claim.reviewer_name', claim.reviewer_name, p.reviewer.name],
    ['claim.reviewer_sha256', claim.reviewer_sha256, p.reviewer.sha256],
    // the challenge_issue entry: the state the challenge froze (docs/contract.md#the-states-a-receipt-is-judged-against)
    ['issue.challenge', issue.challenge, p.challenge_id],
    ['issue.unit', issue.unit, p.unit],
    ['issue.stage', issue.stage, p.stage],
    ['issue.slot', issue.slot, p.slot],
    ['issue.reviewer.name', issue.reviewer.name, p.reviewer.name],
    ['issue.reviewer.sha256', issue.reviewer.sha256, p.reviewer.sha256],
    ['issue.reviewer.interpreter', issue.reviewer.interpreter, p.reviewer.interpreter],
    ['issue.bundle_digest', issue.bundle_digest, p.bundle_digest],
    ['issue.view_digest', issue.view_digest, p.view_digest],
    ['issue.planning_state_digest', issue.planning_state_digest, p.planning_state_digest],
    ['issue.content_digest', issue.content_digest, p.content_digest],
    ['issue.work_state_digest', issue.work_state_digest, p.work_state_digest],
    ['issue.contract_digest', issue.contract_digest, p.inputs.contract_digest],
    ['issue.sources_digest', issue.sources_digest, p.inputs.sources_digest],
    ['issue.workspace_digest', issue.workspace_digest, p.inputs.workspace_digest],
    ['issue.baseline.commit', issue.baseline.commit, p.inputs.baseline.commit],
    ['issue.baseline.tree', issue.baseline.tree, p.inputs.baseline.tree],
    ['issue.policy_digest', issue.policy_digest, p.inputs.policy_digest],
    ['issue.trust_digest', issue.trust_digest, p.inputs.trust_digest],
    ['issue.scope_epoch', issue.scope_epoch, p.inputs.scope_epoch],
    ['issue.work_revision', issue.work_revision, p.inputs.work_revision],
    ['issue.issued_at', isoOf(issue.issued_at), p.times.issued_at],
  ];
  return checks.filter(([, a, b]) => a !== b).map(([name]) => name);
}
