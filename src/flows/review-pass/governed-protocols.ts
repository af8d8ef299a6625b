// The protocols of governed mode (docs/review-pass.md#review-protocols): the SAME pure engines as non-governed mode, fed with the
// receipts' opaque findings {code, class, severity, refs} instead of reviewer text.
//   - review-pass (docs/review-pass-protocol.md#rounds-and-convergence): the engine's round reducer with `mode: 'governed'`.
//     Each run becomes a `governed`-strategy run (parseGovernedReviewerOutput: findings match iff
//     code and sorted refs are equal); an ABORTED run is a failed run (the engine degrades, docs/review-pass-protocol.md#graceful-degradation); the
//     slots are the policy's, the convergence threshold is the policy's streak, the budget guard is
//     the seed's (docs/review-pass-protocol.md#budget-guard). The orchestrator halts the engine (haltReview) when a slot is blocked or the
//     run budget is spent (governed-run.ts). Rendered by the engine's JSON and Markdown renderers.
//   - weave (weave-review.txt Phase 4): one synthesis per round, lanes = the policy's slots; issues
//     are the findings grouped by code and refs (groupFindings); a lane that did not report an
//     issue is silent (lanes are independent: nobody dissents); the blind labels come from fresh
//     random bytes. The policy streak of clean rounds is the convergence: a round is clean when
//     every lane answered and no finding was reported. The report is the last round's synthesis
//     (every earlier round was clean, or the loop would have stopped).
// Where a seed field has no governed counterpart (free text, file, line, recommendation) the
// value says so instead of inventing one (docs/review-pass.md "Governed mode: how the seed fields map").
import { randomBytes } from 'node:crypto';
import { fail, isGovernedError, type ReasonCode } from '../../core/errors.js';
import {
  checkBudget,
  DEFAULT_MAX_ROUNDS,
  groupFindings,
  haltReview,
  isRoleStage,
  parseGovernedReviewerOutput,
  recordRound,
  renderReviewPassJson,
  renderReviewPassMarkdown,
  reviewResult,
  startReview,
  type AdjudicableFinding,
  type ReviewState,
  type Severity,
  type Stage,
} from '../../protocols/review-pass/index.js';
import { adjudicateWeave, renderWeaveJson, renderWeaveMarkdown, type WeaveLane, type WeaveResult, type WeaveSeverity } from '../../protocols/weave/index.js';
import { incompleteJson, incompleteMarkdown, type IncompleteInput } from './incomplete.js';
import type { GovernedFinding, GovernedRunRecord, GovernedStopReason } from './governed-run.js';

/** The engine's result for the governed section to extend. */
export interface ProtocolResult {
  readonly result: 'CLEAN' | 'NOT_CLEAN';
  readonly reasons: readonly string[];
  readonly result_json: string;
  readonly report_md: string;
  /** Counts safe to print on stdout (no reviewer text exists in governed mode anyway). */
  readonly counts: Readonly<Record<string, number>>;
}

export interface GovernedDriver {
  /** True while the protocol wants another round. */
  running(): boolean;
  /** The engine's loop-top budget guard (docs/review-pass-protocol.md#budget-guard). */
  beforeRound(): void;
  /** A complete round: one run per slot, in slot order. */
  recordRound(runs: readonly GovernedRunRecord[]): void;
  /** Stop before convergence (blocked slot or run budget): never a clean ending. */
  halt(): void;
  finish(governed: readonly GovernedStopReason[]): ProtocolResult;
}

/** Wording for values the receipts do not carry (docs/reviewers.md#reviewer-output: codes and IDs, never text). */
export const NO_RECOMMENDATION = 'not given: a governed receipt carries finding codes and refs only, never a recommendation (docs/reviewers.md#reviewer-output)';
export const OPAQUE_VERIFICATION_NOTE =
  'opaque governed finding: the orchestrator cannot check the claim itself; the run that made it is bound by its signed receipt';

/** The receipt fields the review-pass engine adjudicates (its governed adapter re-checks them). */
function governedValue(r: GovernedRunRecord): { verdict: 'CLEAN' | 'DIRTY'; coverage_matched: true; findings: GovernedFinding[] } {
  // A receipt exists only for a run whose output passed the runner's checks, coverage included
  // (docs/reviewers.md#reviewer-output: the receipt stores `coverage_matched: true`).
  return { verdict: r.verdict === 'CLEAN' ? 'CLEAN' : 'DIRTY', coverage_matched: true, findings: [...r.findings] };
}

export interface ReviewPassDriverInput {
  readonly stage: Stage;
  readonly slots: readonly string[];
  readonly streak: number;
  /** The policy waives preservation (docs/authority.md#human-authority-records): the only way its inputs count as present today. */
  readonly preservationWaived: boolean;
  readonly preservationBound: boolean;
  /** The pinned policy's required controls still pending (the decision's control_pending reasons). */
  readonly pendingControls: readonly string[];
}

export function reviewPassDriver(p: ReviewPassDriverInput, now: () => number): GovernedDriver {
  // The seed's budget guard caps a review at DEFAULT_MAX_ROUNDS rounds (docs/review-pass-protocol.md#budget-guard); a longer policy streak
  // could never converge, so it is refused before any challenge spends run budget.
  if (p.streak > DEFAULT_MAX_ROUNDS) fail('orchestrator_governed_streak_unreachable', [p.stage]);
  let state: ReviewState = startReview(
    {
      stage: p.stage,
      mode: 'governed',
      reviewers: [...p.slots],
      convergence: p.streak,
      pending_controls: [...p.pendingControls],
      // Planning/integration preflight (docs/review-pass-protocol.md#separated-roles): the unit's baseline commit and its
      // contract's sources are bound into every challenge's bundle (docs/contract.md#the-request-contract, docs/bundle.md#views);
      // the preservation contract and the incident history count as present when a contract is bound
      // to the unit (its bundles then carry them, docs/bundle.md#the-preservation-section) or when the
      // policy waives preservation.
      ...(isRoleStage(p.stage)
        ? { preflight: { source_artifacts: true, baseline_ref: true, preservation_contract: p.preservationWaived || p.preservationBound, incident_history: p.preservationWaived || p.preservationBound } }
        : {}),
    },
    now(),
  );
  return {
    running: () => state.status === 'RUNNING',
    beforeRound: () => {
      state = checkBudget(state, now()).state;
    },
    recordRound: (runs) => {
      const engineRuns = runs.map((r) =>
        r.verdict === 'ABORTED' || r.execution_id === null
          ? { slot: r.slot, execution_id: r.run_id, status: 'failed' as const }
          : { slot: r.slot, execution_id: r.execution_id, status: 'ok' as const, output: { strategy: 'governed' as const, value: governedValue(r) } },
      );
      // The engine's probe counts stay 0/0: the probes a review relies on are in the bundles'
      // preservation section and the gate's reliedOn.probes (docs/preservation.md); opaque findings name no file (no known-issue
      // hashes, docs/decision.md#the-rules-in-short: only a signed dismiss authority lifts a DIRTY verdict).
      state = recordRound(state, { runs: engineRuns, files: {}, evidence: { mandatory_inputs_valid: true, probes_passed: 0, probes_total: 0 } }, now()).state;
    },
    halt: () => {
      if (state.status === 'RUNNING') state = haltReview(state, now()).state;
    },
    finish: () => {
      const r = reviewResult(state);
      return {
        result: r.result,
        reasons: r.reasons,
        result_json: renderReviewPassJson(r),
        report_md: renderReviewPassMarkdown(r),
        counts: {
          confirmed: r.summary.confirmed,
          escalations: r.summary.escalations,
          vetoes: r.summary.vetoes,
          auto_dismissed: r.summary.auto_dismissed,
          finding_groups: state.last_round?.groups.length ?? 0,
          r_actual: r.r_actual,
        },
      };
    },
  };
}

/** Review-pass severities → the weave reviewers' three (weave Phase 3 prompts). */
export const WEAVE_SEVERITY_OF: Readonly<Record<Severity, WeaveSeverity>> = {
  CRITICAL: 'Critical',
  HIGH: 'Important',
  MEDIUM: 'Important',
  LOW: 'Suggestion',
  INFO: 'Suggestion',
};
const RANK: Readonly<Record<Severity, number>> = { CRITICAL: 0, HIGH: 1, MEDIUM: 2, LOW: 3, INFO: 4 };

/** A failed lane's class (weave "On failure: classify") from the run's abort code. */
function laneFailure(error: string | null): 'timeout' | 'crash' {
  return error === 'reviewer_timeout' ? 'timeout' : 'crash';
}

/** One round's weave input: lanes per slot, issues = findings grouped by code and refs. */
export function weaveInput(runs: readonly GovernedRunRecord[]): { lanes: WeaveLane[]; issues: { issue_id: string; title: string; file: null; line: null; verification: 'plausible-unverified'; verification_note: string }[] } {
  const findings: AdjudicableFinding[] = [];
  for (const r of runs) if (r.verdict !== 'ABORTED') findings.push(...parseGovernedReviewerOutput(r.slot, governedValue(r)).findings);
  const lanes: WeaveLane[] = runs.map((r) =>
    r.verdict === 'ABORTED' ? { participant: r.slot, status: 'failed', failure: laneFailure(r.error) } : { participant: r.slot, status: 'ok', findings: [], dissents: [] },
  );
  const issues = groupFindings(findings).map((g, n) => {
    const issue_id = `ISSUE-${String(n + 1).padStart(3, '0')}`;
    // One position per lane and issue: a lane's most severe member speaks for it.
    const byLane = new Map<string, AdjudicableFinding>();
    for (const m of g.members) {
      const cur = byLane.get(m.reviewer);
      if (cur === undefined || RANK[m.severity] < RANK[cur.severity]) byLane.set(m.reviewer, m);
    }
    for (const [slot, m] of [...byLane].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const lane = lanes.find((l) => l.participant === slot);
      if (lane?.status === 'ok') {
        lane.findings.push({
          issue_id,
          severity: WEAVE_SEVERITY_OF[m.severity],
          description: `${m.file} (class ${m.finding_class}, severity ${m.severity}) on ${m.symbol ?? ''}`,
          recommendation: NO_RECOMMENDATION,
        });
      }
    }
    const rep = g.representative;
    return {
      issue_id,
      title: `${rep.file} on ${rep.symbol ?? ''}`,
      file: null,
      line: null,
      verification: 'plausible-unverified' as const,
      verification_note: OPAQUE_VERIFICATION_NOTE,
    };
  });
  return { lanes, issues };
}

export interface WeaveDriverInput {
  readonly stage: Stage;
  readonly slots: readonly string[];
  readonly streak: number;
}

export function weaveDriver(p: WeaveDriverInput, random: ((n: number) => Buffer) | undefined): GovernedDriver {
  const rnd = random ?? ((n: number) => randomBytes(n));
  let cleanRounds = 0;
  let stopped = false;
  let last: WeaveResult | null = null;
  let lastIncomplete: Pick<IncompleteInput, 'reasons' | 'detail_codes'> | null = null;
  return {
    running: () => !stopped && cleanRounds < p.streak,
    beforeRound: () => undefined,
    recordRound: (runs) => {
      try {
        last = adjudicateWeave(weaveInput(runs), rnd(32));
        lastIncomplete = null;
      } catch (e) {
        // weave_no_participants: every lane aborted, nothing to synthesize.
        if (!(isGovernedError(e) && e.code === 'weave_no_participants')) throw e;
        last = null;
        lastIncomplete = { reasons: ['orchestrator_reviewer_unavailable'], detail_codes: [e.code] };
      }
      const clean = last !== null && last.unavailable.length === 0 && last.findings.length === 0 && last.refuted.length === 0;
      if (clean) cleanRounds++;
      else stopped = true;
    },
    halt: () => {
      stopped = true;
    },
    finish: (governed): ProtocolResult => {
      const w = last as WeaveResult | null;
      if (w === null) {
        // No synthesis exists (every lane aborted, or the run budget refused the first round).
        const reasons: ReasonCode[] = lastIncomplete === null ? [...governed] : [...lastIncomplete.reasons];
        const i: IncompleteInput = { protocol: 'weave', stage: p.stage, reasons, detail_codes: lastIncomplete?.detail_codes ?? [], reviewers: [...p.slots] };
        return { result: 'NOT_CLEAN', reasons, result_json: incompleteJson(i), report_md: incompleteMarkdown(i), counts: { lanes: 0, finding_groups: 0 } };
      }
      const reasons: ReasonCode[] = [
        ...(w.unavailable.length > 0 ? (['orchestrator_weave_lane_unavailable'] as const) : []),
        ...(w.findings.length > 0 ? (['orchestrator_weave_findings'] as const) : []),
      ];
      return {
        result: reasons.length === 0 && cleanRounds >= p.streak ? 'CLEAN' : 'NOT_CLEAN',
        reasons,
        result_json: renderWeaveJson(w),
        report_md: renderWeaveMarkdown(w),
        counts: { lanes: w.lanes, findings: w.findings.length, finding_groups: w.findings.length + w.refuted.length, disagreements: w.disagreement_ids.length, unavailable: w.unavailable.length },
      };
    },
  };
}
