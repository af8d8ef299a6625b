// Migration 0009 (the number may move when other migrations land first): preservation bindings and
// incident corrections (docs/preservation.md). SQL only; written by the `preservation_set` and
// `incident_correction` reducers (reducers/preservation.ts).
//
// A preservation binding is immutable once recorded: the exact contract bytes and their digest, the
// authority records consumed for its destructive surfaces, and the incident history bound with it
// (the chain digest governed assembled from its own log, or `none`) and the log position that
// history covers. Versions are numbered 1, 2, ... per unit with no gap.
const hexGlob = (n: number): string => '[0-9a-f]'.repeat(n);
const DIGEST_GLOB = `sha256:${hexGlob(64)}`;

export const PRESERVATION_SQL = `
  CREATE TABLE preservation_versions (
    unit             TEXT    NOT NULL REFERENCES units(id),
    version          INTEGER NOT NULL CHECK (version >= 1),
    contract_bytes   BLOB    NOT NULL,
    contract_digest  TEXT    NOT NULL CHECK (contract_digest GLOB '${DIGEST_GLOB}'),
    -- Canonical JSON array of the authority record ids consumed by this binding (sorted).
    authorities      TEXT    NOT NULL,
    incident_history TEXT    NOT NULL CHECK (incident_history = 'none' OR incident_history GLOB '${DIGEST_GLOB}'),
    incident_upto    INTEGER NOT NULL CHECK (incident_upto >= 0),
    bound_at         INTEGER NOT NULL CHECK (bound_at >= 0),
    PRIMARY KEY (unit, version)
  ) STRICT;

  CREATE TABLE incident_corrections (
    unit        TEXT    NOT NULL REFERENCES units(id),
    log_seq     INTEGER NOT NULL CHECK (log_seq >= 1),
    digest      TEXT    NOT NULL CHECK (digest GLOB '${DIGEST_GLOB}'),
    bytes       BLOB    NOT NULL,
    recorded_at INTEGER NOT NULL CHECK (recorded_at >= 0),
    PRIMARY KEY (unit, log_seq)
  ) STRICT;

  -- The baseline surface inventory the allowlisted project adapter derived from a sealed snapshot
  -- of the baseline tree (canonical JSON of its closed entries), with the adapter's digest.
  CREATE TABLE surface_inventories (
    unit            TEXT    NOT NULL REFERENCES units(id),
    log_seq         INTEGER NOT NULL CHECK (log_seq >= 1),
    snapshot_digest TEXT    NOT NULL CHECK (snapshot_digest GLOB '${DIGEST_GLOB}'),
    adapter_sha256  TEXT    NOT NULL CHECK (length(adapter_sha256) = 64 AND adapter_sha256 NOT GLOB '*[^0-9a-f]*'),
    entries         TEXT    NOT NULL CHECK (json_valid(entries) AND json_type(entries) = 'array'),
    recorded_at     INTEGER NOT NULL CHECK (recorded_at >= 0),
    PRIMARY KEY (unit, log_seq)
  ) STRICT;

  -- Vendor origins verified at check time (preservation vendor-attest): the tree digest governed
  -- computed from the origin repository's own objects at the named commit.
  CREATE TABLE vendor_attestations (
    unit        TEXT    NOT NULL REFERENCES units(id),
    log_seq     INTEGER NOT NULL CHECK (log_seq >= 1),
    vendor      TEXT    NOT NULL CHECK (length(vendor) BETWEEN 3 AND 33),
    repository  TEXT    NOT NULL CHECK (length(repository) BETWEEN 1 AND 1024),
    git_commit  TEXT    NOT NULL CHECK (length(git_commit) IN (40, 64) AND git_commit NOT GLOB '*[^0-9a-f]*'),
    tree_digest TEXT    NOT NULL CHECK (tree_digest GLOB '${DIGEST_GLOB}'),
    recorded_at INTEGER NOT NULL CHECK (recorded_at >= 0),
    PRIMARY KEY (unit, log_seq)
  ) STRICT;

  -- Signed probe receipts (exact DSSE envelope bytes): one per adapter run, every surface's result in
  -- its statement (the rules re-read them from the envelope).
  CREATE TABLE probe_receipts (
    id              TEXT    PRIMARY KEY CHECK (id GLOB '${DIGEST_GLOB}'),
    unit            TEXT    NOT NULL REFERENCES units(id),
    phase           TEXT    NOT NULL CHECK (phase IN ('baseline', 'current')),
    snapshot_digest TEXT    NOT NULL CHECK (snapshot_digest GLOB '${DIGEST_GLOB}'),
    envelope        BLOB    NOT NULL,
    recorded_at     INTEGER NOT NULL CHECK (recorded_at >= 0),
    log_seq         INTEGER NOT NULL UNIQUE CHECK (log_seq >= 1)
  ) STRICT;
`;
