// Migration 0005: review runs (docs/runner.md#the-run-step-by-step): the claim, and its one outcome — a receipt or ABORTED.
//
// One-time facts are UNIQUE constraints (docs/state.md#the-store): one run per challenge, one execution id, one
// receipt per run, so two processes racing on one challenge yield exactly one run. `status` moves
// claimed → receipt | aborted exactly once (reducers/runs.ts guards every transition).
const hexGlob = (n: number): string => '[0-9a-f]'.repeat(n);
const DIGEST_GLOB = `sha256:${hexGlob(64)}`;

export const RUNS_SQL = `
  CREATE TABLE runs (
    id                TEXT    PRIMARY KEY CHECK (id GLOB 'RUN-${hexGlob(32)}'),
    challenge_id      TEXT    NOT NULL UNIQUE REFERENCES challenges(id),
    execution_id      TEXT    NOT NULL UNIQUE CHECK (execution_id GLOB 'EXE-${hexGlob(32)}'),
    unit              TEXT    NOT NULL REFERENCES units(id),
    stage             TEXT    NOT NULL CHECK (stage IN ('planning', 'development', 'test', 'integration')),
    slot              TEXT    NOT NULL,
    reviewer_name     TEXT    NOT NULL,
    reviewer_sha256   TEXT    NOT NULL CHECK (length(reviewer_sha256) = 64 AND reviewer_sha256 NOT GLOB '*[^0-9a-f]*'),
    runner_boot_id    TEXT    NOT NULL CHECK (length(runner_boot_id) = 36),
    runner_pid        INTEGER NOT NULL CHECK (runner_pid >= 1),
    runner_start_time TEXT    NOT NULL CHECK (length(runner_start_time) BETWEEN 1 AND 20 AND runner_start_time NOT GLOB '*[^0-9]*'),
    claimed_at        INTEGER NOT NULL CHECK (claimed_at >= 0),
    deadline          INTEGER NOT NULL,
    claim_seq         INTEGER NOT NULL CHECK (claim_seq >= 1),
    status            TEXT    NOT NULL CHECK (status IN ('claimed', 'receipt', 'aborted')),
    ended_at          INTEGER,
    end_seq           INTEGER,
    abort_code        TEXT    CHECK (abort_code IS NULL OR (length(abort_code) BETWEEN 1 AND 64 AND abort_code NOT GLOB '*[^a-z0-9_]*')),
    CHECK (deadline > claimed_at),
    CHECK ((status = 'claimed') = (ended_at IS NULL)),
    CHECK ((status = 'claimed') = (end_seq IS NULL)),
    CHECK ((status = 'aborted') = (abort_code IS NOT NULL))
  ) STRICT;
  CREATE INDEX runs_claimed ON runs(unit) WHERE status = 'claimed';
  CREATE INDEX runs_unit_stage_slot ON runs(unit, stage, slot);

  -- Receipts are stored as the exact envelope bytes (docs/state.md#the-store); the columns beside them are
  -- derived from the verified payload at commit, for indexed queries by the decision rules.
  CREATE TABLE receipts (
    id                    TEXT    PRIMARY KEY CHECK (id GLOB '${DIGEST_GLOB}'),
    run_id                TEXT    NOT NULL UNIQUE REFERENCES runs(id),
    unit                  TEXT    NOT NULL REFERENCES units(id),
    stage                 TEXT    NOT NULL,
    slot                  TEXT    NOT NULL,
    verdict               TEXT    NOT NULL CHECK (verdict IN ('CLEAN', 'DIRTY')),
    has_veto              INTEGER NOT NULL CHECK (has_veto IN (0, 1)),
    planning_state_digest TEXT    NOT NULL CHECK (planning_state_digest GLOB '${DIGEST_GLOB}'),
    content_digest        TEXT    NOT NULL CHECK (content_digest GLOB '${DIGEST_GLOB}'),
    work_state_digest     TEXT    NOT NULL CHECK (work_state_digest GLOB '${DIGEST_GLOB}'),
    policy_digest         TEXT    NOT NULL CHECK (policy_digest GLOB '${DIGEST_GLOB}'),
    trust_digest          TEXT    NOT NULL CHECK (trust_digest GLOB '${DIGEST_GLOB}'),
    envelope              BLOB    NOT NULL,
    recorded_at           INTEGER NOT NULL CHECK (recorded_at >= 0),
    log_seq               INTEGER NOT NULL UNIQUE CHECK (log_seq >= 1)
  ) STRICT;
  CREATE INDEX receipts_unit_stage ON receipts(unit, stage, log_seq);

  -- review-run finds the hash-chained challenge_issue entry of a challenge by its time (= issued_at)
  -- to prove the challenge row was not edited (docs/runner.md#the-run-step-by-step step 1; store/runs.ts challengeIssueEntry).
  CREATE INDEX log_challenge_issue_time ON log(time) WHERE type = 'challenge_issue';
`;
