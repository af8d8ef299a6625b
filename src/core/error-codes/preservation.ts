// Error codes owned by the preservation domain (docs/preservation.md). Add entries here only.
// Reason codes a preservation check gives (they explain REVIEW_ONLY) live in ./decision.ts with the
// other delivery reasons, so the decision orders them in one table.
import { def, type ErrorDef } from './def.js';

export const PRESERVATION_ERRORS = {
  // --- 2 usage: the preservation contract file ------------------------------------------------
  preservation_field_missing: def(2, 'A required field of the preservation contract is missing (ids: the field path).'),
  preservation_field_unknown: def(2, 'The preservation contract has a field its closed schema does not know (ids: the enclosing field path).'),
  preservation_field_invalid: def(2, 'A field of the preservation contract has the wrong type or format (ids: the field path).'),
  preservation_field_too_large: def(2, 'A field of the preservation contract exceeds its bound (ids: the field path).'),
  preservation_kind_invalid: def(2, "The file is not a preservation contract (kind must be 'governed/preservation-contract')."),
  preservation_version_unsupported: def(2, 'The preservation contract version is not supported by this version of governed.'),
  preservation_id_invalid: def(2, 'An id of the preservation contract does not match the id syntax (ids: the field path).'),
  preservation_id_duplicate: def(2, 'An id is used twice in the preservation contract (surfaces, vendor sources and evidence ids share one namespace).'),
  preservation_path_invalid: def(2, 'A path of the preservation contract is not a normalized repository-relative path inside the product roots (ids: the field path).'),
  preservation_na_reason_missing: def(
    2,
    "A surface of kind 'other' needs an explicit na_reason (why no supported kind applies); nothing is silently omitted (ids: the surface).",
  ),
  preservation_na_reason_unexpected: def(2, "Only a surface of kind 'other' carries an na_reason (ids: the surface)."),
  preservation_destructive_fields_missing: def(
    2,
    'A replace, remove, disable, redirect or migrate surface needs authority_id and expected_diff_digest (ids: the surface).',
  ),
  preservation_destructive_fields_unexpected: def(
    2,
    'A preserve or extend surface carries authority_id or expected_diff_digest, which only a destructive disposition has (ids: the surface).',
  ),
  preservation_vendor_origin_missing: def(
    2,
    'An import or preserve vendor source needs its origin: repository identity, immutable commit and the tree digest of the origin tree (ids: the vendor source).',
  ),

  // --- 8 state: binding a preservation contract to a unit -------------------------------------
  preservation_baseline_mismatch: def(8, "The preservation contract names a baseline commit that is not the unit's baseline (ids: the unit)."),
  preservation_not_bound: def(8, 'The unit has no preservation contract bound (governed preservation set first; ids: the unit).'),
  preservation_unchanged: def(8, 'The preservation contract is byte-for-byte the one already bound; nothing to record (ids: the unit).'),
  preservation_narrowing_unauthorized: def(
    8,
    'The new preservation contract removes or edits surfaces or vendor sources of the bound one (narrowing) without authority naming exactly them (ids: the narrowed ids).',
  ),
  preservation_authority_not_cited: def(8, 'An --authority record is not the authority_id of a destructive surface of the contract (ids: the record).'),
  incident_history_none_refused: def(
    8,
    "'No incident history' is refused: the log holds a correction, drift evidence, a DIRTY receipt or an ABORTED run of this unit (ids: the unit).",
  ),
  preservation_authority_missing: def(
    8,
    'A destructive surface names an authority record that is not given (--authority) and was not consumed for this unit with that disposition (ids: the surface).',
  ),

  // --- 4 verification: facts that must agree do not -------------------------------------------
  preservation_integrity_failed: def(4, 'A stored preservation contract or incident history row is not what its log entry recorded (edited behind governed).'),
  incident_history_mismatch: def(
    4,
    "The incident history bound to the unit is not the hash chain governed assembles from its own log (an entry edited, dropped or reordered; ids: the unit).",
  ),
  vendor_origin_unverifiable: def(
    4,
    'The origin tree given for a vendor source does not hold the named commit, or its tree digest differs from the contract (ids: the vendor source).',
  ),
  vendor_origin_is_local_copy: def(
    4,
    "The origin given for a vendor source is the product's own repository (the local copy), not an independent origin (ids: the vendor source).",
  ),

  // --- probes and the surface inventory --------------------------------------------------------
  preservation_adapter_not_configured: def(2, 'The policy names no preservation adapter (preservation_adapters) or no probe credential (credentials.probe); nothing ran.'),
  preservation_adapter_not_allowlisted: def(6, "The adapter program's sha256 is not on the policy's preservation_adapters.sha256 allowlist; nothing ran."),
  preservation_adapter_failed: def(9, 'The adapter did not run to a result in the sandbox (setup failure, timeout, output cap, or a non-zero exit); nothing was recorded.'),
  preservation_adapter_output_invalid: def(9, "The adapter's stdout is not one closed JSON object of the adapter protocol (or answers another entry); nothing was recorded."),
  preservation_surface_unknown: def(2, 'The surface named with --surface is not a probe-able surface of the bound preservation contract (ids: the surface, or --surface when the value is not an identifier: it is never printed).'),

  // --- 8 state: the preservation section of a review bundle ----------------------------------
  preservation_surface_unreviewable: def(
    8,
    'A view that shows preservation would not hold the evidence of every declared surface: probe receipts (baseline; in integration also current), the N/A reason of an `other` surface, or the consumed record of a destructive one; run `governed preservation probe` first (ids: the surfaces). Nothing was issued.',
  ),

  // --- 2 usage: incident corrections ------------------------------------------------------------
  incident_correction_invalid: def(2, 'An incident correction must be a non-empty UTF-8 text file within the size bound.'),
} as const satisfies Record<string, ErrorDef>;

export const PRESERVATION_REASONS = {} as const satisfies Record<string, string>;
