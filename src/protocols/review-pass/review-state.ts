// The review-pass round loop as a pure reducer (docs/review-pass-protocol.md#the-round-loop loop algorithm, docs/review-pass-protocol.md#convergence-thresholds, docs/review-pass-protocol.md#budget-guard, docs/review-pass-protocol.md#graceful-degradation,
// docs/review-pass-protocol.md#invalidation, docs/review-pass-protocol.md#req-id-coverage, docs/review-pass-protocol.md#delivery-state). The orchestrator (with I/O) only feeds rounds in:
//
//   let s = startReview(config, now);
//   while (s.status === 'RUNNING') {
//     s = checkBudget(s, now()).state;          // docs/review-pass-protocol.md#budget-guard check at the top of the loop
//     if (s.status !== 'RUNNING') break;
//     runs = run every slot; adj = adjudicateRound(roundContext(s), runs, files)   // optional preview
//     resolutions = arbitrate / ask the user about adj's CONTESTED groups
//     ({ state: s } = recordRound(s, { runs, files, evidence, resolutions }, now()));
//   }
//   reviewResult(s) → report
//
// Differences from the seed's loop, each stricter:
//   - The orchestrator never edits code (docs/review-pass.md#review-protocols): there is no FIXED step. A round with CONFIRMED
//     findings, an unresolved CONTESTED group, a VETO, an uncovered REQ-ID or missing evidence ends the
//     review NOT_CLEAN; re-running on the same content cannot legitimately change that (docs/decision.md#the-rules-in-short: a
//     re-run must not bury a DIRTY verdict). Re-review after the code changed is a new review.
//   - Budget exhaustion (rounds or time) is NOT_CLEAN, never partial clean (docs/contract.md#validation-rules end, docs/review-pass.md#exit-codes); a round
//     that finishes after the time budget is adjudicated (its vetoes are reported) but cannot converge.
import * as z from 'zod/mini';
import { int, list, str } from '../../core/schema-primitives.js';
import { fail } from '../../core/errors.js';
import type { PROTOCOLS_REVIEW_PASS_REASONS } from '../../core/error-codes/protocols-review-pass.js';
import { adjudicateRound, type ClassifiedGroup, type ReqCoverageLine, type RoundAdjudication } from './adjudicate-round.js';
import { makeKnownIssue, type KnownIssue } from './known-issues.js';
import { normalizeConfig, type ReviewPassConfig } from './stage-profile.js';

export type NotCleanReason = keyof typeof PROTOCOLS_REVIEW_PASS_REASONS;
export type ReviewStatus = 'RUNNING' | 'CONVERGED' | 'NOT_CLEAN';

/** Defined once in zod/mini (src/core/review-pass-result.ts). */
export type { GroupSummary, RoundLogEntry } from '../../core/review-pass-result.js';
import type { GroupSummary, RoundLogEntry } from '../../core/review-pass-result.js';
import { ID_FIELD_MAX_CHARS, REVIEW_STATE_MAX_PROBES, REVIEW_STATE_MAX_RESOLUTIONS } from '../../core/limits.js';


export interface LastRound {
  readonly groups: readonly GroupSummary[];
  readonly req_coverage: readonly ReqCoverageLine[];
}

export interface ReviewState {
  readonly config: ReviewPassConfig;
  readonly started_at: number;
  readonly last_time: number;
  readonly status: ReviewStatus;
  readonly reasons: readonly NotCleanReason[];
  readonly next_round: number;
  readonly consecutive_clean: number;
  readonly convergence_threshold: number;
  readonly known_issues: readonly KnownIssue[];
  readonly seen_execution_ids: readonly string[];
  readonly log: readonly RoundLogEntry[];
  readonly warnings: readonly string[];
  readonly resolved: { readonly by_arbiter: number; readonly by_user: number };
  readonly last_round: LastRound | null;
}

export type Decision =
  | { readonly kind: 'CONVERGED' }
  | { readonly kind: 'CONTINUE'; readonly next_round: number }
  | { readonly kind: 'NOT_CLEAN'; readonly reasons: readonly NotCleanReason[] };

export interface Transition {
  readonly state: ReviewState;
  readonly decision: Decision;
}

const ResolutionSchema = z.strictObject({
  group_id: str({ min: 1, max: ID_FIELD_MAX_CHARS }),
  decision: z.enum(['FIX', 'DISMISS']),
  by: z.enum(['arbiter', 'user']),
});
export type Resolution = z.infer<typeof ResolutionSchema>;

const EvidenceSchema = z
  .strictObject({
    mandatory_inputs_valid: z.boolean(),
    probes_passed: int(0, REVIEW_STATE_MAX_PROBES),
    probes_total: int(0, REVIEW_STATE_MAX_PROBES),
  })
  .check(z.refine((e) => e.probes_passed <= e.probes_total));

export interface RoundInput {
  /** One entry per configured slot (status timeout/failed when it did not answer). */
  readonly runs: unknown;
  /** Current text of every file a known issue or a finding names (null: deleted/unreadable). */
  readonly files: Readonly<Record<string, string | null>>;
  /** docs/review-pass-protocol.md#clean-conditions. */
  readonly evidence: z.input<typeof EvidenceSchema>;
  /** Arbiter / user decisions for this round's CONTESTED groups (docs/review-pass-protocol.md#arbiter-decisions, docs/review-pass-protocol.md#the-round-loop step 6). */
  readonly resolutions?: readonly Resolution[];
}

const clockOk = (t: number): boolean => Number.isSafeInteger(t) && t >= 0;

function uniqueSorted<T extends string>(xs: readonly T[]): T[] {
  return [...new Set(xs)].sort();
}

/** Start a review. Planning/integration without the preflight inputs starts (and ends) NOT_CLEAN. */
export function startReview(configInput: unknown, now: number): ReviewState {
  const config = normalizeConfig(configInput);
  if (!clockOk(now)) fail('review_pass_clock_invalid', ['now']);
  const missing = !config.preflight_ok;
  return {
    config,
    started_at: now,
    last_time: now,
    status: missing ? 'NOT_CLEAN' : 'RUNNING',
    reasons: missing ? ['review_pass_mandatory_inputs_missing'] : [],
    next_round: 1,
    consecutive_clean: 0,
    convergence_threshold: config.convergence,
    known_issues: [],
    seen_execution_ids: [],
    log: [],
    warnings: [...config.warnings],
    resolved: { by_arbiter: 0, by_user: 0 },
    last_round: null,
  };
}

function advanceClock(state: ReviewState, now: number): void {
  if (!clockOk(now) || now < state.last_time) fail('review_pass_clock_invalid', ['now']);
}

/** docs/review-pass-protocol.md#budget-guard "pass_number > max_rounds or elapsed > max_total_time_min": both hard limits. */
function budgetReasons(state: ReviewState, now: number): NotCleanReason[] {
  const reasons: NotCleanReason[] = [];
  if (state.next_round > state.config.max_rounds) reasons.push('review_pass_budget_rounds');
  if (now - state.started_at > state.config.max_total_time_ms) reasons.push('review_pass_budget_time');
  return reasons;
}

/** The loop-top budget check (docs/review-pass-protocol.md#budget-guard). Call before launching a round. */
export function checkBudget(state: ReviewState, now: number): Transition {
  if (state.status !== 'RUNNING') return { state, decision: decisionOf(state) };
  advanceClock(state, now);
  const reasons = budgetReasons(state, now);
  if (reasons.length === 0) return { state: { ...state, last_time: now }, decision: { kind: 'CONTINUE', next_round: state.next_round } };
  const next: ReviewState = { ...state, last_time: now, status: 'NOT_CLEAN', reasons: uniqueSorted(reasons) };
  return { state: next, decision: decisionOf(next) };
}

function decisionOf(state: ReviewState): Decision {
  if (state.status === 'CONVERGED') return { kind: 'CONVERGED' };
  if (state.status === 'NOT_CLEAN') return { kind: 'NOT_CLEAN', reasons: state.reasons };
  return { kind: 'CONTINUE', next_round: state.next_round };
}

/**
 * Governed mode (docs/review-pass.md#review-protocols) only: end a RUNNING review NOT_CLEAN (`review_pass_halted`) when the
 * orchestrator has to stop for a reason outside the rounds' outputs — a DIRTY receipt or an ABORTED
 * run blocks its slot on this content until the content changes or an authority dismisses it
 * (docs/decision.md#the-rules-in-short), so more rounds on the same content could never converge; or the policy's run budget
 * (`max_runs_per_content`, docs/reviewers.md#reviewer-output) refused a challenge. The orchestrator reports its own reason
 * codes beside this one. Never a clean ending, never a partial clean.
 */
export function haltReview(state: ReviewState, now: number): Transition {
  if (state.status !== 'RUNNING') fail('review_pass_state_terminal', [`round:${state.next_round}`]);
  if (state.config.mode !== 'governed') fail('review_pass_config_invalid', ['mode']);
  advanceClock(state, now);
  const next: ReviewState = { ...state, last_time: now, status: 'NOT_CLEAN', reasons: uniqueSorted([...state.reasons, 'review_pass_halted']) };
  return { state: next, decision: decisionOf(next) };
}

/** The context `adjudicateRound` needs for the state's next round (for the orchestrator's preview). */
export function roundContext(state: ReviewState): Parameters<typeof adjudicateRound>[0] {
  return {
    config: state.config,
    round: state.next_round,
    convergence_threshold: state.convergence_threshold,
    known_issues: state.known_issues,
    seen_execution_ids: state.seen_execution_ids,
  };
}

function summarize(cg: ClassifiedGroup, resolution: GroupSummary['resolution']): GroupSummary {
  const r = cg.group.representative;
  return {
    id: cg.group.id,
    classification: cg.classification,
    file: r.file,
    line: r.line,
    symbol: r.symbol,
    severity: cg.group.severity,
    finding_class: cg.group.finding_class,
    req_id: r.req_id,
    description: r.description,
    supporters: cg.group.supporters,
    low_confidence: cg.low_confidence,
    class_missing: cg.group.class_missing,
    resolution,
  };
}

/** Validate resolutions against the round's groups (docs/review-pass-protocol.md#arbiter-decisions: vetoes never enter arbitration). */
function applyResolutions(
  state: ReviewState,
  adj: RoundAdjudication,
  input: readonly unknown[],
): Map<string, Resolution> {
  const parsed = list(ResolutionSchema, 0, REVIEW_STATE_MAX_RESOLUTIONS).safeParse(input);
  if (!parsed.success) fail('review_pass_resolution_invalid', ['resolutions']);
  const out = new Map<string, Resolution>();
  if (parsed.data.length > 0 && state.config.mode === 'governed') {
    // docs/decision.md#the-rules-in-short: in governed mode only a signed `dismiss` authority lifts a DIRTY verdict.
    fail('review_pass_resolution_invalid', ['resolutions']);
  }
  for (const res of parsed.data) {
    const cg = adj.groups.find((g) => g.group.id === res.group_id);
    if (cg?.classification === 'VETO') fail('review_pass_veto_not_arbitrable', [res.group_id]);
    if (cg === undefined || cg.classification !== 'CONTESTED' || out.has(res.group_id)) {
      fail('review_pass_resolution_invalid', [res.group_id]);
    }
    if (res.by === 'arbiter' && state.config.arbiter === null) fail('review_pass_resolution_invalid', ['by']);
    out.set(res.group_id, res);
  }
  return out;
}

function detailsOf(counts: RoundLogEntry['counts'], result: 'CLEAN' | 'NOT_CLEAN', converged: boolean): string {
  if (result === 'CLEAN') return converged ? 'Converged' : '—';
  const parts: string[] = [];
  if (counts.vetoes > 0) parts.push(`${counts.vetoes} veto${counts.vetoes === 1 ? '' : 'es'}`);
  if (counts.confirmed > 0) parts.push(`${counts.confirmed} confirmed`);
  if (counts.contested_unresolved > 0) parts.push(`${counts.contested_unresolved} contested unresolved`);
  return parts.length > 0 ? parts.join(', ') : 'unresolved or missing evidence';
}

/** Known issues after a round (docs/review-pass-protocol.md#known-issues): the valid ones kept, this round's DISMISSED groups added with their hash; resolutions counted by who made them. */
function knownIssuesAfter(adj: RoundAdjudication, resolutions: ReadonlyMap<string, Resolution>, files: RoundInput['files'], round: number) {
  const known: KnownIssue[] = [...adj.known_kept];
  let resolvedArbiter = 0;
  let resolvedUser = 0;
  for (const res of resolutions.values()) {
    if (res.by === 'arbiter') resolvedArbiter++;
    else resolvedUser++;
    if (res.decision !== 'DISMISS') continue;
    const cg = adj.groups.find((g) => g.group.id === res.group_id) as ClassifiedGroup;
    for (const m of cg.group.members) {
      const text = Object.prototype.hasOwnProperty.call(files, m.file) ? files[m.file] : null;
      const k = makeKnownIssue(m, text, round);
      if (k !== null) known.push(k);
    }
  }
  return { known, resolvedArbiter, resolvedUser };
}

/** The round's counts by classification (docs/review-pass-protocol.md#classification), as the round log records them. */
function roundCounts(adj: RoundAdjudication, summaries: readonly GroupSummary[]): RoundLogEntry['counts'] {
  return {
    confirmed: summaries.filter(
      (g) => g.classification === 'CONFIRMED' || (g.classification === 'CONTESTED' && g.resolution?.decision === 'FIX'),
    ).length,
    contested: summaries.filter((g) => g.classification === 'CONTESTED').length,
    contested_unresolved: summaries.filter((g) => g.classification === 'CONTESTED' && g.resolution === null).length,
    auto_dismissed: summaries.filter((g) => g.classification === 'AUTO_DISMISSED').length,
    vetoes: summaries.filter((g) => g.classification === 'VETO').length,
    suppressed: adj.suppressed,
    known_issues_invalidated: adj.known_removed.length,
    rejected_findings: adj.outputs.reduce((n, o) => n + o.rejected_findings, 0),
    downgraded_findings: adj.outputs.reduce((n, o) => n + o.downgraded_findings, 0),
  };
}

/** Why a round is not clean (docs/review-pass-protocol.md#clean-conditions; docs/review-pass-protocol.md#graceful-degradation structural failures; docs/review-pass-protocol.md#req-id-coverage); empty: CLEAN. */
function notCleanReasons(adj: RoundAdjudication, counts: RoundLogEntry['counts'], evidence: z.output<typeof EvidenceSchema>): NotCleanReason[] {
  const mandatoryOk = evidence.mandatory_inputs_valid && evidence.probes_passed === evidence.probes_total;
  const uncovered = adj.req_coverage.some((c) => c.status === 'NOT_FOUND');
  const reasons: NotCleanReason[] = [];
  if (adj.degradation.failure !== null) reasons.push(adj.degradation.failure);
  if (counts.vetoes > 0) reasons.push('review_pass_veto');
  if (counts.confirmed > 0) reasons.push('review_pass_confirmed_findings');
  if (counts.contested_unresolved > 0) reasons.push('review_pass_contested_unresolved');
  if (uncovered) reasons.push('review_pass_req_uncovered');
  if (!mandatoryOk) reasons.push('review_pass_missing_evidence');
  return reasons;
}

/** The loop's next status (docs/review-pass-protocol.md#the-round-loop): NOT_CLEAN ends it, convergence ends it, else the docs/review-pass-protocol.md#budget-guard hard limits for the next iteration. */
function statusAfter(
  state: ReviewState,
  reasons: readonly NotCleanReason[],
  converged: boolean,
  timeOver: boolean,
  nextRound: number,
): { status: ReviewStatus; finalReasons: NotCleanReason[] } {
  let status: ReviewStatus = 'RUNNING';
  let finalReasons: NotCleanReason[] = [];
  if (reasons.length > 0) {
    status = 'NOT_CLEAN';
    finalReasons = [...reasons];
    if (timeOver) finalReasons.push('review_pass_budget_time');
  } else if (converged) {
    status = 'CONVERGED';
  } else {
    if (nextRound > state.config.max_rounds) finalReasons.push('review_pass_budget_rounds');
    if (timeOver) finalReasons.push('review_pass_budget_time');
    if (finalReasons.length > 0) status = 'NOT_CLEAN';
  }
  return { status, finalReasons };
}

/** Record one round; returns the next state and the convergence decision. */
export function recordRound(state: ReviewState, input: RoundInput, now: number): Transition {
  if (state.status !== 'RUNNING') fail('review_pass_state_terminal', [`round:${state.next_round}`]);
  advanceClock(state, now);
  const evidence = EvidenceSchema.safeParse(input.evidence);
  if (!evidence.success) fail('review_pass_round_invalid', ['evidence']);
  const adj = adjudicateRound(roundContext(state), input.runs, input.files);
  const resolutions = applyResolutions(state, adj, input.resolutions ?? []);
  const round = state.next_round;
  const runIds = (input.runs as Array<{ execution_id: string }>).map((r) => r.execution_id);
  const { known, resolvedArbiter, resolvedUser } = knownIssuesAfter(adj, resolutions, input.files, round);
  const summaries = adj.groups.map((g) => summarize(g, resolutions.get(g.group.id) ?? null));
  const counts = roundCounts(adj, summaries);
  const reasons = notCleanReasons(adj, counts, evidence.data);
  const result: 'CLEAN' | 'NOT_CLEAN' = reasons.length === 0 ? 'CLEAN' : 'NOT_CLEAN';
  const consecutive = result === 'CLEAN' ? state.consecutive_clean + 1 : 0;
  const threshold = adj.degradation.convergence_threshold;

  const timeOver = now - state.started_at > state.config.max_total_time_ms;
  const converged = result === 'CLEAN' && consecutive >= threshold && !timeOver;
  const entry: RoundLogEntry = {
    round,
    time: now,
    lens: state.config.role_stage ? 'roles' : state.config.lenses.join(', '),
    result,
    reasons: uniqueSorted(reasons),
    details: detailsOf(counts, result, converged),
    r: adj.degradation.r,
    reviewers_available: adj.degradation.available,
    reviewers_unavailable: adj.degradation.unavailable,
    counts,
    health: adj.health,
    agreement: adj.agreement,
    probes: { passed: evidence.data.probes_passed, total: evidence.data.probes_total },
  };
  const lowWarnings = adj.health.filter((h) => h.low).map((h) => `low_health:${h.reviewer}`);
  const nextRound = round + 1;
  const { status, finalReasons } = statusAfter(state, reasons, converged, timeOver, nextRound);

  const next: ReviewState = {
    ...state,
    last_time: now,
    status,
    reasons: uniqueSorted(finalReasons),
    next_round: nextRound,
    consecutive_clean: consecutive,
    convergence_threshold: threshold,
    known_issues: known,
    seen_execution_ids: uniqueSorted([...state.seen_execution_ids, ...runIds]),
    log: [...state.log, entry],
    warnings: uniqueSorted([...state.warnings, ...adj.degradation.warnings, ...lowWarnings]),
    resolved: {
      by_arbiter: state.resolved.by_arbiter + resolvedArbiter,
      by_user: state.resolved.by_user + resolvedUser,
    },
    last_round: { groups: summaries, req_coverage: adj.req_coverage },
  };
  return { state: next, decision: decisionOf(next) };
}
