// Round 1 of simple-review: the reviewer pair and its outputs (simple-review.txt "Reviewer Pair",
// "Failure Handling", "One-Pass Workflow" step 3, "Reviewer Prompt Contract").
import { fail } from '../../core/errors.js';
import { checkFindingContract, type ContractCheck } from './finding-contract.js';
import type { ReviewerRound, SimpleFinding, SimpleRound1 } from './schema.js';

/** Seed: "retry the same selected slot at most twice". */
export const MAX_RETRIES = 2;

export interface IndexedFinding {
  readonly finding: SimpleFinding;
  readonly slot: string;
  readonly contract: ContractCheck;
  /** The other reviewer's finding the lead cross-referenced as the same issue, if any. */
  readonly same_issue_as: string | null;
}

export interface Round1 {
  readonly pair: readonly [string, string];
  readonly reviewers: ReadonlyMap<string, ReviewerRound>;
  /** Every finding by id, in reviewer-pair order then reviewer order. */
  readonly findings: ReadonlyMap<string, IndexedFinding>;
}

/** Seed: "Require exactly two user-confirmed, distinct reviewer slots ... Reject duplicate slots and one- or three-slot selections." */
export function assertReviewerPair(pair: readonly string[]): asserts pair is readonly [string, string] {
  if (pair.length !== 2) fail('simple_reviewer_pair_not_two', ['pair']);
  if (pair[0] === pair[1]) fail('simple_reviewer_pair_duplicate', ['pair']);
}

export function indexRound1(input: SimpleRound1): Round1 {
  assertReviewerPair(input.pair);
  const pair = input.pair;
  const reviewers = new Map<string, ReviewerRound>();
  for (const r of input.reviewers) {
    // "never substitute an unselected slot or duplicate the survivor".
    if (!pair.includes(r.slot)) fail('simple_reviewer_unknown', [r.slot]);
    if (reviewers.has(r.slot)) fail('simple_input_invalid', ['reviewers', r.slot]);
    if (r.retries > MAX_RETRIES) fail('simple_retry_limit_exceeded', [r.slot]);
    // A reviewer that failed after its retries contributes no findings (single-reviewer evidence).
    if (r.status === 'failed' && r.findings.length > 0) fail('simple_input_invalid', ['reviewers', r.slot, 'findings']);
    reviewers.set(r.slot, r);
  }
  for (const s of pair) if (!reviewers.has(s)) fail('simple_input_invalid', ['reviewers', s]);

  const findings = new Map<string, IndexedFinding>();
  for (const s of pair) {
    const r = reviewers.get(s) as ReviewerRound;
    for (const f of r.findings) {
      // Seed step 3: "verify that every finding has a unique stable id such as R1-CLAUDE-001".
      if (!f.finding_id.startsWith(`${r.finding_id_prefix}-`)) fail('simple_finding_id_prefix_mismatch', [f.finding_id]);
      if (findings.has(f.finding_id)) fail('simple_finding_id_duplicate', [f.finding_id]);
      findings.set(f.finding_id, { finding: f, slot: s, contract: checkFindingContract(f), same_issue_as: null });
    }
  }
  // Same-issue links: one finding of each reviewer, each finding in at most one link.
  for (const link of input.same_issue) {
    const a = findings.get(link.a);
    const b = findings.get(link.b);
    if (a === undefined || b === undefined) fail('simple_lead_reference_unknown', [a === undefined ? link.a : link.b]);
    if (a.slot === b.slot || a.same_issue_as !== null || b.same_issue_as !== null) fail('simple_pair_link_invalid', [link.a, link.b]);
    findings.set(link.a, { ...a, same_issue_as: link.b });
    findings.set(link.b, { ...b, same_issue_as: link.a });
  }
  for (const fid of input.material_disagreements) if (!findings.has(fid)) fail('simple_lead_reference_unknown', [fid]);
  return { pair, reviewers, findings };
}
