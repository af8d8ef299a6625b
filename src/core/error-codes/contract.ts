// Error and reason codes owned by the contract domain (docs/commands.md#exit-codes, docs/contract.md#the-request-contract). Add entries here only.
//
// Exit codes: a contract that is malformed or breaks a docs/contract.md#validation-rules rule is bad configuration input (2).
// A disposal whose authority does not verify, a rewritten history entry, or an authority whose scope
// does not name exactly the narrowed IDs is a verification failure (4). A bind that would drop an
// item, narrow scope without any authority, or leave workspace changes uncovered cannot run now (8).
import { def, type ErrorDef } from './def.js';

export const CONTRACT_ERRORS = {
  // --- parsing (docs/contract.md#the-request-contract, docs/threat-model.md#rules-that-hold-everywhere "Closed objects"): one code per kind of schema failure, id = field path
  contract_kind_invalid: def(2, 'The contract kind is not governed/request-contract.'),
  contract_version_unsupported: def(2, 'The contract version is not supported (only version 1).'),
  contract_field_unknown: def(2, 'A contract object carries a key its schema does not define.'),
  contract_field_missing: def(2, 'A required contract field is missing.'),
  contract_field_invalid: def(2, 'A contract field has the wrong type or a value outside its closed set.'),
  contract_field_too_large: def(2, 'A contract field exceeds its size or count cap.'),
  contract_fill_in_left: def(
    2,
    'A contract field still holds a placeholder of `governed contract init` (a value starting with <<FILL-IN); fill in each field named.',
  ),

  // --- identifiers (docs/contract.md#validation-rules)
  contract_id_invalid: def(2, 'An ID or reference does not match ^[A-Z][A-Z0-9]{1,7}-[A-Za-z0-9._-]{1,24}$.'),
  contract_id_duplicate: def(2, 'An ID is used by more than one item of the contract.'),
  contract_reference_unknown: def(2, 'A reference names an ID that is not an item of the expected kind.'),
  contract_reference_duplicate: def(2, 'A reference list names the same ID twice.'),
  contract_item_orphaned: def(2, 'An implementation or evidence item is not referenced by any directive.'),

  // --- sources and atom spans (docs/contract.md#validation-rules)
  contract_source_bytes_missing: def(2, 'The bytes of a contract source were not supplied for validation.'),
  contract_source_not_utf8: def(2, 'A contract source is not valid UTF-8, so atom character boundaries are undefined.'),
  contract_span_empty: def(2, 'An atom span is empty or reversed; spans are half-open [start, end) with start < end.'),
  contract_span_out_of_range: def(2, 'An atom span ends beyond the end of its source bytes.'),
  contract_span_not_char_boundary: def(2, 'An atom span starts or ends inside a UTF-8 character.'),
  contract_span_gap: def(2, 'The atom spans of a source leave bytes uncovered (they must tile the source).'),
  contract_span_overlap: def(2, 'Two atom spans of a source overlap (they must tile the source).'),

  // --- atoms, directives and their mappings (docs/contract.md#validation-rules)
  contract_obligation_unmapped: def(2, 'An obligation atom maps to no directive.'),
  contract_context_mapped: def(2, 'A context atom maps to a directive; context atoms map to none.'),
  contract_obligation_outside_directive_source: def(2, 'An obligation atom belongs to a context or reference source.'),
  contract_source_without_obligation: def(2, 'A directive-class source has no obligation atom.'),
  contract_directive_without_target: def(2, 'An active or done directive has no target.'),
  contract_directive_without_criterion: def(2, 'An active or done directive has no acceptance criterion.'),
  contract_atom_not_verbatim: def(2, "A mapped atom's bytes do not appear verbatim in its directive's statement or criteria."),
  contract_mapping_source_not_listed: def(2, "An obligation atom maps to a directive that does not list the atom's source."),
  contract_mapping_source_unbacked: def(2, 'A directive lists a source none of whose obligation atoms maps to it.'),
  contract_criterion_atom_unmapped: def(2, "A criterion names an atom that does not map to the criterion's directive."),

  // --- paths (docs/contract.md#validation-rules; file-ness and symlinks are checked by the workspace layer)
  contract_path_invalid: def(2, 'A path is not a normalized repository-relative path.'),
  contract_path_git_metadata: def(2, "A path lies inside git's own metadata (a `.git` segment): it is never a workspace file."),
  contract_path_duplicate: def(2, 'A path list names the same path twice.'),
  contract_path_outside_roots: def(2, 'A path is not inside the product roots.'),
  contract_product_root_invalid: def(2, 'A product root is not "." or a normalized repository-relative path.'),

  // --- disposal by tombstone (docs/contract.md#validation-rules "Dispositions")
  contract_directive_undisposed: def(2, 'A deferred, superseded or abandoned directive has no tombstone.'),
  contract_tombstone_duplicate: def(2, 'A directive has more than one tombstone.'),
  contract_tombstone_directive_live: def(2, 'A tombstone names a directive that is active or done.'),
  contract_tombstone_operation_mismatch: def(2, "A tombstone's authority operation does not match its directive's state."),
  contract_tombstone_disposes_mismatch: def(
    2,
    'A tombstone does not dispose exactly its directive, targets, criteria, implementations, evidence and relations.',
  ),
  contract_tombstone_disposes_live: def(2, 'A tombstone without a directive names an item or relation that is still live.'),
  contract_tombstone_authority_invalid: def(4, "A tombstone's authority record is not a valid signed record of its operation."),

  // --- digests (docs/contract.md#the-states-a-receipt-is-judged-against)
  contract_digest_input_invalid: def(2, 'An input of a planning, content or work-state digest is malformed or incomplete.'),

  // --- scope history (docs/contract.md#scope-history)
  contract_item_disappeared: def(8, 'A directive, source, authority or tombstone of the current scope is missing from the new contract.'),
  contract_history_rewritten: def(4, 'An authority or tombstone of the current scope was edited; they are immutable.'),
  contract_narrowing_unauthorized: def(8, 'The new contract narrows scope and no authority record was given.'),
  contract_narrowing_authority_mismatch: def(4, 'The authority scope does not name exactly the narrowed IDs.'),

  // --- workspace changes (docs/contract.md#validation-rules last rule)
  contract_change_uncovered: def(8, 'A changed path is covered by no target, implementation or evidence path of a live directive.'),
} as const satisfies Record<string, ErrorDef>;

export const CONTRACT_REASONS = {} as const satisfies Record<string, string>;
