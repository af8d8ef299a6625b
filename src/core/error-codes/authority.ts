// Error and reason codes owned by the authority domain (docs/commands.md#exit-codes, docs/authority.md#human-authority-records, docs/policy.md#policy-and-trust-root). Add entries here only.
//
// Exit-code choices (docs/commands.md#exit-codes; docs/authority.md "Refusals"):
// - a malformed request, presentation or command line, or a signing run without a terminal, is a
//   usage/configuration problem (2);
// - a record that is not what it claims, or that does not cover what it is used for (operation,
//   IDs, unit, state digests), is a verification failure (4);
// - an expired record, a nonce this store never issued, a nonce already used and a record already
//   consumed are stale or replayed (5);
// - naming a record this store never recorded is missing evidence (7);
// - a human who did not type the confirmation is a refusal (8).
// Wrong key, wrong role, revoked key and edited-after-signing reuse the foundation codes
// (key_unknown, key_wrong_role, key_revoked, key_outside_validity, signature_invalid).
import { def, type ErrorDef } from './def.js';

export const AUTHORITY_ERRORS = {
  // --- 2 usage / configuration -------------------------------------------------------------
  authority_request_invalid: def(
    2,
    'An authority request is malformed: unknown operation, bad or unsorted IDs, a unit or state digest missing or forbidden for the operation, or a TTL outside 1s..7d.',
  ),
  authority_output_exists: def(2, 'The output file already exists; authority files are never overwritten.'),
  authority_output_unwritable: def(2, 'The output file could not be created (missing directory or no permission).'),
  authority_presentation_invalid: def(2, 'The presentation file does not match its strict schema or does not carry a valid authority statement.'),
  authority_terminal_required: def(2, 'authority sign needs a controlling terminal (/dev/tty) for the confirmation; pipes do not count.'),
  trust_update_no_authority_key: def(
    2,
    'The new trust root has no authority key valid now; accepting it would make every later authority record impossible.',
  ),

  // --- 4 verification ------------------------------------------------------------------------
  authority_presentation_mismatch: def(4, 'The human-readable rendering in the presentation file is not the rendering of the statement it carries.'),
  authority_record_invalid: def(4, 'The signed statement is not a governed authority statement (predicate type, closed schema or its rules).'),
  authority_request_mismatch: def(4, 'The signed statement differs from the statement this store issued for its request.'),
  authority_operation_mismatch: def(4, 'The authority record is for a different operation than the one it is used for.'),
  authority_ids_mismatch: def(4, 'The authority record does not name exactly the IDs it is used for.'),
  authority_dismiss_target_invalid: def(
    4,
    'A dismiss record must name only DIRTY receipts or ABORTED runs of the unit, a dismiss_veto record a receipt of the unit with veto findings and refs of them that lift a finding, all judged on one reviewed content (the state_before).',
  ),
  authority_unit_mismatch: def(4, 'The authority record is for a different unit than the one it is used for.'),
  authority_state_mismatch: def(4, 'The state digest before or after named by the authority record is not the one it is used for.'),

  // --- 5 stale / replayed --------------------------------------------------------------------
  authority_expired: def(5, 'The authority request or record has expired.'),
  authority_nonce_unknown: def(5, 'The record carries a request id and nonce this store never issued.'),
  authority_nonce_reused: def(5, 'The request nonce was already used by a recorded authority record.'),
  authority_replayed: def(5, 'The authority record was already consumed; a record is consumed once.'),

  // --- 7 no evidence -------------------------------------------------------------------------
  authority_record_unknown: def(7, 'No authority record with this id was recorded in this store.'),

  // --- 8 refused -----------------------------------------------------------------------------
  authority_not_confirmed: def(8, 'The confirmation was not typed on the terminal; nothing was signed.'),
} as const satisfies Record<string, ErrorDef>;

export const AUTHORITY_REASONS = {} as const satisfies Record<string, string>;
