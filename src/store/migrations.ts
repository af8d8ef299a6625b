// Numbered schema migrations (docs/state.md#the-store "Schema changes are numbered migrations"). MIGRATIONS[i]
// brings the database from user_version i to i+1. Never edit a released entry: append a new one.
//
// Every table is STRICT (no silent type coercion, so the canonical state digest sees exactly the
// types the reducers wrote) and every column a reducer writes is constrained, so a reducer bug or a
// tampered log fails loudly instead of storing a malformed row.
import type Database from 'better-sqlite3';
import { fail } from '../core/errors.js';
import { AUTHORITY_SQL } from './migrations/0002-authority.js';
import { SCOPE_SQL } from './migrations/0003-scope.js';
import { CHALLENGES_SQL } from './migrations/0004-challenges.js';
import { RUNS_SQL } from './migrations/0005-runs.js';
import { DECISION_INDEXES_SQL } from './migrations/0006-decision-indexes.js';
import { LOG_UNIT_INDEXES_SQL } from './migrations/0007-log-unit-indexes.js';
import { TLOG_SQL } from './migrations/0008-tlog.js';
import { backfillTree } from './tree.js';
import { PRESERVATION_SQL } from './migrations/0009-preservation.js';
import { backfillReceiptTrustModes, RECEIPT_TRUST_MODE_SQL } from './migrations/0010-receipt-trust-mode.js';

const GENESIS = `sha256:${'0'.repeat(64)}`;
const hexGlob = (n: number): string => '[0-9a-f]'.repeat(n);
const DIGEST_GLOB = `sha256:${hexGlob(64)}`;
const UNIT_GLOB = `UNIT-${hexGlob(32)}`;
const LEASE_GLOB = `LSE-${hexGlob(32)}`;

export const MIGRATIONS: readonly string[] = [
  // 1: the hash-chained log (docs/state.md#the-store), pins, units, writers, mutation leases.
  `
  CREATE TABLE log (
    seq            INTEGER PRIMARY KEY CHECK (seq >= 1),
    time           INTEGER NOT NULL CHECK (time >= 0),
    type           TEXT    NOT NULL CHECK (length(type) BETWEEN 1 AND 64 AND type NOT GLOB '*[^a-z0-9_]*'),
    unit           TEXT,
    payload        BLOB    NOT NULL,
    payload_digest TEXT    NOT NULL CHECK (payload_digest GLOB '${DIGEST_GLOB}'),
    prev_hash      TEXT    NOT NULL CHECK (prev_hash GLOB '${DIGEST_GLOB}'),
    entry_hash     TEXT    NOT NULL UNIQUE CHECK (entry_hash GLOB '${DIGEST_GLOB}')
  ) STRICT;

  -- Log rows are never updated or deleted (docs/state.md#the-store). An attacker with the file can drop these
  -- triggers; verifyChain (and checkpoints that left the machine) detect what they then do.
  CREATE TRIGGER log_no_update BEFORE UPDATE ON log
  BEGIN SELECT RAISE(ABORT, 'governed log is append-only'); END;
  CREATE TRIGGER log_no_delete BEFORE DELETE ON log
  BEGIN SELECT RAISE(ABORT, 'governed log is append-only'); END;
  -- Appends must extend the chain: contiguous seq and prev_hash = the previous entry_hash.
  CREATE TRIGGER log_append_extends_chain BEFORE INSERT ON log
  BEGIN
    SELECT RAISE(ABORT, 'governed log append does not extend the chain')
    WHERE NEW.seq IS NOT (SELECT COALESCE(MAX(seq), 0) + 1 FROM log)
       OR NEW.prev_hash IS NOT COALESCE((SELECT entry_hash FROM log ORDER BY seq DESC LIMIT 1), '${GENESIS}');
  END;

  -- The pinned policy and trust root (docs/commands.md#what-each-command-guarantees init, docs/policy.md#policy-and-trust-root): canonical digest and exact bytes.
  CREATE TABLE pins (
    kind      TEXT    PRIMARY KEY CHECK (kind IN ('policy', 'trust')),
    digest    TEXT    NOT NULL CHECK (digest GLOB '${DIGEST_GLOB}'),
    bytes     BLOB    NOT NULL,
    pinned_at INTEGER NOT NULL CHECK (pinned_at >= 0)
  ) STRICT;

  -- Units of work (docs/overview.md#words, docs/contract.md#the-states-a-receipt-is-judged-against). The baseline is resolved once, never re-resolved.
  -- Scope versions and contracts get their own tables in a later migration, keyed by units.id.
  CREATE TABLE units (
    id              TEXT    PRIMARY KEY CHECK (id GLOB '${UNIT_GLOB}'),
    baseline_commit TEXT    NOT NULL CHECK (length(baseline_commit) IN (40, 64) AND baseline_commit NOT GLOB '*[^0-9a-f]*'),
    baseline_tree   TEXT    NOT NULL CHECK (length(baseline_tree) IN (40, 64) AND baseline_tree NOT GLOB '*[^0-9a-f]*'),
    work_revision   INTEGER NOT NULL CHECK (work_revision >= 0),
    scope_epoch     INTEGER NOT NULL CHECK (scope_epoch >= 0),
    created_at      INTEGER NOT NULL CHECK (created_at >= 0)
  ) STRICT;

  -- Writer sessions and the host process identity of each (docs/commands.md#what-each-command-guarantees writer register). One process
  -- identity is one writer session per unit (a one-time fact, docs/state.md#the-store).
  CREATE TABLE writers (
    unit          TEXT    NOT NULL REFERENCES units(id),
    session       TEXT    NOT NULL CHECK (length(session) BETWEEN 1 AND 128),
    boot_id       TEXT    NOT NULL CHECK (length(boot_id) = 36),
    pid           INTEGER NOT NULL CHECK (pid >= 1),
    start_time    INTEGER NOT NULL CHECK (start_time >= 0),
    registered_at INTEGER NOT NULL CHECK (registered_at >= 0),
    PRIMARY KEY (unit, session),
    UNIQUE (unit, boot_id, pid, start_time)
  ) STRICT;

  -- Mutation leases (docs/overview.md#words): at most one active lease per unit, enforced by a partial UNIQUE
  -- index so two racing processes cannot both hold one.
  CREATE TABLE leases (
    id          TEXT    PRIMARY KEY CHECK (id GLOB '${LEASE_GLOB}'),
    unit        TEXT    NOT NULL REFERENCES units(id),
    session     TEXT    NOT NULL,
    acquired_at INTEGER NOT NULL CHECK (acquired_at >= 0),
    expires_at  INTEGER NOT NULL,
    state       TEXT    NOT NULL CHECK (state IN ('active', 'released', 'expired')),
    ended_at    INTEGER,
    FOREIGN KEY (unit, session) REFERENCES writers(unit, session),
    CHECK (expires_at > acquired_at),
    CHECK ((state = 'active') = (ended_at IS NULL))
  ) STRICT;
  CREATE UNIQUE INDEX leases_one_active_per_unit ON leases(unit) WHERE state = 'active';
  `,
  // 2..5: one file per domain under ./migrations/ (parallel work never edits one shared string).
  AUTHORITY_SQL,
  SCOPE_SQL,
  CHALLENGES_SQL,
  RUNS_SQL,
  DECISION_INDEXES_SQL,
  LOG_UNIT_INDEXES_SQL,
  TLOG_SQL,
  PRESERVATION_SQL,
  RECEIPT_TRUST_MODE_SQL,
];

/** Work a migration does beyond its SQL, run right after it in the same transaction. */
const AFTER: { readonly [version: number]: (db: Database.Database) => void } = { 8: backfillTree, 10: backfillReceiptTrustModes };

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Bring `db` to SCHEMA_VERSION in ONE immediate transaction (so two processes opening a fresh store
 * at once cannot both migrate: the second waits on the lock, then re-reads user_version and finds
 * nothing to do). A database newer than this code is refused: old code must not write a schema it
 * does not know.
 */
export function applyMigrations(db: Database.Database): number {
  const migrate = db.transaction(() => {
    const current = db.pragma('user_version', { simple: true });
    if (typeof current !== 'number' || !Number.isSafeInteger(current) || current < 0) fail('store_version_unsupported');
    if (current > SCHEMA_VERSION) fail('store_version_unsupported', [`schema:${current}`]);
    for (let v = current; v < SCHEMA_VERSION; v++) {
      const sql = MIGRATIONS[v];
      if (sql === undefined) fail('internal_error', [`migration:${v + 1}`]);
      db.exec(sql);
      AFTER[v + 1]?.(db);
    }
    if (current !== SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
    return SCHEMA_VERSION;
  });
  return migrate.immediate();
}
