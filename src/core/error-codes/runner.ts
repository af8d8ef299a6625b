// Error and reason codes owned by the runner domain (docs/commands.md#exit-codes, docs/runner.md#the-run-step-by-step): `governed review-run`, the run
// store (claims, ABORTED, receipts), the strict reviewer-output parser (docs/reviewers.md#reviewer-output), `run reap` and
// `receipt show`. Add entries here only.
//
// Exit-code choices (docs/commands.md#exit-codes):
// - refusals BEFORE the claim keep the store unchanged and use the exit of what is wrong: a replayed,
//   expired or already-claimed challenge, or one whose bound state moved, is stale (5); a challenge
//   row or bundle file that no longer matches what was logged is tampering (4); an active lease is a
//   state refusal (8);
// - failures AFTER the claim are recorded as ABORTED and keep their own code's exit; the review
//   failures proper — bad output, non-zero exit, timeout, drift, a lease taken meanwhile — are 9
//   ("the run was aborted ... and recorded as ABORTED").
import { def, type ErrorDef } from './def.js';

export const RUNNER_ERRORS = {
  // --- 1 internal -----------------------------------------------------------------------------
  run_unknown: def(1, 'No run with this id exists.'),
  run_clock_invalid: def(1, 'The runner clock went backwards during the run (issued, started and finished times out of order); the run was recorded as ABORTED.'),

  // --- 2 usage / configuration ----------------------------------------------------------------
  reviewer_file_unavailable: def(2, 'The policy reviewer program is not a readable regular file in the reviewers directory (the IDs name the path looked at and where it came from). Found before the claim, nothing was recorded; found when it was read after the claim, the run was recorded as ABORTED.'),
  attestor_file_unavailable: def(2, 'An attestor program or configuration is not a readable regular file in the attestors directory (the IDs name the path looked at and where it came from). Found before the claim, nothing was recorded; found when it was read after the claim, the run was recorded as ABORTED.'),
  receipt_output_exists: def(2, 'receipt show --out refuses to overwrite an existing file.'),
  receipt_output_unwritable: def(2, 'receipt show --out could not write the file whole (e.g. disk full); nothing of it was left behind.'),

  // --- 4 verification / tampering ---------------------------------------------------------------
  challenge_tampered: def(4, 'The challenge row no longer matches its hash-chained challenge_issue log entry (or the policy disagrees with it); nothing was claimed.'),
  challenge_bundle_missing: def(4, 'The bundle file of an open challenge is missing or not a private regular file; nothing was claimed.'),
  challenge_bundle_mismatch: def(4, 'The bundle file bytes do not hash to the bundle digest bound at issuance (replaced or edited); nothing was claimed.'),
  receipt_integrity_failed: def(4, 'A stored receipt envelope does not match its receipt id.'),

  // --- 5 stale or replayed ----------------------------------------------------------------------
  challenge_unknown: def(5, 'No challenge with this id exists in this store (never issued here, or replayed from elsewhere).'),
  challenge_expired: def(5, 'The challenge expired before it was claimed.'),
  challenge_claimed: def(5, 'The challenge is already claimed by another run (one-time: exactly one run per challenge).'),
  challenge_consumed: def(5, 'The challenge was already used: its run ended as a receipt or ABORTED (replay).'),
  challenge_stale: def(5, 'The state the challenge was issued on moved before the run (pinned policy or trust root, scope version, scope epoch or work revision); nothing was claimed.'),

  // --- 7 no evidence --------------------------------------------------------------------------
  receipt_unknown: def(7, 'No receipt with this id exists in this store.'),

  // --- 8 refused by state ---------------------------------------------------------------------
  run_lease_active: def(8, 'A mutation lease is active; no review is ingested while any lease is active. Nothing was claimed.'),
  run_not_claimed: def(8, 'The run already ended; it cannot end twice.'),
  run_writers_too_many: def(8, 'The unit has more registered writers than a receipt can name (64); the run was recorded as ABORTED.'),

  // --- 9 review not clean: the run was recorded as ABORTED ------------------------------------
  run_claim_aborted: def(9, 'The run was recorded as ABORTED while it ran (its claim was reaped); no receipt was recorded.'),
  run_deadline_passed: def(9, 'The run passed its deadline before it committed; it was recorded as ABORTED.'),
  runner_gone: def(9, 'The runner process of a claimed run is gone (boot id, pid, start time); the run was recorded as ABORTED.'),
  review_lease_taken: def(9, 'A mutation lease was taken while the review ran; the run was recorded as ABORTED.'),
  review_post_launch_drift: def(9, 'Something bound at issuance changed while the review ran (contract, sources, workspace, policy, trust root, scope epoch, work revision or bundle); the run was recorded as ABORTED.'),
  review_process_not_independent: def(9, 'The sandboxed reviewer\'s process identity is a registered writer\'s: the reviewer did not run independently of the writers; the run was recorded as ABORTED.'),
  reviewer_exit_nonzero: def(9, 'The reviewer exited non-zero or was killed by a signal; the run was recorded as ABORTED.'),
  reviewer_timeout: def(9, 'The reviewer exceeded the policy sandbox timeout and was killed; the run was recorded as ABORTED.'),
  reviewer_run_incomplete: def(9, 'The sandbox did not run the reviewer to a clean end (setup failed after release, or a process survived); the run was recorded as ABORTED.'),
  review_output_too_large: def(9, 'The reviewer printed more than the policy max_output; the run was recorded as ABORTED.'),
  review_output_not_canonical: def(9, 'Reviewer stdout is not exactly the RFC 8785 bytes of one JSON object (one trailing newline allowed); the run was recorded as ABORTED.'),
  review_output_schema_invalid: def(9, 'Reviewer output is not the closed governed.review-output/v1 object (missing, extra or ill-typed field); the run was recorded as ABORTED.'),
  review_output_enum_invalid: def(9, 'A verdict, finding code, class or severity is outside its closed list; the run was recorded as ABORTED.'),
  review_output_coverage_mismatch: def(9, 'The echoed coverage is not exactly the bundle coverage (a kind or an ID missing or extra); the run was recorded as ABORTED.'),
  review_output_unsorted: def(9, 'A coverage list, the findings or a finding\'s refs are not sorted and unique; the run was recorded as ABORTED.'),
  review_output_too_many_findings: def(9, 'The reviewer reported more than 32 findings; the run was recorded as ABORTED.'),
  review_output_ref_invalid: def(9, 'A finding ref is not an ID (a path, a digest, free text); the run was recorded as ABORTED.'),
  review_output_ref_unknown: def(9, 'A finding ref is an ID that the view does not show; the run was recorded as ABORTED.'),
  review_output_verdict_inconsistent: def(9, 'CLEAN with findings, or DIRTY without any; the run was recorded as ABORTED.'),
} as const satisfies Record<string, ErrorDef>;

export const RUNNER_REASONS = {} as const satisfies Record<string, string>;
