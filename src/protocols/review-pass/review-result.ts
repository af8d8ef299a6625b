// The final result of a review-pass run (docs/review-pass-protocol.md#final-report final report content, docs/review-pass-protocol.md#delivery-state delivery gate,
// docs/review-pass.md#review-protocols). Built from a terminal reducer state; rendered by report-json.ts / report-markdown.ts.
//
// Delivery state: the protocol's result is advisory (docs/review-pass.md#review-protocols); RELEASE_ELIGIBLE is decided only by
// docs/decision.md#8-delivery-state-and-reason-codes (`governed gate`). So the result always carries REVIEW_ONLY with the reasons that apply,
// and a CLEAN result says so explicitly instead of claiming eligibility (docs/review-pass-protocol.md#delivery-state: "A generic runtime
// Clean does not override a PENDING preservation control").
import { fail } from '../../core/errors.js';
import type { ReviewState, RoundLogEntry } from './review-state.js';

export const REVIEW_PASS_RESULT_SCHEMA = 'governed.review-pass-result/v1';

export const AUTO_FIX_NOTICE =
  'Auto-fix is out of scope: the orchestrator never edits code. CONFIRMED findings are reported for a human or writer to fix, then re-reviewed.';
export const ADVISORY_NOTICE =
  'This protocol result is advisory; the delivery state is decided by governed gate (docs/decision.md#the-rules-in-short) alone.';

export type DeliveryReason = 'advisory_result' | 'review_not_clean' | `control_pending:${string}`;

/**
 * The pending-control reasons of a result: in governed mode exactly the pinned policy's required
 * controls that are still pending — the ones `governed status` reports, so the report never
 * contradicts the decision; without a policy (non-governed), a role stage's cross-role comparison
 * (docs/policy.md#policy-and-trust-root registry: pending).
 */
export function pendingControlReasons(config: { readonly pending_controls: readonly string[] | null; readonly role_stage: boolean }): DeliveryReason[] {
  if (config.pending_controls !== null) return config.pending_controls.map((name) => `control_pending:${name}` as const);
  return config.role_stage ? ['control_pending:cross_role_comparison'] : [];
}

/** Defined once in zod/mini (src/core/review-pass-result.ts); a type import only. */
export type { ReviewPassResult } from '../../core/review-pass-result.js';
import type { ReviewPassResult } from '../../core/review-pass-result.js';

export function reviewResult(state: ReviewState): ReviewPassResult {
  if (state.status === 'RUNNING') fail('review_pass_state_running', [`round:${state.next_round}`]);
  const last = state.log[state.log.length - 1];
  const groups = state.last_round?.groups ?? [];
  const clean = state.status === 'CONVERGED';
  const delivery: DeliveryReason[] = ['advisory_result'];
  if (!clean) delivery.push('review_not_clean');
  delivery.push(...pendingControlReasons(state.config));
  const sum = (k: keyof RoundLogEntry['counts']): number => state.log.reduce((n, e) => n + e.counts[k], 0);
  return {
    schema: REVIEW_PASS_RESULT_SCHEMA,
    protocol: 'review-pass',
    stage: state.config.stage,
    mode: state.config.mode,
    light: state.config.light,
    result: clean ? 'CLEAN' : 'NOT_CLEAN',
    reasons: state.reasons,
    delivery_state: 'REVIEW_ONLY',
    delivery_reasons: delivery.sort(),
    ...(state.config.pending_controls === null ? {} : { pending_controls: state.config.pending_controls }),
    rounds: state.log.length,
    reviewers: state.config.slots,
    r_actual: last?.r ?? 0,
    lenses: state.config.lenses,
    convergence: { threshold: state.convergence_threshold, consecutive_clean: state.consecutive_clean },
    budget: { max_rounds: state.config.max_rounds, max_total_time_ms: state.config.max_total_time_ms },
    started_at: state.started_at,
    duration_ms: state.last_time - state.started_at,
    summary: {
      confirmed: groups.filter((g) => g.classification === 'CONFIRMED' || g.resolution?.decision === 'FIX').length,
      contested_resolved: {
        total: state.resolved.by_arbiter + state.resolved.by_user,
        by_arbiter: state.resolved.by_arbiter,
        by_user: state.resolved.by_user,
      },
      escalations: groups.filter((g) => g.classification === 'CONTESTED' && g.resolution === null).length,
      vetoes: groups.filter((g) => g.classification === 'VETO').length,
      auto_dismissed: sum('auto_dismissed'),
      suppressed: sum('suppressed'),
      preservation_probes: last?.probes ?? { passed: 0, total: 0 },
    },
    req_coverage: state.last_round?.req_coverage ?? [],
    deferred_req_ids: state.config.deferred_req_ids,
    confirmed: groups.filter((g) => g.classification === 'CONFIRMED' || g.resolution?.decision === 'FIX'),
    escalations: groups.filter((g) => g.classification === 'CONTESTED' && g.resolution === null),
    vetoes: groups.filter((g) => g.classification === 'VETO'),
    review_log: state.log,
    health: last?.health ?? [],
    agreement: last?.agreement ?? null,
    known_issues: state.known_issues.length,
    warnings: state.warnings,
    auto_fix: 'out_of_scope',
    orchestrator_edits_code: false,
    notices: [AUTO_FIX_NOTICE, ADVISORY_NOTICE],
  };
}
