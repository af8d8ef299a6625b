// Error and reason codes owned by the decision domain (docs/commands.md#exit-codes, docs/decision.md#the-rules-in-short, docs/authority.md#human-authority-records, docs/policy.md#policy-and-trust-root). Add entries here only.
// docs/decision.md explains when each reason is given and what its `ids` are.
import { def, type ErrorDef } from './def.js';

export const DECISION_ERRORS = {
  // --- 4 verification: the facts a decision is computed from contradict each other -------------
  decision_input_invalid: def(
    4,
    'The facts given to the decision rules are inconsistent (another unit, a repeated log position or id, a malformed digest); nothing is decided.',
  ),
  decision_log_time_in_future: def(4, 'A log position is later than the evaluation time, so no age or expiry can be judged.'),
  decision_fact_mismatch: def(4, 'A stored row contradicts the signed record or log entry it was derived from (edited behind governed).'),
  gate_policy_digest_mismatch: def(4, 'The pinned policy is not the policy the deploy side expects (--policy-digest).'),
  gate_subject_mismatch: def(4, 'The subject commit is not the content that was reviewed: its manifest differs from the reviewed workspace digest.'),
  gate_subject_tracks_excluded: def(
    4,
    "The subject commit tracks a path under the policy's exclude (state or build outputs that never ship): content no receipt covers would ship.",
  ),
  decision_table_log_mismatch: def(
    4,
    "A unit's table rows the decision reads (receipts, ABORTED runs, authority consumptions) are not the rows its log entries derive: a row deleted, added, edited or relabelled behind governed.",
  ),

  // --- 2 usage: the deploy side must give all three anchors (docs/decision.md#8-delivery-state-and-reason-codes) -------------------------
  gate_anchor_missing: def(2, 'gate needs --unit, --trust, --policy-digest and --subject from the deploy side.'),
  gate_policy_digest_invalid: def(2, 'The expected policy digest must be sha256:<64 hex>.'),
  gate_subject_invalid: def(2, 'The subject must be the full hex id of a commit (40 or 64 hex), not a name or an abbreviation.'),
  gate_attest_output_exists: def(2, 'The --attest output file already exists; it is never overwritten.'),
  gate_attestor_missing: def(
    2,
    'gate --attest: a file of the gate attestor is not there (ids: the credential, attestor_config or attestor, and where it was looked for: --attestor-config, --attestor, --attestors, GOVERNED_ATTESTORS_DIR or <home>/attestors).',
  ),
  gate_attest_output_unwritable: def(2, 'The --attest output file could not be written.'),
  gate_export_output_exists: def(2, 'The --export directory already exists (or is a file or a symlink); a deploy record is never merged or overwritten.'),
  gate_export_output_unwritable: def(2, 'The --export deploy record could not be written whole; nothing of it was left behind and the gate does not allow.'),
  gate_attest_decision_too_large: def(
    2,
    'The decision exceeds a bound of the signed decision (VSA: reasons, ids per reason, inputs or bytes); nothing is attested and the gate does not allow.',
  ),

  // --- 7 no evidence ------------------------------------------------------------------------------
  gate_no_evidence: def(7, 'The unit has not a single receipt.'),
  gate_subject_unreviewed: def(7, 'No counted receipt of a work stage (development, test, integration) reviewed the subject content.'),

  // --- 8 refused by state -----------------------------------------------------------------------
  planning_not_sealed: def(8, 'The policy requires planning and the planning stage is not sealed on the current planning state.'),
} as const satisfies Record<string, ErrorDef>;

/** Reason codes: each explains a REVIEW_ONLY decision (exit 3). Listed in the order decisions print them. */
export const DECISION_REASONS = {
  trust_mode_not_accepted: 'The trust mode is not accepted by the policy (co-located needs accept_co_located: true, docs/threat-model.md#trust-modes).',
  'control_pending:deploy_gate': 'The policy requires the deploy_gate control, which this version does not implement yet (docs/policy.md#policy-and-trust-root).',
  'control_pending:real_entry_probes': 'The policy requires the real_entry_probes control, which this version does not implement yet (docs/policy.md#policy-and-trust-root).',
  'control_pending:vendor_origin_attestation':
    'The policy requires the vendor_origin_attestation control, which this version does not implement yet (docs/policy.md#policy-and-trust-root).',
  'control_pending:incident_history': 'The policy requires the incident_history control, which this version does not implement yet (docs/policy.md#policy-and-trust-root).',
  'control_pending:cross_role_comparison':
    'The policy requires the cross_role_comparison control, which this version does not implement yet (docs/policy.md#policy-and-trust-root).',
  'control_pending:external_effect_gate':
    'The policy requires the external_effect_gate control, which this version does not implement yet (docs/policy.md#policy-and-trust-root).',
  no_required_stage: 'The policy requires no stage, so no evidence could ever be complete (fail closed).',
  lease_active: 'A mutation lease is active (or expired but not yet swept).',
  streak_incomplete: 'A required stage has fewer consecutive CLEAN rounds on the current state than its floor.',
  planning_unsealed: 'Integration counts only while the planning stage is sealed on the current planning state (docs/decision.md#the-rules-in-short).',
  slot_blocked: 'A DIRTY receipt or ABORTED run blocks its slot until a CLEAN receipt on different content or a dismiss authority (docs/decision.md#the-rules-in-short).',
  veto_standing: 'A CRITICAL preservation/scope/authority/release finding stands (docs/decision.md#6-vetoes).',
  directive_not_done: 'A directive is still active; only done or disposed directives let a unit become eligible (docs/contract.md#validation-rules).',
  deferral_not_disposed: 'A deferred, superseded or abandoned directive has no tombstone resting on a valid authority of the matching operation.',
  preservation_contract_missing: 'The policy requires preservation and the unit has no preservation contract (docs/authority.md#human-authority-records).',
  incident_history_missing: 'The policy requires preservation and the unit has no incident history (docs/authority.md#human-authority-records).',
  preservation_unsatisfied: 'A surface of the preservation contract is not satisfied (docs/authority.md#human-authority-records).',
} as const satisfies Record<string, string>;
