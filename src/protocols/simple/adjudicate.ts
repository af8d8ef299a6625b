// simple-review adjudication (simple-review.txt "One-Pass Workflow" step 5: "finalize evidence
// classifications. Do not apply fixes, start a second review round, or silently escalate.").
import { fail } from '../../core/errors.js';
import { parseOrFail } from '../two-pass/parse-or-fail.js';
import { classifyFinding, type SimpleStatus, type StatusReason } from './classify.js';
import { reviewerCoverage, type ReviewerCoverage } from './coverage.js';
import type { Deficiency } from './finding-contract.js';
import { recommend, type Recommendation } from './recommend.js';
import { collectRebuttals, rebuttalBatches, type RebuttalBatches, type RebuttalVerdict } from './rebuttal.js';
import { indexRound1, type IndexedFinding, type Round1 } from './round1.js';
import {
  SimpleInputSchema, severityIndex, type DecisionImpact, type LeadCheck, type SimpleFinding, type SimpleInput, type SimpleSeverity,
} from './schema.js';

export interface SimpleFindingResult {
  readonly finding_id: string;
  readonly reviewer: string;
  readonly finding: SimpleFinding;
  readonly contract: 'complete' | 'downgraded' | 'rejected';
  readonly deficiencies: readonly Deficiency[];
  /** REJECTED_INCOMPLETE: the finding contract rule rejected it; it is listed, never adjudicated. */
  readonly status: SimpleStatus | 'REJECTED_INCOMPLETE';
  readonly reason: StatusReason | null;
  readonly reported_severity: SimpleSeverity;
  readonly final_severity: SimpleSeverity;
  readonly limited_evidence: boolean;
  readonly same_issue_as: string | null;
  readonly challenged_by: string | null;
  readonly rebuttal: RebuttalVerdict | null;
  readonly lead_check: LeadCheck | null;
  readonly decision_impact: { readonly reviewer: DecisionImpact; readonly lead: DecisionImpact | null; readonly final: DecisionImpact };
}

export interface SimpleReviewerResult {
  readonly slot: string;
  readonly session_ids: readonly string[];
  readonly retries: number;
  readonly status: 'completed' | 'failed';
  readonly coverage: ReviewerCoverage;
  readonly reviewed_paths: readonly string[];
  readonly unreadable_paths: readonly string[];
  readonly restricted_steps: readonly string[];
  readonly rebuttal: 'completed' | 'failed' | 'not_requested' | 'missing';
  readonly shutdown: boolean;
}

export interface SimpleResult {
  readonly protocol: 'simple';
  readonly invocation_id: string;
  readonly review_type: string;
  readonly baseline: string;
  readonly scope_paths: readonly string[];
  readonly pair: readonly [string, string];
  /** Both selected slots completed round 1 (no downgraded single-reviewer evidence). */
  readonly heterogeneity_intact: boolean;
  readonly reviewers: readonly SimpleReviewerResult[];
  /** By final severity (CRITICAL first), then status, then finding_id. */
  readonly findings: readonly SimpleFindingResult[];
  readonly rebuttal_batches: Readonly<Record<string, readonly string[]>>;
  readonly recommendation: Recommendation;
  readonly recommendation_because: readonly string[];
  readonly next_choices: readonly ['accept', 'request_fixes', 'start_deep_review'];
  readonly final_decision: 'USER_DECISION_REQUIRED';
  readonly rounds: { readonly review: 1; readonly rebuttal: 1 };
  readonly fix_loop: false;
  readonly cache_cleanup: 'not_used' | 'removed' | 'failed';
}

const STATUS_ORDER = ['ACCEPTED', 'UNVERIFIED', 'REBUTTED', 'REJECTED_INCOMPLETE'] as const;

/** The lead's checks and impact validations (docs/review-pass.md#review-protocols, simple), each naming a round-1 finding at most once. */
function leadInputs(input: SimpleInput, round1: Round1): { leadChecks: Map<string, LeadCheck>; impacts: Map<string, DecisionImpact> } {
  const leadChecks = new Map<string, LeadCheck>();
  for (const c of input.lead_checks) {
    if (!round1.findings.has(c.finding_id)) fail('simple_lead_reference_unknown', [c.finding_id]);
    if (leadChecks.has(c.finding_id)) fail('simple_input_invalid', ['lead_checks', c.finding_id]);
    leadChecks.set(c.finding_id, c);
  }
  const impacts = new Map<string, DecisionImpact>();
  for (const v of input.impact_validation) {
    if (!round1.findings.has(v.finding_id)) fail('simple_lead_reference_unknown', [v.finding_id]);
    if (impacts.has(v.finding_id)) fail('simple_input_invalid', ['impact_validation', v.finding_id]);
    impacts.set(v.finding_id, v.decision_impact);
  }
  return { leadChecks, impacts };
}

/** Every round-1 finding classified (docs/review-pass.md#review-protocols, simple): ACCEPTED / REBUTTED / UNVERIFIED, or listed as REJECTED_INCOMPLETE; by final severity, status, id. */
function findingResults(
  round1: Round1,
  batches: RebuttalBatches,
  verdicts: ReadonlyMap<string, RebuttalVerdict>,
  leadChecks: ReadonlyMap<string, LeadCheck>,
  impacts: ReadonlyMap<string, DecisionImpact>,
): SimpleFindingResult[] {
  const challengerOf = new Map<string, string>();
  for (const [slot, ids] of batches) for (const fid of ids) challengerOf.set(fid, slot);

  const findings: SimpleFindingResult[] = [];
  for (const [fid, f] of round1.findings) {
    const partner: IndexedFinding | null = f.same_issue_as === null ? null : (round1.findings.get(f.same_issue_as) ?? null);
    const lead = impacts.get(fid) ?? null;
    const base = {
      finding_id: fid, reviewer: f.slot, finding: f.finding, contract: f.contract.disposition,
      deficiencies: f.contract.deficiencies, reported_severity: f.finding.severity, limited_evidence: f.contract.limited_evidence,
      same_issue_as: f.same_issue_as, challenged_by: challengerOf.get(fid) ?? null,
      decision_impact: { reviewer: f.finding.decision_impact, lead, final: lead ?? f.finding.decision_impact },
    };
    if (f.contract.disposition === 'rejected') {
      findings.push({ ...base, status: 'REJECTED_INCOMPLETE', reason: null, final_severity: f.contract.severity, rebuttal: null, lead_check: leadChecks.get(fid) ?? null });
      continue;
    }
    const c = classifyFinding(f, partner, verdicts, leadChecks);
    findings.push({ ...base, status: c.status, reason: c.reason, final_severity: c.final_severity, rebuttal: c.rebuttal, lead_check: c.lead_check });
  }
  findings.sort(
    (a, b) =>
      severityIndex(a.final_severity) - severityIndex(b.final_severity) ||
      STATUS_ORDER.indexOf(a.status) - STATUS_ORDER.indexOf(b.status) ||
      (a.finding_id < b.finding_id ? -1 : a.finding_id > b.finding_id ? 1 : 0),
  );
  return findings;
}

export function adjudicateSimple(value: unknown): SimpleResult {
  const input = parseOrFail(SimpleInputSchema, value, 'simple_input_invalid');
  const round1 = indexRound1(input);
  const batches = rebuttalBatches(round1, input.material_disagreements);
  const { verdicts, completed } = collectRebuttals(round1, batches, input.rebuttals);
  const { leadChecks, impacts } = leadInputs(input, round1);
  const findings = findingResults(round1, batches, verdicts, leadChecks, impacts);

  const reviewers = round1.pair.map((slot): SimpleReviewerResult => {
    const r = round1.reviewers.get(slot);
    if (r === undefined) return fail('simple_input_invalid', ['reviewers', slot]);
    const batch = batches.get(slot) ?? [];
    const rb = input.rebuttals.find((x) => x.slot === slot);
    return {
      slot, session_ids: r.session_ids, retries: r.retries, status: r.status,
      coverage: reviewerCoverage(r, input.scope_paths),
      reviewed_paths: r.reviewed_paths, unreadable_paths: r.unreadable_paths, restricted_steps: r.restricted_steps,
      rebuttal: completed.has(slot) ? 'completed' : rb?.status === 'failed' ? 'failed' : batch.length === 0 ? 'not_requested' : 'missing',
      shutdown: r.shutdown,
    };
  });
  const rec = recommend(
    reviewers.map((r) => r.coverage),
    findings.map((f) => ({ ...f, decision_impact: f.decision_impact.final })),
  );

  return {
    protocol: 'simple',
    invocation_id: input.invocation_id,
    review_type: input.review_type,
    baseline: input.baseline,
    scope_paths: input.scope_paths,
    pair: round1.pair,
    heterogeneity_intact: reviewers.every((r) => r.status === 'completed'),
    reviewers,
    findings,
    rebuttal_batches: Object.fromEntries(batches),
    recommendation: rec.recommendation,
    recommendation_because: rec.because,
    next_choices: ['accept', 'request_fixes', 'start_deep_review'],
    final_decision: 'USER_DECISION_REQUIRED',
    rounds: { review: 1, rebuttal: 1 },
    fix_loop: false,
    cache_cleanup: input.cache_cleanup,
  };
}
