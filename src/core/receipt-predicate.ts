// The review-receipt predicate (docs/formats.md#receipt): its type, its cross-field rules and its
// compiled form. Its one definition is ./receipt-predicate-schema.ts (docs/architecture.md#compiled-formats). Pure.
import { transcriptViolation } from './egress-rules.js';
import { STAGES, FINDING_CODES, FINDING_CLASSES, SEVERITIES, VETO_CLASSES } from './review-vocabulary.js';
import { RECEIPT_PREDICATE, RECEIPT_STATEMENT } from './format/compiled.js';
import { formatOf } from './format/node.js';
import type { Finding, ReceiptStatement, ReviewReceiptPredicate, Separation } from './receipt-predicate-schema.js';
export type { Finding, ReceiptStatement, ReviewReceiptPredicate, Separation } from './receipt-predicate-schema.js';

export const REVIEW_RECEIPT_PREDICATE_TYPE = 'https://governed.dev/review-receipt/v1';

export { STAGES, FINDING_CODES, FINDING_CLASSES, SEVERITIES, VETO_CLASSES };

/** The compiled forms of the predicate and of a whole receipt statement (docs/architecture.md#compiled-formats). */
export const RECEIPT_PREDICATE_FORMAT = /* @__PURE__ */ formatOf<ReviewReceiptPredicate>(RECEIPT_PREDICATE);
export const RECEIPT_STATEMENT_FORMAT = /* @__PURE__ */ formatOf<ReceiptStatement>(RECEIPT_STATEMENT);

/** A finding is a veto when CRITICAL and of class preservation/scope/authority/release (docs/reviewers.md#reviewer-output). */
export function isVeto(f: Finding): boolean {
  return f.severity === 'CRITICAL' && VETO_CLASSES.has(f.class);
}

/** The uids a separated receipt names as governed — root, the daemon's, every attestor's — none of
 * which may be the client's (docs/runnerd.md "Processes and users"). */
export function separationGovernedUids(s: Separation): number[] {
  const a = s.attestor_uids;
  return [0, s.daemon_uid, a.reviewer, a.runner, ...(a.probe === undefined ? [] : [a.probe]), ...(a.log === undefined ? [] : [a.log])];
}

/**
 * Cross-field rules the schema cannot express: CLEAN ⇔ zero findings; vetoes are exactly the
 * veto findings; findings sorted and unique by canonical order (docs/reviewers.md#reviewer-output). Returns the first
 * broken rule's field name, or null.
 */
export function predicateRuleViolation(p: ReviewReceiptPredicate, canonical: (v: unknown) => string): string | null {
  if ((p.verdict === 'CLEAN') !== (p.findings.length === 0)) return 'verdict';
  const keys = p.findings.map((f) => canonical(f));
  for (let i = 1; i < keys.length; i++) if (!((keys[i - 1] as string) < (keys[i] as string))) return 'findings';
  for (const f of p.findings) {
    for (let i = 1; i < f.refs.length; i++) if (!((f.refs[i - 1] as string) < (f.refs[i] as string))) return 'findings.refs';
  }
  const expectedVetoes = p.findings.filter(isVeto).map((f) => canonical(f));
  const vetoes = p.vetoes.map((f) => canonical(f));
  if (expectedVetoes.length !== vetoes.length || expectedVetoes.some((v, i) => v !== vetoes[i])) return 'vetoes';
  // Separated ⇔ the daemon identity is present, and the writer's uid is none of the governed uids.
  if ((p.trust_mode === 'separated') !== (p.separation !== undefined)) return 'separation';
  if (p.separation !== undefined) {
    const s = p.separation;
    if (separationGovernedUids(s).includes(s.client_uid) || s.client_uid === p.sandbox.uid) return 'separation.client_uid';
  }
  const t = p.times;
  if (!(t.issued_at <= t.started_at && t.started_at <= t.finished_at)) return 'times';
  // A check reviewer has no egress; its adapter is the reviewer and it ran on the reviewed snapshot.
  if (p.check !== undefined && (p.egress !== undefined || p.check.snapshot_digest !== p.inputs.workspace_digest || p.check.adapter_sha256 !== p.reviewer.sha256)) return 'check';
  // The egress transcript: the chain re-derived from the records equals the signed head, the
  // totals are their sums, and every record was forwarded (docs/egress.md "Transcript").
  if (p.egress !== undefined) return transcriptViolation(p.egress.transcript);
  return null;
}
