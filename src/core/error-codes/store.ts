// Error and reason codes owned by the store domain (docs/commands.md#exit-codes, docs/state.md#the-store). Add entries here only.
//
// Exit-code choices (docs/commands.md#exit-codes):
// - a missing / uninitialised store is a configuration problem of the caller (--home points at
//   nothing), so exit 2, not 7 (7 is about missing *evidence* for a unit that exists);
// - re-initialising and lease conflicts are "a command that cannot run now": exit 8;
// - an exposed state directory, a broken chain or a state that does not match its log is
//   tampering-grade: exit 4 (like an exposed private key in the foundation table);
// - an expired lease is stale: exit 5.
import { def, type ErrorDef } from './def.js';

export const STORE_ERRORS = {
  // --- 1 internal (programming errors: fail closed, nothing committed) ----------------------
  store_time_invalid: def(1, 'A store operation was given a time that is not whole non-negative seconds.'),
  store_nested_mutation: def(1, 'A state change was started inside another one; compose inside one transaction instead.'),
  store_write_outside_log: def(1, 'A state change wrote a table without a log entry; it was rolled back.'),

  // --- 2 usage / configuration -------------------------------------------------------------
  store_missing: def(2, 'No initialised governed store exists in the state directory; run governed init.'),
  store_version_unsupported: def(2, 'The store schema is newer than this version of governed.'),
  store_migration_required: def(
    2,
    'The store schema is older than this version of governed and this command only reads it; run a command that writes the store (e.g. governed status) to migrate it first.',
  ),
  replay_target_not_empty: def(2, 'A log replay target must be a new, empty database file.'),
  unit_baseline_invalid: def(2, 'A unit baseline must be a resolved git commit id and tree id.'),
  writer_session_invalid: def(2, 'A writer session id must match ^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$.'),
  process_identity_invalid: def(2, 'A process identity (boot id, pid, start time) is malformed.'),
  process_not_found: def(2, 'No running process has the given pid.'),
  lease_ttl_invalid: def(2, 'A lease TTL must be whole seconds between 1 and 604800 (7 days).'),
  lease_unknown: def(2, 'No lease with this id exists.'),

  // --- 4 verification / tampering ----------------------------------------------------------
  store_permissions_unsafe: def(
    4,
    'The state directory, bundles directory or database is a symlink, not owned by this user, or accessible to group/others.',
  ),
  log_chain_broken: def(4, 'The log chain is broken: a sequence gap or a prev_hash that does not match the previous entry.'),
  log_entry_hash_mismatch: def(4, 'A log entry hash does not match its recomputed value.'),
  log_payload_digest_mismatch: def(4, 'A log entry payload does not match its recorded digest.'),
  log_payload_invalid: def(4, 'A log entry has an unknown type, a non-canonical payload or one outside its schema.'),
  log_time_invalid: def(4, 'A log entry time is not whole seconds between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z.'),
  log_entry_not_applicable: def(4, 'A log entry cannot be applied to the state that precedes it.'),
  state_replay_mismatch: def(4, 'Replaying the log does not reproduce the stored state.'),

  // --- 5 stale -------------------------------------------------------------------------------
  lease_expired: def(5, 'The lease has expired; only a new lease can be acquired.'),

  // --- 7 no evidence ---------------------------------------------------------------------------
  unit_unknown: def(7, 'No unit with this id exists.'),

  // --- 8 refused by state ------------------------------------------------------------------
  store_already_initialized: def(8, 'The store is already initialised; init refuses to run twice.'),
  store_busy: def(8, 'The store stayed locked by another process beyond the busy timeout; nothing was changed.'),
  store_constraint_violation: def(8, 'A one-time fact is already recorded (UNIQUE constraint); nothing was changed.'),
  writer_not_registered: def(8, 'The writer session is not registered for this unit.'),
  writer_already_registered: def(8, 'The writer session is already registered for this unit.'),
  writer_identity_in_use: def(8, 'This process identity is already registered for this unit under another session.'),
  writer_process_not_independent: def(8, 'The process cannot be a writer: it is not in this host\'s pid, user and mount namespaces (a sandbox), or its namespaces cannot be read, or it descends from the runner of a live run (its sandbox or attestors). Nothing was registered.'),
  lease_held: def(8, 'A mutation lease is already active on this unit.'),
  lease_not_holder: def(8, 'Only the writer session holding a lease may release it.'),
  lease_not_active: def(8, 'The lease was already released.'),
  store_clock_regressed: def(
    8,
    'The clock reads earlier than the newest log entry; nothing is recorded until it has caught up (an expired fact must not become valid again).',
  ),
} as const satisfies Record<string, ErrorDef>;

export const STORE_REASONS = {} as const satisfies Record<string, string>;
