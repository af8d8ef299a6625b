// Review runs at store level (docs/runner.md#the-run-step-by-step steps 3 and 9, docs/state.md#the-store one-time facts): claim a challenge, then
// end the run exactly once — as a receipt or as ABORTED. A claim never silently disappears: a
// claim whose runner process is gone, or whose deadline passed, is turned into ABORTED by the
// next command that touches the unit (`reapStaleClaimsIn`); a live run is never aborted by
// another process, and the commit of a run whose claim was aborted meanwhile fails.
import { randomBytes } from 'node:crypto';
import { sha256Digest } from '../core/canonical.js';
import { fail } from '../core/errors.js';
import { decodePayload, entryHashOf, mutate, type LogRow, type Tx } from './log.js';
import { isProcessAlive, type ProcessIdentity } from './process-identity.js';
import { dbOf, type Db, type Store } from './store.js';
import { EXECUTION_ID_RE, RUN_ID_RE } from '../core/ids.js';

export { RUN_ID_RE };
export { EXECUTION_ID_RE };

export const newRunId = (): string => `RUN-${randomBytes(16).toString('hex')}`;
export const newExecutionId = (): string => `EXE-${randomBytes(16).toString('hex')}`;

export type RunStatus = 'claimed' | 'receipt' | 'aborted';

export interface Run {
  readonly runId: string;
  readonly challengeId: string;
  readonly executionId: string;
  readonly unit: string;
  readonly stage: string;
  readonly slot: string;
  readonly reviewerName: string;
  readonly reviewerSha256: string;
  readonly runner: ProcessIdentity;
  readonly claimedAt: number;
  readonly deadline: number;
  readonly status: RunStatus;
  readonly endedAt: number | null;
  readonly abortCode: string | null;
}

interface RunRow {
  id: string;
  challenge_id: string;
  execution_id: string;
  unit: string;
  stage: string;
  slot: string;
  reviewer_name: string;
  reviewer_sha256: string;
  runner_boot_id: string;
  runner_pid: number;
  runner_start_time: string;
  claimed_at: number;
  deadline: number;
  status: RunStatus;
  ended_at: number | null;
  abort_code: string | null;
}

function toRun(r: RunRow): Run {
  return {
    runId: r.id,
    challengeId: r.challenge_id,
    executionId: r.execution_id,
    unit: r.unit,
    stage: r.stage,
    slot: r.slot,
    reviewerName: r.reviewer_name,
    reviewerSha256: r.reviewer_sha256,
    runner: { bootId: r.runner_boot_id, pid: r.runner_pid, startTime: Number(r.runner_start_time) },
    claimedAt: r.claimed_at,
    deadline: r.deadline,
    status: r.status,
    endedAt: r.ended_at,
    abortCode: r.abort_code,
  };
}

export function getRun(x: Store | Db, runId: string): Run | null {
  const row = dbOf(x).prepare('SELECT * FROM runs WHERE id = ?').get(runId) as RunRow | undefined;
  return row === undefined ? null : toRun(row);
}

export function getRunByChallenge(x: Store | Db, challengeId: string): Run | null {
  const row = dbOf(x).prepare('SELECT * FROM runs WHERE challenge_id = ?').get(challengeId) as RunRow | undefined;
  return row === undefined ? null : toRun(row);
}

export interface ClaimArgs {
  readonly challengeId: string;
  readonly unit: string;
  readonly stage: string;
  readonly slot: string;
  readonly reviewerName: string;
  readonly reviewerSha256: string;
  readonly runner: ProcessIdentity;
  readonly deadline: number;
}

/**
 * Inside a mutate: claim an open, unexpired challenge (docs/runner.md#the-run-step-by-step step 3). The guarded UPDATE in the
 * reducer plus UNIQUE(challenge_id) make the claim a one-time fact: of two racing processes
 * exactly one commits; the other fails with `challenge_claimed`.
 */
export function claimRunIn(tx: Tx, args: ClaimArgs): { runId: string; executionId: string } {
  const row = tx.db.prepare('SELECT status, expires_at FROM challenges WHERE id = ?').get(args.challengeId) as
    | { status: string; expires_at: number }
    | undefined;
  if (row === undefined) fail('challenge_unknown', [args.challengeId]);
  if (row.status === 'claimed') fail('challenge_claimed', [args.challengeId]);
  if (row.status === 'consumed' || row.status === 'aborted') fail('challenge_consumed', [args.challengeId]);
  if (row.status !== 'open' || row.expires_at <= tx.now) fail('challenge_expired', [args.challengeId]);
  if (args.deadline <= tx.now) fail('internal_error', ['deadline']);
  // docs/runner.md#the-run-step-by-step step 2, re-checked under the write lock: no claim while any mutation lease is active.
  const lease = activeLeaseAt(tx.db, tx.now);
  if (lease !== null) fail('run_lease_active', [lease]);
  const runId = newRunId();
  const executionId = newExecutionId();
  tx.append('run_claim', args.unit, {
    run: runId,
    challenge: args.challengeId,
    execution: executionId,
    unit: args.unit,
    stage: args.stage as 'planning',
    slot: args.slot,
    reviewer_name: args.reviewerName,
    reviewer_sha256: args.reviewerSha256,
    runner: { boot_id: args.runner.bootId, pid: args.runner.pid, start_time: String(args.runner.startTime) },
    claimed_at: tx.now,
    deadline: args.deadline,
  });
  return { runId, executionId };
}

export function claimRun(store: Store, now: number, args: ClaimArgs): { runId: string; executionId: string } {
  return mutate(store, now, (tx) => claimRunIn(tx, args));
}

/** Inside a mutate: record ABORTED for a run that is still claimed (docs/runner.md#the-run-step-by-step "any failure after the claim"). */
export function abortRunIn(tx: Tx, runId: string, code: string): void {
  const run = getRun(tx.db, runId);
  if (run === null) fail('run_unknown', [runId]);
  if (run.status !== 'claimed') fail('run_not_claimed', [runId]);
  tx.append('run_abort', run.unit, { run: run.runId, challenge: run.challengeId, unit: run.unit, code, aborted_at: tx.now });
}

export function abortRun(store: Store, now: number, runId: string, code: string): void {
  mutate(store, now, (tx) => abortRunIn(tx, runId, code));
}

/**
 * Inside a mutate: turn into ABORTED every claim of `unit` whose runner process is gone (boot id,
 * pid and start time no longer match a live process) or whose deadline passed (docs/runner.md#the-run-step-by-step step 3).
 * A claim whose runner is alive and within its deadline is left alone. Returns the aborted run ids.
 */
export function reapStaleClaimsIn(tx: Tx, unit: string): string[] {
  const rows = tx.db.prepare("SELECT * FROM runs WHERE unit = ? AND status = 'claimed' ORDER BY claim_seq").all(unit) as RunRow[];
  const reaped: string[] = [];
  for (const row of rows) {
    const run = toRun(row);
    const expired = run.deadline <= tx.now;
    if (!expired && isProcessAlive(run.runner)) continue;
    abortRunIn(tx, run.runId, expired ? 'run_deadline_passed' : 'runner_gone');
    reaped.push(run.runId);
  }
  return reaped;
}

export interface ReceiptRecord {
  readonly runId: string;
  readonly receiptId: string;
  readonly verdict: 'CLEAN' | 'DIRTY';
  readonly hasVeto: boolean;
  readonly planningStateDigest: string;
  readonly contentDigest: string;
  readonly workStateDigest: string;
  readonly policyDigest: string;
  readonly trustDigest: string;
  readonly envelope: Buffer;
}

/** The id of a mutation lease active at `now` on ANY unit (docs/overview.md#words: no review is issued or
 * ingested while any lease is active; units of one store may share a working tree), or null. */
export function activeLeaseAt(x: Store | Db, now: number): string | null {
  const id = dbOf(x).prepare("SELECT id FROM leases WHERE state = 'active' AND expires_at > ? ORDER BY id LIMIT 1").pluck().get(now) as
    | string
    | undefined;
  return id ?? null;
}

/**
 * Inside a mutate: the commit of docs/runner.md#the-run-step-by-step step 9 — re-check, under the write lock, that the claim is
 * still ours and still claimed (not aborted meanwhile: `run_claim_aborted`), that its deadline has not
 * passed (a claim past its deadline may be reaped by anyone, so it must not commit either), and that
 * no lease is active anywhere; then store the receipt bytes and consume the challenge, as one log
 * entry. The reducer re-asserts the lease and deadline rules at the entry's log position.
 */
export function commitReceiptIn(tx: Tx, r: ReceiptRecord): number {
  const run = getRun(tx.db, r.runId);
  if (run === null) fail('run_unknown', [r.runId]);
  if (run.status === 'aborted') fail('run_claim_aborted', [r.runId]);
  if (run.status !== 'claimed') fail('run_not_claimed', [r.runId]);
  if (run.deadline <= tx.now) fail('run_deadline_passed', [r.runId]);
  const lease = activeLeaseAt(tx.db, tx.now);
  if (lease !== null) fail('review_lease_taken', [lease]);
  const row = tx.append('run_receipt', run.unit, {
    run: run.runId,
    challenge: run.challengeId,
    unit: run.unit,
    receipt: r.receiptId,
    stage: run.stage as 'planning',
    slot: run.slot,
    verdict: r.verdict,
    has_veto: r.hasVeto,
    planning_state_digest: r.planningStateDigest,
    content_digest: r.contentDigest,
    work_state_digest: r.workStateDigest,
    policy_digest: r.policyDigest,
    trust_digest: r.trustDigest,
    envelope_b64: r.envelope.toString('base64'),
    recorded_at: tx.now,
  });
  return row.seq;
}

/** Count the runs (any outcome) of one unit/stage/slot/content digest: the max_runs_per_content budget. */
export function countRunsForContent(x: Store | Db, unit: string, stage: string, slot: string, contentDigest: string): number {
  return dbOf(x)
    .prepare(
      `SELECT COUNT(*) FROM runs r JOIN challenges c ON c.id = r.challenge_id
       WHERE r.unit = ? AND r.stage = ? AND r.slot = ? AND c.content_digest = ?`,
    )
    .pluck()
    .get(unit, stage, slot, contentDigest) as number;
}

export interface StoredReceipt {
  readonly id: string;
  readonly runId: string;
  readonly unit: string;
  readonly stage: string;
  readonly slot: string;
  readonly verdict: 'CLEAN' | 'DIRTY';
  readonly hasVeto: boolean;
  readonly planningStateDigest: string;
  readonly contentDigest: string;
  readonly workStateDigest: string;
  readonly policyDigest: string;
  readonly trustDigest: string;
  readonly envelope: Buffer;
  readonly recordedAt: number;
  readonly logSeq: number;
}

interface ReceiptRow {
  id: string;
  run_id: string;
  unit: string;
  stage: string;
  slot: string;
  verdict: 'CLEAN' | 'DIRTY';
  has_veto: number;
  planning_state_digest: string;
  content_digest: string;
  work_state_digest: string;
  policy_digest: string;
  trust_digest: string;
  envelope: Buffer;
  recorded_at: number;
  log_seq: number;
}

function toStoredReceipt(r: ReceiptRow): StoredReceipt {
  return {
    id: r.id,
    runId: r.run_id,
    unit: r.unit,
    stage: r.stage,
    slot: r.slot,
    verdict: r.verdict,
    hasVeto: r.has_veto === 1,
    planningStateDigest: r.planning_state_digest,
    contentDigest: r.content_digest,
    workStateDigest: r.work_state_digest,
    policyDigest: r.policy_digest,
    trustDigest: r.trust_digest,
    envelope: r.envelope,
    recordedAt: r.recorded_at,
    logSeq: r.log_seq,
  };
}

export function listReceipts(x: Store | Db, unit: string): StoredReceipt[] {
  return (dbOf(x).prepare('SELECT * FROM receipts WHERE unit = ? ORDER BY log_seq').all(unit) as ReceiptRow[]).map(toStoredReceipt);
}

export function listRuns(x: Store | Db, unit: string): Run[] {
  return (dbOf(x).prepare('SELECT * FROM runs WHERE unit = ? ORDER BY claim_seq').all(unit) as RunRow[]).map(toRun);
}

export interface RunWriter {
  readonly writerSession: string;
  readonly identity: ProcessIdentity;
}

/** The runner process of every run still claimed, in any unit (a live run's sandbox and attestors descend from it). */
export function claimedRunners(x: Store | Db): { runId: string; runner: ProcessIdentity }[] {
  const rows = dbOf(x).prepare("SELECT id, runner_boot_id, runner_pid, runner_start_time FROM runs WHERE status = 'claimed' ORDER BY id").all() as {
    id: string;
    runner_boot_id: string;
    runner_pid: number;
    runner_start_time: string;
  }[];
  return rows.map((r) => ({ runId: r.id, runner: { bootId: r.runner_boot_id, pid: r.runner_pid, startTime: Number(r.runner_start_time) } }));
}

/** Every registered writer of the unit with its host process identity, by session (docs/runner.md#the-run-step-by-step step 6). */
export function unitWriters(x: Store | Db, unit: string): RunWriter[] {
  const rows = dbOf(x).prepare('SELECT session, boot_id, pid, start_time FROM writers WHERE unit = ? ORDER BY session').all(unit) as {
    session: string;
    boot_id: string;
    pid: number;
    start_time: number;
  }[];
  return rows.map((r) => ({ writerSession: r.session, identity: { bootId: r.boot_id, pid: r.pid, startTime: r.start_time } }));
}

/**
 * The payload of the `challenge_issue` log entry that recorded `challengeId`, after checking that
 * entry's own hashes and its links to both neighbours (docs/state.md#the-store), or null when no such entry exists.
 * The caller compares it with the challenge row: a row edited behind governed's back no longer
 * matches the hash-chained entry that created it (docs/runner.md#the-run-step-by-step step 1 "tampered"). Entries are found by
 * their time (= the challenge's issued_at) through the partial index of migration 0005.
 */
export function challengeIssueEntry(x: Store | Db, challengeId: string, issuedAt: number): unknown {
  const db = dbOf(x);
  const rows = db.prepare("SELECT * FROM log WHERE type = 'challenge_issue' AND time = ? ORDER BY seq").all(issuedAt) as LogRow[];
  const needle = Buffer.from(`"challenge":"${challengeId}"`, 'utf8');
  const matches = rows.filter((r) => r.payload.includes(needle));
  if (matches.length !== 1) return null;
  const row = matches[0] as LogRow;
  if (sha256Digest(row.payload) !== row.payload_digest || entryHashOf(row) !== row.entry_hash) return null;
  const link = db.prepare('SELECT seq, entry_hash, prev_hash FROM log WHERE seq IN (?, ?) ORDER BY seq').all(row.seq - 1, row.seq + 1) as {
    seq: number;
    entry_hash: string;
    prev_hash: string;
  }[];
  const prev = link.find((l) => l.seq === row.seq - 1);
  const next = link.find((l) => l.seq === row.seq + 1);
  if (row.seq > 1 && (prev === undefined || prev.entry_hash !== row.prev_hash)) return null;
  if (next !== undefined && next.prev_hash !== row.entry_hash) return null;
  try {
    return decodePayload(row.seq, row.type, row.unit, row.payload);
  } catch {
    return null;
  }
}

/** One stored receipt by id (`sha256:` of its payload), or null. */
export function getReceipt(x: Store | Db, receiptId: string): StoredReceipt | null {
  const r = dbOf(x).prepare('SELECT * FROM receipts WHERE id = ?').get(receiptId) as ReceiptRow | undefined;
  return r === undefined ? null : toStoredReceipt(r);
}

/** A challenge's stored status and how many runs name it, read in ONE statement (one snapshot). */
export function challengeRunState(x: Store | Db, challengeId: string): { status: string; runs: number } | null {
  const row = dbOf(x)
    .prepare('SELECT c.status AS status, (SELECT COUNT(*) FROM runs r WHERE r.challenge_id = c.id) AS runs FROM challenges c WHERE c.id = ?')
    .get(challengeId) as { status: string; runs: number } | undefined;
  return row ?? null;
}
