// Error and reason codes of the foundation: parsing, canonical JSON, keys, DSSE, receipts, verify.
import { def, type ErrorDef } from './def.js';

export const FOUNDATION_ERRORS = {
  // --- 1 internal -------------------------------------------------------------------------
  internal_error: def(1, 'An unexpected internal error; nothing was recorded.'),

  // --- 2 usage / configuration -----------------------------------------------------------
  usage_error: def(2, 'The command line is invalid (unknown option, missing argument).'),
  input_unreadable: def(2, 'An input file could not be read.'),
  input_too_large: def(2, 'An input file exceeds its size cap.'),
  json_invalid: def(2, 'A JSON input is not well-formed JSON.'),
  json_duplicate_key: def(2, 'A JSON input repeats a key inside one object.'),
  yaml_invalid: def(2, 'A YAML input is not well-formed YAML.'),
  yaml_duplicate_key: def(2, 'A YAML input repeats a key inside one mapping.'),
  yaml_alias_refused: def(2, 'A YAML input uses an anchor, alias or tag; they are disabled.'),
  value_not_canonicalizable: def(
    2,
    'A value is outside the canonical domain (floats, unsafe integers, lone surrogates, non-plain objects).',
  ),
  schema_invalid: def(2, 'An input does not match its strict schema (unknown, missing or ill-typed field).'),
  trust_root_invalid: def(2, 'The trust root does not match its schema (docs/policy.md#policy-and-trust-root).'),
  trust_root_missing: def(2, 'No trust root was given and no state directory pins one.'),
  key_output_exists: def(2, 'keygen refuses to overwrite an existing key file.'),
  key_output_unwritable: def(2, 'keygen could not make its output directory or write a key file there; no key file was left behind.'),
  credential_id_invalid: def(2, 'A credential id must match ^[a-z][a-z0-9_-]{0,31}$.'),
  attestor_config_invalid: def(2, 'An attestor configuration file does not match its strict schema.'),
  policy_invalid: def(2, 'The policy does not match its strict schema or breaks one of its rules (a reviewer environment variable, a sandbox bound; docs/policy.md#policy-and-trust-root).'),
  policy_roles_incomplete: def(2, 'A planning or integration stage does not list exactly the four roles as slots.'),
  policy_reviewer_unknown: def(2, 'A stage slot names a reviewer that is not on the policy allowlist.'),
  policy_credentials_not_distinct: def(2, 'Two policy credentials name the same key; all credentials are distinct keys.'),
  stage_not_in_policy: def(2, 'The stage is not listed in the policy.'),
  slot_unknown: def(2, 'The slot is not listed for this stage in the policy.'),

  // --- 4 verification ---------------------------------------------------------------------
  envelope_invalid: def(4, 'The DSSE envelope is malformed (not JSON, extra field, bad base64, wrong types).'),
  payload_type_invalid: def(4, 'The DSSE payloadType is not application/vnd.in-toto+json.'),
  payload_not_canonical: def(4, 'The payload bytes are not the RFC 8785 canonical form of their JSON value.'),
  statement_invalid: def(4, 'The payload is not an in-toto Statement v1 of the expected shape.'),
  predicate_invalid: def(4, 'The predicate does not match the governed review-receipt schema (docs/formats.md#receipt).'),
  signature_invalid: def(4, 'A signature does not verify over the DSSE PAE bytes.'),
  signature_missing: def(4, 'A required signature (by role) is missing from the envelope.'),
  signature_extra: def(4, 'The envelope carries more signatures than the roles it needs.'),
  key_invalid: def(4, 'A key is malformed: wrong type, wrong length, small-order or non-canonical point.'),
  private_key_exposed: def(4, 'A private key file is readable by group or others; it is refused.'),
  attestor_refused: def(4, 'The attestor refused to sign (wrong kind or fields it does not vouch for).'),
  attestor_failed: def(4, 'The attestor exited non-zero, timed out or printed malformed output.'),
  attestor_signature_invalid: def(4, 'The signature an attestor returned does not verify under its pinned key.'),
  digest_mismatch: def(4, 'A stored or pinned digest does not match the bytes.'),

  // --- 5 stale ------------------------------------------------------------------------------
  trust_root_expired: def(5, 'The trust root has expired.'),

  // --- 6 untrusted --------------------------------------------------------------------------
  key_unknown: def(6, 'A signature was made by a key that is not in the trust root.'),
  key_revoked: def(6, 'A signature was made by a revoked key.'),
  key_outside_validity: def(6, 'A signature was made by a key outside its not_before/not_after window.'),
  key_wrong_role: def(6, 'A signature was made by a key whose roles do not include the role it signs for.'),
  signature_not_credential_key: def(
    6,
    "A role's signature is not by the key the policy names for that credential, or the trust root does not give that key the role (e.g. a trust root that swaps the reviewer and runner keys).",
  ),
  attestor_not_allowlisted: def(6, 'The attestor executable or its configuration is not on the allowlist; it was not run.'),
} as const satisfies Record<string, ErrorDef>;


/** Reason codes: each explains a REVIEW_ONLY decision (exit 3). */
export const FOUNDATION_REASONS = {
} as const satisfies Record<string, string>;

