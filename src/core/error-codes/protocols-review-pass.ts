// Error and reason codes of src/protocols/review-pass, the review-pass protocol (docs/commands.md#exit-codes, docs/review-pass.md#review-protocols).
// Add entries here only.
import { def, type ErrorDef } from './def.js';

export const PROTOCOLS_REVIEW_PASS_ERRORS = {
  // --- 2 usage / configuration -----------------------------------------------------------
  review_pass_config_invalid: def(2, 'The review-pass configuration does not match its strict schema.'),
  review_pass_light_forbidden_stage: def(
    2,
    'Light mode is forbidden for the planning and integration stages (docs/review-pass-protocol.md#light-mode).',
  ),
  review_pass_light_forbidden_governed: def(2, 'Light mode is forbidden in governed mode (docs/review-pass-protocol.md#light-mode).'),
  review_pass_convergence_below_floor: def(
    2,
    'The configured convergence is below the two-clean-round floor of the stage (docs/review-pass-protocol.md#convergence-thresholds).',
  ),
  review_pass_output_invalid: def(2, 'A reviewer output does not match the review-pass JSON output schema.'),
  review_pass_governed_output_invalid: def(
    2,
    'An opaque governed reviewer output does not match its strict schema (docs/reviewers.md#reviewer-output).',
  ),
  review_pass_round_invalid: def(
    2,
    'A round does not report exactly one run for every configured reviewer slot, or a run is malformed.',
  ),
  review_pass_resolution_invalid: def(
    2,
    'A resolution names no CONTESTED finding group of the round, repeats one, or claims an absent arbiter.',
  ),
  review_pass_veto_not_arbitrable: def(
    2,
    'A VETO finding group cannot be resolved by arbitration or dismissal (docs/review-pass-protocol.md#arbiter-decisions).',
  ),
  review_pass_clock_invalid: def(2, 'A round time is earlier than the previous time of the review.'),

  // --- 8 refused by state -----------------------------------------------------------------
  review_pass_state_terminal: def(8, 'The review has already ended; no further round can be recorded.'),
  review_pass_state_running: def(8, 'The review has not ended; a final result exists only after it ends.'),
} as const satisfies Record<string, ErrorDef>;

// Reasons a review-pass result is NOT_CLEAN (docs/review-pass-protocol.md#the-round-loop, docs/review-pass-protocol.md#graceful-degradation, docs/review-pass-protocol.md#delivery-state). They explain an advisory
// result; docs/decision.md#the-rules-in-short alone decides the delivery state.
export const PROTOCOLS_REVIEW_PASS_REASONS = {
  review_pass_veto: 'A CRITICAL preservation, scope, authority or release finding is a blocking veto.',
  review_pass_confirmed_findings: 'CONFIRMED findings need a code change; the orchestrator never edits code.',
  review_pass_contested_unresolved: 'A CONTESTED finding was not resolved by an arbiter or the user.',
  review_pass_req_uncovered: 'A non-deferred REQ-ID has no coverage.',
  review_pass_missing_evidence: 'Mandatory inputs are invalid or a preservation probe did not pass.',
  review_pass_mandatory_inputs_missing: 'Planning/integration lacks source artifacts, baseline, preservation contract or incident history.',
  review_pass_role_coverage_incomplete: 'Fewer than four distinct role executions completed (planning/integration).',
  review_pass_execution_reused: 'A role or execution identity was reused.',
  review_pass_no_reviewers: 'No reviewer produced a usable output.',
  review_pass_budget_rounds: 'The maximum number of rounds was reached before convergence.',
  review_pass_budget_time: 'The total time budget was exceeded before convergence.',
  review_pass_halted: 'Governed: the orchestrator stopped before convergence (a slot blocked by a DIRTY or ABORTED run, docs/decision.md#the-rules-in-short, or the policy run budget); its own reasons say which.',
} as const satisfies Record<string, string>;
