// The pure binding rule of the audit (src/core/audit/receipt-binding.ts): a receipt's signed
// predicate against the three log entries it belongs to. Each shared field, changed alone in one
// entry, is named — and only it; equal entries give no mismatch.
import { describe, expect, it } from 'vitest';
import { receiptBindingMismatches, type ClaimFacts, type IssuedChallengeFacts, type RecordedReceiptFacts } from '../src/core/audit/receipt-binding.js';
import { samplePredicate } from './helpers/receipts.js';

const p = samplePredicate({ verdict: 'DIRTY' });
const RECEIPT_ID = `sha256:${'7'.repeat(64)}`;
const issuedAt = Date.parse(p.times.issued_at) / 1000;

const issue = (): IssuedChallengeFacts => ({
  challenge: p.challenge_id,
  unit: p.unit,
  stage: p.stage,
  slot: p.slot,
  reviewer: { ...p.reviewer },
  bundle_digest: p.bundle_digest,
  view_digest: p.view_digest,
  planning_state_digest: p.planning_state_digest,
  content_digest: p.content_digest,
  work_state_digest: p.work_state_digest,
  contract_digest: p.inputs.contract_digest,
  sources_digest: p.inputs.sources_digest,
  workspace_digest: p.inputs.workspace_digest,
  baseline: { ...p.inputs.baseline },
  policy_digest: p.inputs.policy_digest,
  trust_digest: p.inputs.trust_digest,
  scope_epoch: p.inputs.scope_epoch,
  work_revision: p.inputs.work_revision,
  issued_at: issuedAt,
});
const claim = (): ClaimFacts => ({
  run: p.run_id,
  challenge: p.challenge_id,
  execution: p.execution_id,
  unit: p.unit,
  stage: p.stage,
  slot: p.slot,
  reviewer_name: p.reviewer.name,
  reviewer_sha256: p.reviewer.sha256,
});
const recorded = (): RecordedReceiptFacts => ({
  run: p.run_id,
  challenge: p.challenge_id,
  unit: p.unit,
  receipt: RECEIPT_ID,
  stage: p.stage,
  slot: p.slot,
  verdict: p.verdict,
  has_veto: false,
  planning_state_digest: p.planning_state_digest,
  content_digest: p.content_digest,
  work_state_digest: p.work_state_digest,
  policy_digest: p.inputs.policy_digest,
  trust_digest: p.inputs.trust_digest,
});

const other = (v: unknown): unknown => (typeof v === 'number' ? v + 1 : typeof v === 'boolean' ? !v : `${String(v)}x`);

describe('receiptBindingMismatches', () => {
  it('equal entries: no mismatch', () => {
    expect(receiptBindingMismatches(RECEIPT_ID, p, issue(), claim(), recorded())).toEqual([]);
  });

  const cases: [string, string][] = [
    ...Object.keys(recorded()).map((k) => ['receipt', k] as [string, string]),
    ...Object.keys(claim()).map((k) => ['claim', k] as [string, string]),
    ...Object.keys(issue()).flatMap((k) =>
      k === 'reviewer' ? ['name', 'sha256', 'interpreter'].map((s) => ['issue', `reviewer.${s}`] as [string, string])
      : k === 'baseline' ? ['commit', 'tree'].map((s) => ['issue', `baseline.${s}`] as [string, string])
      : [['issue', k] as [string, string]],
    ),
  ];

  it.each(cases)('%s.%s changed alone is named alone', (entry, field) => {
    const i = issue() as unknown as Record<string, Record<string, unknown>>;
    const c = claim() as unknown as Record<string, unknown>;
    const r = recorded() as unknown as Record<string, unknown>;
    const target = entry === 'issue' ? (i as Record<string, unknown>) : entry === 'claim' ? c : r;
    const [head, sub] = field.split('.') as [string, string | undefined];
    if (sub === undefined) target[head] = other(target[head]);
    else (target[head] as Record<string, unknown>)[sub] = other((target[head] as Record<string, unknown>)[sub]);
    const names = receiptBindingMismatches(RECEIPT_ID, p, i as unknown as IssuedChallengeFacts, c as unknown as ClaimFacts, r as unknown as RecordedReceiptFacts);
    expect(names).toEqual([`${entry}.${field}`]);
  });

  it('a veto in the signed predicate with has_veto false is named', () => {
    const withVeto = samplePredicate({
      verdict: 'DIRTY',
      findings: [{ code: 'scope_narrowed', class: 'scope', severity: 'critical', refs: ['REQ-1'] }] as never,
      vetoes: [{ code: 'scope_narrowed', class: 'scope', severity: 'critical', refs: ['REQ-1'] }] as never,
    });
    expect(receiptBindingMismatches(RECEIPT_ID, withVeto, issue(), claim(), recorded())).toEqual(['receipt.has_veto']);
  });
});
