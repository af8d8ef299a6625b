// Error and reason codes of src/flows/review-pass: `governed review-pass` (docs/commands.md#exit-codes, docs/review-pass.md#review-protocols).
// Add entries here only. Summaries are fixed text: a rejected value never appears in them.
import { def, type ErrorDef } from './def.js';

export const REVIEW_PASS_ERRORS = {
  // --- 2 usage / configuration -----------------------------------------------------------
  orchestrator_config_unreadable: def(
    2,
    'The review-pass configuration file cannot be read (missing, not a regular file, or larger than 1 MiB).',
  ),
  orchestrator_config_invalid: def(2, 'The review-pass configuration does not match its strict schema.'),
  orchestrator_tool_unknown: def(2, 'A stage or protocol names a reviewer tool that the configuration does not define.'),
  orchestrator_prompt_in_argv: def(
    2,
    'A reviewer command would put the prompt in its argument list; prompts go through stdin or a file only (docs/review-pass.md#review-protocols).',
  ),
  orchestrator_command_invalid: def(
    2,
    'A reviewer command is not a valid argument vector (NUL byte, relative program path, or unknown placeholder).',
  ),
  orchestrator_protocol_reviewers_invalid: def(
    2,
    'The protocol lacks the reviewers it needs (two-pass: reviewer and verifier; weave: one or more lanes; simple: a configured pair).',
  ),
  orchestrator_repo_invalid: def(2, 'The repository directory does not exist or is not a directory.'),
  orchestrator_files_invalid: def(
    2,
    '--files names a path that is not a repository-relative regular file inside the repository.',
  ),
  orchestrator_tool_log_invalid: def(
    2,
    'The --tool-log directory cannot be used: not creatable, not a directory, a symlink, not owned by this user, open to group or others, or a log file already exists; --tool-log is for non-governed mode only.',
  ),
  orchestrator_out_invalid: def(
    2,
    'The output directory cannot be created, or already holds a review-pass result (results are never overwritten).',
  ),
  orchestrator_sandbox_unavailable: def(
    2,
    'bubblewrap (/usr/bin/bwrap) is missing or cannot create the sandbox; reviewers never run unsandboxed.',
  ),
  orchestrator_unit_invalid: def(2, '--unit is not a unit id (UNIT- followed by 32 lowercase hex digits).'),
  orchestrator_protocol_not_governed: def(
    2,
    'two-pass and simple need a verifier that sees another reviewer\'s findings, which governed mode forbids (docs/bundle.md#views, docs/review-pass.md#review-protocols).',
  ),
  orchestrator_governed_config_refused: def(
    2,
    'Governed mode takes reviewers, slots and convergence from the policy only; a writer-owned review-pass.yaml is refused.',
  ),
  orchestrator_governed_streak_unreachable: def(
    2,
    'The policy streak of this stage is longer than the review-pass budget guard (8 rounds, docs/review-pass-protocol.md#budget-guard): the protocol could never converge, so nothing was run.',
  ),

  // --- 4 verification ------------------------------------------------------------------------
  orchestrator_governed_receipt_invalid: def(
    4,
    'A receipt governed review-run just recorded is missing or does not verify against the pinned trust root; the review is not adjudicated.',
  ),

  // --- 8 refused by state -----------------------------------------------------------------
  orchestrator_governed_runner_unavailable: def(
    8,
    'Governed review-pass runs every reviewer as a governed review-run claimed for a writer session, and none was given (--writer-session); nothing was run.',
  ),
} as const satisfies Record<string, ErrorDef>;

// Why a two-pass, weave or simple run is NOT_CLEAN (the review-pass protocol has its own reasons in
// protocols.ts). They explain an advisory result; docs/decision.md#the-rules-in-short alone decides the delivery state.
export const REVIEW_PASS_REASONS = {
  orchestrator_reviewer_unavailable: 'A reviewer the protocol needs timed out, failed, or was missing.',
  orchestrator_output_invalid: 'A reviewer output broke its protocol contract, so the protocol could not be adjudicated.',
  orchestrator_p0p1_remaining: 'Two-pass: P0/P1 findings remain after verification.',
  orchestrator_weave_findings: 'Weave: at least one finding survived verification.',
  orchestrator_weave_lane_unavailable: 'Weave: a reviewer lane was unavailable; a degraded synthesis is never clean.',
  orchestrator_simple_not_clear: 'Simple review: the lead recommendation is not NO_BLOCKING_EVIDENCE.',
  orchestrator_governed_dirty: 'Governed: a review-run of the last round recorded a DIRTY receipt.',
  orchestrator_governed_aborted: 'Governed: a review-run of the last round was recorded as ABORTED (no receipt).',
  orchestrator_governed_budget_exhausted: 'Governed: the policy run budget (max_runs_per_content) refused a challenge before the streak was reached.',
} as const satisfies Record<string, string>;
