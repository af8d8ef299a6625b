// Migration 0002: authority requests, records and their one-time consumption (docs/authority.md#human-authority-records), and the
// history of policy / trust-root updates (docs/state.md#the-store, docs/policy.md#policy-and-trust-root). SQL only; the reducers that write these
// tables are in ../reducers/authority.ts.
//
// One-time facts are constraints, not just checks (docs/state.md#the-store): a nonce belongs to one request
// (UNIQUE), a request yields at most one record (UNIQUE request), a record is consumed at most once
// (PRIMARY KEY record), and one consumed record replaces a pin at most once (UNIQUE record).
const hexGlob = (n: number): string => '[0-9a-f]'.repeat(n);
const DIGEST_GLOB = `sha256:${hexGlob(64)}`;
const UNIT_GLOB = `UNIT-${hexGlob(32)}`;
const REQUEST_GLOB = `ARQ-${hexGlob(32)}`;
const RECORD_GLOB = `REC-${hexGlob(24)}`;
const OPERATIONS = [
  'authorize',
  'add',
  'replace',
  'supersede',
  'defer',
  'abandon',
  'remove',
  'disable',
  'redirect',
  'migrate',
  'dismiss',
  'dismiss_veto',
  'policy_update',
  'trust_update',
]
  .map((o) => `'${o}'`)
  .join(', ');

export const AUTHORITY_SQL = `
  -- One row per \`authority request\`: the exact canonical statement the human is asked to sign.
  CREATE TABLE authority_requests (
    id             TEXT    PRIMARY KEY CHECK (id GLOB '${REQUEST_GLOB}'),
    nonce          TEXT    NOT NULL UNIQUE CHECK (nonce GLOB '${hexGlob(64)}'),
    operation      TEXT    NOT NULL CHECK (operation IN (${OPERATIONS})),
    unit           TEXT    REFERENCES units(id) CHECK (unit IS NULL OR unit GLOB '${UNIT_GLOB}'),
    statement      BLOB    NOT NULL,
    payload_digest TEXT    NOT NULL UNIQUE CHECK (payload_digest GLOB '${DIGEST_GLOB}'),
    issued_at      INTEGER NOT NULL CHECK (issued_at >= 0),
    expires_at     INTEGER NOT NULL,
    requested_seq  INTEGER NOT NULL UNIQUE CHECK (requested_seq >= 1),
    CHECK (expires_at > issued_at)
  ) STRICT;

  -- Recorded authority records: the exact envelope bytes (docs/state.md#the-store) and the fields of its statement
  -- that consumers query. A request yields at most one record (the nonce is single-use).
  CREATE TABLE authority_records (
    id             TEXT    PRIMARY KEY CHECK (id GLOB '${RECORD_GLOB}'),
    request        TEXT    NOT NULL UNIQUE REFERENCES authority_requests(id),
    payload_digest TEXT    NOT NULL UNIQUE CHECK (payload_digest GLOB '${DIGEST_GLOB}'),
    envelope       BLOB    NOT NULL,
    key_id         TEXT    NOT NULL CHECK (key_id GLOB '${hexGlob(64)}'),
    operation      TEXT    NOT NULL CHECK (operation IN (${OPERATIONS})),
    unit           TEXT    REFERENCES units(id),
    ids            TEXT    NOT NULL CHECK (json_valid(ids) AND json_type(ids) = 'array'),
    state_before   TEXT    CHECK (state_before IS NULL OR state_before GLOB '${DIGEST_GLOB}'),
    state_after    TEXT    CHECK (state_after IS NULL OR state_after GLOB '${DIGEST_GLOB}'),
    expires_at     INTEGER NOT NULL,
    recorded_at    INTEGER NOT NULL CHECK (recorded_at >= 0),
    recorded_seq   INTEGER NOT NULL UNIQUE CHECK (recorded_seq >= 1)
  ) STRICT;

  -- Consumption: a record is judged and used exactly once, at this log position (docs/authority.md#human-authority-records).
  CREATE TABLE authority_consumptions (
    record       TEXT    PRIMARY KEY REFERENCES authority_records(id),
    operation    TEXT    NOT NULL CHECK (operation IN (${OPERATIONS})),
    unit         TEXT    REFERENCES units(id),
    consumed_at  INTEGER NOT NULL CHECK (consumed_at >= 0),
    consumed_seq INTEGER NOT NULL UNIQUE CHECK (consumed_seq >= 1)
  ) STRICT;

  -- Every replacement of the pinned policy or trust root (docs/state.md#the-store, docs/policy.md#policy-and-trust-root): the log position from
  -- which the new document is in force (receipts before it stop counting: every streak restarts),
  -- the digests before and after, the new bytes, and the consumed record that authorised it.
  CREATE TABLE pin_updates (
    seq           INTEGER PRIMARY KEY CHECK (seq >= 1),
    kind          TEXT    NOT NULL CHECK (kind IN ('policy', 'trust')),
    digest_before TEXT    NOT NULL CHECK (digest_before GLOB '${DIGEST_GLOB}'),
    digest        TEXT    NOT NULL CHECK (digest GLOB '${DIGEST_GLOB}'),
    bytes         BLOB    NOT NULL,
    record        TEXT    NOT NULL UNIQUE REFERENCES authority_consumptions(record),
    updated_at    INTEGER NOT NULL CHECK (updated_at >= 0),
    CHECK (digest <> digest_before)
  ) STRICT;
`;
