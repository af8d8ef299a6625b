// Error and reason codes of src/protocols/two-pass, src/protocols/weave and src/protocols/simple (docs/commands.md#exit-codes, docs/review-pass.md#review-protocols).
// Exit 9 ("review not clean ... bad output") for a reviewer or verifier output that breaks its
// protocol's contract; exit 2 for protocol configuration and lead-side inputs that are invalid.
import { def, type ErrorDef } from './def.js';

export const PROTOCOLS_TWO_PASS_WEAVE_SIMPLE_ERRORS = {
  // --- two-pass (two-pass-review.txt) ------------------------------------------------------
  two_pass_output_invalid: def(9, 'A two-pass ReviewOutput does not match the strict ReviewOutput v1 / Finding schema.'),
  two_pass_finding_ids_not_sequential: def(9, 'Pass 1 finding ids are not sequential numbers starting from 1.'),
  two_pass_reviewer_fields_invalid: def(
    9,
    'A pass 1 finding is not in reviewer form (validated_by reviewer, verdict and evidence null) nor an honest machine-confirmed routing.',
  ),
  two_pass_criterion_missing: def(9, 'A P0/P1 finding does not name the criterion it violates.'),
  two_pass_checks_run_empty: def(9, 'A ReviewOutput lists no checks_run entries.'),
  two_pass_verifier_output_missing: def(9, 'Pass 1 has P0/P1 findings, so the verifier pass is required, and none was given.'),
  two_pass_verifier_not_expected: def(2, 'Pass 1 had no P0/P1 findings, so the review ends after pass 1; a verifier output was given anyway.'),
  two_pass_verifier_added_finding: def(9, 'The verifier returned a finding that pass 1 did not report; the verifier may not add findings.'),
  two_pass_verifier_dropped_finding: def(9, 'The verifier did not return the full pass 1 findings array.'),
  two_pass_verifier_changed_finding: def(9, 'The verifier changed what a finding points at (title, file, lines or criterion).'),
  two_pass_verdict_missing: def(9, 'A verifier finding lacks its verdict, its evidence, or validated_by verifier.'),
  two_pass_severity_move_invalid: def(
    9,
    'A verdict moves severity the wrong way (confirmed may only keep or raise, demoted must lower, rejected keeps).',
  ),

  // --- weave (weave-review.txt) --------------------------------------------------------------
  weave_input_invalid: def(2, 'A weave synthesis input does not match its strict schema.'),
  weave_no_participants: def(9, 'No reviewer lane produced an output; there is nothing to synthesize.'),
  weave_too_many_participants: def(2, 'Weave supports at most 26 reviewer lanes (labels A to Z).'),
  weave_participant_duplicate: def(2, 'Two reviewer lanes name the same participant.'),
  weave_label_seed_too_short: def(2, 'The blind-label randomness must be at least 16 bytes.'),
  weave_issue_unknown: def(2, 'A lane position refers to an issue that is not in the cross-reference list.'),
  weave_issue_unreported: def(2, 'A cross-referenced issue has no lane that reported it.'),
  weave_position_conflict: def(2, 'A lane takes more than one position on one issue (reported twice, or reported and dissented).'),

  // --- simple (simple-review.txt) ------------------------------------------------------------
  simple_input_invalid: def(2, 'A simple-review input does not match its strict schema.'),
  simple_reviewer_pair_not_two: def(2, 'Simple review needs exactly two reviewer slots.'),
  simple_reviewer_pair_duplicate: def(2, 'The two reviewer slots must be distinct.'),
  simple_reviewer_unknown: def(2, 'A review or rebuttal names a reviewer slot outside the selected pair.'),
  simple_retry_limit_exceeded: def(2, 'A reviewer slot was retried more than twice.'),
  simple_finding_id_duplicate: def(9, 'A finding_id is not unique within the invocation.'),
  simple_finding_id_prefix_mismatch: def(9, "A finding_id does not start with its reviewer's finding_id_prefix."),
  simple_rebuttal_round_duplicate: def(2, 'A reviewer has more than one rebuttal; simple review runs exactly one rebuttal round.'),
  simple_rebuttal_unrequested_finding: def(9, "A rebuttal judges a finding that was not in that reviewer's rebuttal batch."),
  simple_rebuttal_verdict_duplicate: def(9, 'A rebuttal gives more than one verdict for one finding_id.'),
  simple_rebuttal_verdict_missing: def(9, 'A completed rebuttal lacks a per-id verdict for a challenged finding.'),
  simple_lead_reference_unknown: def(2, 'A lead check or impact validation names an unknown finding_id.'),
  simple_pair_link_invalid: def(2, 'A same-issue link must join one finding of each reviewer, each finding at most once.'),
} as const satisfies Record<string, ErrorDef>;

export const PROTOCOLS_TWO_PASS_WEAVE_SIMPLE_REASONS = {} as const satisfies Record<string, string>;
