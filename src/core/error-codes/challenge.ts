// Error and reason codes of src/flows/challenge and the flows around it (docs/commands.md#exit-codes): `init`, units and scope binds,
// writers and leases at the CLI, and `review-challenge` with its bundle. Add entries here only.
//
// Exit-code choices (docs/commands.md#exit-codes):
// - inputs that are wrong whatever the state (a source missing from the baseline, a contract path
//   that names a directory or symlink, the state directory inside the reviewed workspace) are
//   usage/configuration errors: 2;
// - a policy or trust root other than the pinned one, or a stored scope whose bytes no longer match
//   their bound digest, is drift/tampering: 4;
// - a policy credential whose key the trust root does not hold for that role is an untrusted key: 6;
// - what the unit's current state forbids now (an active lease, an exhausted run budget, a bundle
//   over the policy's cap, a view with nothing in it, a state that moved while issuing) is 8.
import { def, type ErrorDef } from './def.js';

export const CHALLENGE_ERRORS = {
  // --- 1 internal -----------------------------------------------------------------------------
  bundle_write_failed: def(1, 'The review bundle could not be written (exclusive create, mode 0600); nothing was recorded.'),
  prior_receipts_unavailable: def(1, 'A stored receipt of an earlier stage does not fit the bundle schema; the bundle is refused, never incomplete.'),

  // --- 2 usage / configuration --------------------------------------------------------------
  contract_source_not_in_baseline: def(2, 'A contract source is not a regular file of the unit baseline tree.'),
  contract_path_not_file: def(
    2,
    'A contract path names a directory, a symlink, a special file, a file reached through a symlink, or a file outside the reviewed workspace (ignored or excluded).',
  ),
  state_dir_in_workspace: def(2, 'The state directory lies inside the reviewed product roots and is not excluded by the policy.'),
  unit_authority_not_cited: def(2, 'An authority record given to bind is not cited in the new contract authorities.'),
  lease_ttl_unparseable: def(2, 'A lease TTL must be a duration like 30m, 2h or 1d.'),

  // --- 4 verification / drift ---------------------------------------------------------------
  policy_not_pinned: def(4, 'The given policy differs from the policy pinned in the store.'),
  trust_not_pinned: def(4, 'The given trust root differs from the trust root pinned in the store.'),
  pin_integrity_failed: def(4, 'A pinned policy or trust root no longer matches its recorded digest or schema.'),
  scope_integrity_failed: def(4, 'A stored scope version no longer matches its bound digests.'),

  // --- 6 untrusted ----------------------------------------------------------------------------
  policy_credential_untrusted: def(6, 'A policy credential names a key that the trust root does not hold for that role.'),

  // --- 8 refused by state -------------------------------------------------------------------
  challenge_lease_active: def(8, 'A mutation lease is active; no review challenge is issued while any lease is active.'),
  challenge_budget_exhausted: def(8, 'This slot already has max_runs_per_content challenges for the current content digest.'),
  challenge_state_moved: def(8, 'The unit state changed while the challenge was being built; nothing was recorded.'),
  unit_scope_moved: def(8, 'Another scope version was bound while this bind was being prepared; nothing was recorded.'),
  bundle_too_large: def(8, 'The review bundle exceeds the policy max_bundle; it is refused, never truncated.'),
  bundle_view_empty: def(8, 'The evidence view for this slot would show nothing; an empty view is refused.'),
} as const satisfies Record<string, ErrorDef>;

export const CHALLENGE_REASONS = {} as const satisfies Record<string, string>;
