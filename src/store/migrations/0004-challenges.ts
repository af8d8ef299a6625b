// Migration 0004: review challenges (docs/bundle.md#views, docs/decision.md#the-rules-in-short; docs/state.md#review-challenge). SQL only; written by the
// `challenge_issue` and `challenge_sweep` reducers (reducers/challenges.ts). See docs/state.md for
// every column and for the status transitions the runs domain may add.
//
// One row per issued challenge with every digest bound at issuance. `ordinal` numbers the
// challenges of one (unit, stage, slot, content digest) from 1: the UNIQUE constraint makes two
// racing issuers unable to take the same ordinal, and the issuer refuses ordinals beyond the
// policy's max_runs_per_content (docs/reviewers.md#reviewer-output "Runs are rate-limited ... lease cycles cannot reset the
// budget"), so the budget holds even under concurrency.
const hexGlob = (n: number): string => '[0-9a-f]'.repeat(n);
const DIGEST_GLOB = `sha256:${hexGlob(64)}`;
const CHALLENGE_GLOB = `CHL-${hexGlob(32)}`;
const OID_CHECK = (col: string): string => `length(${col}) IN (40, 64) AND ${col} NOT GLOB '*[^0-9a-f]*'`;

export const CHALLENGES_SQL = `
  CREATE TABLE challenges (
    id                    TEXT    PRIMARY KEY CHECK (id GLOB '${CHALLENGE_GLOB}'),
    unit                  TEXT    NOT NULL REFERENCES units(id),
    stage                 TEXT    NOT NULL CHECK (stage IN ('planning', 'development', 'test', 'integration')),
    slot                  TEXT    NOT NULL CHECK (length(slot) BETWEEN 1 AND 32 AND slot NOT GLOB '*[^a-z0-9_-]*'),
    ordinal               INTEGER NOT NULL CHECK (ordinal >= 1),
    writer_session        TEXT    NOT NULL,
    reviewer_name         TEXT    NOT NULL CHECK (length(reviewer_name) BETWEEN 1 AND 32),
    reviewer_sha256       TEXT    NOT NULL CHECK (length(reviewer_sha256) = 64 AND reviewer_sha256 NOT GLOB '*[^0-9a-f]*'),
    reviewer_interpreter  TEXT    NOT NULL CHECK (reviewer_interpreter GLOB '/usr/*'),
    view                  TEXT    NOT NULL CHECK (length(view) BETWEEN 1 AND 32),
    bundle_digest         TEXT    NOT NULL CHECK (bundle_digest GLOB '${DIGEST_GLOB}'),
    bundle_size           INTEGER NOT NULL CHECK (bundle_size >= 2),
    view_digest           TEXT    NOT NULL CHECK (view_digest GLOB '${DIGEST_GLOB}'),
    planning_state_digest TEXT    NOT NULL CHECK (planning_state_digest GLOB '${DIGEST_GLOB}'),
    content_digest        TEXT    NOT NULL CHECK (content_digest GLOB '${DIGEST_GLOB}'),
    work_state_digest     TEXT    NOT NULL CHECK (work_state_digest GLOB '${DIGEST_GLOB}'),
    contract_digest       TEXT    NOT NULL CHECK (contract_digest GLOB '${DIGEST_GLOB}'),
    sources_digest        TEXT    NOT NULL CHECK (sources_digest GLOB '${DIGEST_GLOB}'),
    workspace_digest      TEXT    NOT NULL CHECK (workspace_digest GLOB '${DIGEST_GLOB}'),
    baseline_commit       TEXT    NOT NULL CHECK (${OID_CHECK('baseline_commit')}),
    baseline_tree         TEXT    NOT NULL CHECK (${OID_CHECK('baseline_tree')}),
    policy_digest         TEXT    NOT NULL CHECK (policy_digest GLOB '${DIGEST_GLOB}'),
    trust_digest          TEXT    NOT NULL CHECK (trust_digest GLOB '${DIGEST_GLOB}'),
    scope_version         INTEGER NOT NULL CHECK (scope_version >= 1),
    scope_epoch           INTEGER NOT NULL CHECK (scope_epoch >= 1),
    work_revision         INTEGER NOT NULL CHECK (work_revision >= 0),
    issued_at             INTEGER NOT NULL CHECK (issued_at >= 0),
    expires_at            INTEGER NOT NULL,
    -- open → expired (challenge_sweep, this domain); open → claimed → consumed | aborted (runs domain).
    status                TEXT    NOT NULL CHECK (status IN ('open', 'claimed', 'consumed', 'aborted', 'expired')),
    ended_at              INTEGER,
    CHECK (expires_at > issued_at),
    CHECK ((status IN ('open', 'claimed')) = (ended_at IS NULL)),
    FOREIGN KEY (unit, writer_session) REFERENCES writers(unit, session),
    FOREIGN KEY (unit, scope_version) REFERENCES scope_versions(unit, version),
    UNIQUE (unit, stage, slot, content_digest, ordinal)
  ) STRICT;
  CREATE INDEX challenges_open_expiry ON challenges(expires_at) WHERE status = 'open';
`;
