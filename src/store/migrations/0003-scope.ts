// Migration 0003: scope versions of units (docs/contract.md#scope-history) and the source digests each one binds (docs/contract.md#validation-rules).
// SQL only; written by the `scope_bind` reducer (reducers/scope.ts). See docs/state.md.
//
// A scope version is immutable once bound: the exact contract bytes, their digests, the digests of
// the source bytes read from the baseline tree, the diff against the previous version and the
// authority records consumed for it. Versions are numbered 1, 2, ... per unit with no gap.
const hexGlob = (n: number): string => '[0-9a-f]'.repeat(n);
const DIGEST_GLOB = `sha256:${hexGlob(64)}`;

export const SCOPE_SQL = `
  CREATE TABLE scope_versions (
    unit            TEXT    NOT NULL REFERENCES units(id),
    version         INTEGER NOT NULL CHECK (version >= 1),
    scope_epoch     INTEGER NOT NULL CHECK (scope_epoch >= 1),
    work_revision   INTEGER NOT NULL CHECK (work_revision >= 0),
    scope_changed   INTEGER NOT NULL CHECK (scope_changed IN (0, 1)),
    contract_bytes  BLOB    NOT NULL,
    -- sha256 of the exact file bytes, and the docs/threat-model.md#rules-that-hold-everywhere digest of the parsed contract.
    contract_file_digest TEXT NOT NULL CHECK (contract_file_digest GLOB '${DIGEST_GLOB}'),
    contract_digest TEXT    NOT NULL CHECK (contract_digest GLOB '${DIGEST_GLOB}'),
    sources_digest  TEXT    NOT NULL CHECK (sources_digest GLOB '${DIGEST_GLOB}'),
    -- Canonical JSON (RFC 8785) of the diff against the previous version: {additions, narrowing, progress}.
    diff            TEXT    NOT NULL,
    -- Canonical JSON array of the authority record ids consumed by this bind (sorted).
    authorities     TEXT    NOT NULL,
    bound_at        INTEGER NOT NULL CHECK (bound_at >= 0),
    PRIMARY KEY (unit, version),
    UNIQUE (unit, scope_epoch, work_revision)
  ) STRICT;

  CREATE TABLE scope_sources (
    unit     TEXT    NOT NULL,
    version  INTEGER NOT NULL,
    source   TEXT    NOT NULL CHECK (length(source) BETWEEN 3 AND 33),
    path     TEXT    NOT NULL CHECK (length(path) BETWEEN 1 AND 4096),
    digest   TEXT    NOT NULL CHECK (digest GLOB '${DIGEST_GLOB}'),
    PRIMARY KEY (unit, version, source),
    FOREIGN KEY (unit, version) REFERENCES scope_versions(unit, version)
  ) STRICT;
`;
