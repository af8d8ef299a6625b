// Graceful degradation (docs/review-pass-protocol.md#graceful-degradation, docs/review-pass-protocol.md#separated-roles, docs/review-pass-protocol.md#timeouts-and-retries) as a pure decision over one round's runs.
//
// Standard stages (development, test):
//   R_available = reviewers that answered with usable output (timeout/failure = R-1, docs/review-pass-protocol.md#timeouts-and-retries; output
//                 with no structured data is treated the same — its silence must not count as "clean").
//   R_available == 0                    → NOT_CLEAN (docs/review-pass-protocol.md#graceful-degradation "abort: No review tools available").
//   R_available <  R_configured         → AUTO_DISMISS disabled. The seed names the case
//                                          R_configured - 1 with R_configured >= 3; governed applies it to
//                                          every shortfall (stricter: a dismissal needs the full panel).
//   R_available == 1                    → convergence threshold raised to max(threshold, 2).
// Planning and integration (docs/review-pass-protocol.md#separated-roles, docs/review-pass-protocol.md#graceful-degradation): fewer than four distinct successful role executions, or a
// reused role / execution identity, is NOT_CLEAN — never degraded. Execution identities are global
// claims (docs/review-pass-protocol.md#graceful-degradation): an id seen in an earlier round is a reuse too.

export type RunStatus = 'ok' | 'timeout' | 'failed';
export type UnavailableReason = 'timeout' | 'failed' | 'unparseable';

export interface RunAvailability {
  readonly slot: string;
  readonly execution_id: string;
  readonly status: RunStatus;
  /** true when the run's output yielded structured data (docs/review-pass-protocol.md#output-parsing-rules). */
  readonly usable: boolean;
}

export type StructuralFailure = 'review_pass_role_coverage_incomplete' | 'review_pass_execution_reused' | 'review_pass_no_reviewers';

export interface DegradationDecision {
  readonly available: readonly string[];
  readonly unavailable: ReadonlyArray<{ readonly slot: string; readonly reason: UnavailableReason }>;
  readonly r: number;
  readonly auto_dismiss_enabled: boolean;
  /** The convergence threshold after this round (never lowered). */
  readonly convergence_threshold: number;
  readonly failure: StructuralFailure | null;
  readonly warnings: readonly string[];
}

export function decideDegradation(
  roleStage: boolean,
  runs: readonly RunAvailability[],
  configuredSlots: readonly string[],
  seenExecutionIds: readonly string[],
  threshold: number,
): DegradationDecision {
  const available = runs.filter((r) => r.status === 'ok' && r.usable).map((r) => r.slot).sort();
  const unavailable = runs
    .filter((r) => !(r.status === 'ok' && r.usable))
    .map((r) => ({ slot: r.slot, reason: (r.status === 'ok' ? 'unparseable' : r.status) as UnavailableReason }))
    .sort((a, b) => (a.slot < b.slot ? -1 : a.slot > b.slot ? 1 : 0));
  const warnings: string[] = [];
  if (unavailable.length > 0) warnings.push(`degraded_reviewers:${unavailable.map((u) => u.slot).join(',')}`);

  const ids = runs.map((r) => r.execution_id);
  const reused = new Set(ids).size !== ids.length || ids.some((id) => seenExecutionIds.includes(id));
  const base = { available, unavailable, r: available.length, warnings };
  if (reused) {
    return { ...base, auto_dismiss_enabled: false, convergence_threshold: threshold, failure: 'review_pass_execution_reused' };
  }
  if (roleStage) {
    const complete = available.length === configuredSlots.length && configuredSlots.every((s) => available.includes(s));
    return {
      ...base,
      auto_dismiss_enabled: complete,
      convergence_threshold: threshold,
      failure: complete ? null : 'review_pass_role_coverage_incomplete',
    };
  }
  if (available.length === 0) {
    return { ...base, auto_dismiss_enabled: false, convergence_threshold: threshold, failure: 'review_pass_no_reviewers' };
  }
  let next = threshold;
  if (available.length === 1) {
    next = Math.max(threshold, 2);
    warnings.push(`single_reviewer_convergence:${next}`);
  }
  return {
    ...base,
    auto_dismiss_enabled: available.length === configuredSlots.length,
    convergence_threshold: next,
    failure: null,
  };
}
