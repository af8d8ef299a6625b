// Log entry types of review runs (docs/runner.md#the-run-step-by-step): `run_claim` (step 3), `run_receipt` (step 9) and
// `run_abort` (any failure after the claim, or a claim whose runner is gone / deadline passed).
// Every transition is a guarded UPDATE that must change exactly one row, so a replayed or forged
// entry that does not follow from the state before it fails (`log_entry_not_applicable`).
import * as z from 'zod/mini';
import { str } from '../../core/schema-primitives.js';
import { sha256Digest } from '../../core/canonical.js';
import { parseEnvelopeBytes } from '../../core/dsse.js';
import { STAGES } from '../../core/review-vocabulary.js';
import { bootId, digest, pid, seconds, unitId } from './schemas.js';
import { expectChanges, reducer } from './reducer.js';
import type { Db } from '../store.js';
import { cached, cachedPluck } from '../statements.js';
import { RECEIPT_ROW_COLUMNS, receiptRowOfEntry, trustModeOfPredicate, type ReceiptTrustMode } from '../receipt-entries.js';
import { CHALLENGE_ID_RE, EXECUTION_ID_RE, HEX64_RE, NAME_RE, RUN_ID_RE } from '../../core/ids.js';
import { ERROR_CODE_RE } from '../../core/ids.js';

const runId = str({ re: RUN_ID_RE });
const executionId = str({ re: EXECUTION_ID_RE });
const challengeId = str({ re: CHALLENGE_ID_RE });
const stage = z.enum(STAGES);
const slot = str({ re: NAME_RE });
const hex64 = str({ re: HEX64_RE });
/** Closed failure codes an ABORTED run records (error codes of docs/commands.md#exit-codes, never free text). */
const abortCode = str({ re: ERROR_CODE_RE });

/**
 * The indexed receipt columns are derived from the envelope (docs/state.md#the-store "receipts are stored as the
 * exact envelope bytes"): the receipt id is the sha256 of the payload bytes (docs/formats.md#receipt) and the payload
 * names this run, challenge, unit, stage, slot, verdict and these state digests. Pure: no trust root
 * is needed for this consistency check (signatures are verified at commit and by `verify`/`gate`).
 * Returns the trust mode the predicate states (the `trust_mode` column), or null when anything differs.
 */
function envelopeTrustMode(p: {
  receipt: string;
  run: string;
  challenge: string;
  unit: string;
  stage: string;
  slot: string;
  verdict: string;
  has_veto: boolean;
  planning_state_digest: string;
  content_digest: string;
  work_state_digest: string;
  policy_digest: string;
  trust_digest: string;
  envelope_b64: string;
}): ReceiptTrustMode | null {
  try {
    const env = parseEnvelopeBytes(Buffer.from(p.envelope_b64, 'base64'));
    if (sha256Digest(env.payload) !== p.receipt) return null;
    const st = JSON.parse(env.payload.toString('utf8')) as { predicate?: Record<string, unknown> };
    const q = st.predicate as Record<string, unknown> & { inputs: Record<string, unknown>; vetoes: unknown[] };
    const same =
      q.run_id === p.run &&
      q.challenge_id === p.challenge &&
      q.unit === p.unit &&
      q.stage === p.stage &&
      q.slot === p.slot &&
      q.verdict === p.verdict &&
      Array.isArray(q.vetoes) &&
      q.vetoes.length > 0 === p.has_veto &&
      q.planning_state_digest === p.planning_state_digest &&
      q.content_digest === p.content_digest &&
      q.work_state_digest === p.work_state_digest &&
      q.inputs.policy_digest === p.policy_digest &&
      q.inputs.trust_digest === p.trust_digest;
    return same ? trustModeOfPredicate(q) : null;
  } catch {
    return null;
  }
}

/** The seq of the entry being applied: its log row is written just before its reducer runs. */
function currentSeq(db: Db): number {
  return cachedPluck(db, 'SELECT MAX(seq) FROM log').get() as number;
}

export const RUN_REDUCERS = {
  run_claim: reducer({
    payload: z.strictObject({
      run: runId,
      challenge: challengeId,
      execution: executionId,
      unit: unitId,
      stage,
      slot,
      reviewer_name: slot,
      reviewer_sha256: hex64,
      runner: z.strictObject({ boot_id: bootId, pid, start_time: str({ re: /^\d{1,20}$/ }) }),
      claimed_at: seconds,
      deadline: seconds,
    }),
    unitOf: (p) => p.unit,
    apply(db, p) {
      // The challenge must be open and unexpired at the claim: exactly one claim can win. And no
      // mutation lease may be active anywhere at that log position (docs/overview.md#words, docs/runner.md#the-run-step-by-step step 2).
      // The claim runs the reviewer the challenge pinned (flows/run/claim.ts takes both from the
      // challenge, docs/bundle.md#views, docs/runner.md#the-run-step-by-step step 3): a forged claim naming another reviewer program does not apply.
      const c = cached(
          db,
          `UPDATE challenges SET status = 'claimed'
           WHERE id = ? AND unit = ? AND stage = ? AND slot = ? AND status = 'open' AND expires_at > ?
             AND reviewer_name = ? AND reviewer_sha256 = ?
             AND NOT EXISTS (SELECT 1 FROM leases WHERE state = 'active' AND expires_at > ?)`,
        )
        .run(p.challenge, p.unit, p.stage, p.slot, p.claimed_at, p.reviewer_name, p.reviewer_sha256, p.claimed_at);
      expectChanges(c.changes, 1, p.challenge);
      const r = cached(
          db,
          `INSERT INTO runs (id, challenge_id, execution_id, unit, stage, slot, reviewer_name, reviewer_sha256,
             runner_boot_id, runner_pid, runner_start_time, claimed_at, deadline, claim_seq, status)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'claimed')`,
        )
        .run(
          p.run,
          p.challenge,
          p.execution,
          p.unit,
          p.stage,
          p.slot,
          p.reviewer_name,
          p.reviewer_sha256,
          p.runner.boot_id,
          p.runner.pid,
          p.runner.start_time,
          p.claimed_at,
          p.deadline,
          currentSeq(db),
        );
      expectChanges(r.changes, 1, p.run);
    },
  }),

  run_receipt: reducer({
    payload: z.strictObject({
      run: runId,
      challenge: challengeId,
      unit: unitId,
      receipt: digest,
      stage,
      slot,
      verdict: z.enum(['CLEAN', 'DIRTY']),
      has_veto: z.boolean(),
      planning_state_digest: digest,
      content_digest: digest,
      work_state_digest: digest,
      policy_digest: digest,
      trust_digest: digest,
      envelope_b64: str({ min: 1 }),
      recorded_at: seconds,
    }),
    unitOf: (p) => p.unit,
    apply(db, p) {
      const seq = currentSeq(db);
      // At its log position (docs/runner.md#the-run-step-by-step step 9): the claim is still open and within its deadline, and no
      // mutation lease is active anywhere (docs/overview.md#words: no review is ingested while any lease is active).
      const r = cached(
          db,
          `UPDATE runs SET status = 'receipt', ended_at = ?, end_seq = ?
           WHERE id = ? AND challenge_id = ? AND unit = ? AND stage = ? AND slot = ? AND status = 'claimed' AND deadline > ?
             AND NOT EXISTS (SELECT 1 FROM leases WHERE state = 'active' AND expires_at > ?)`,
        )
        .run(p.recorded_at, seq, p.run, p.challenge, p.unit, p.stage, p.slot, p.recorded_at, p.recorded_at);
      expectChanges(r.changes, 1, p.run);
      // The receipt is about exactly the state its challenge bound (docs/contract.md#the-states-a-receipt-is-judged-against): a forged entry naming
      // other digests does not apply.
      const c = cached(
          db,
          `UPDATE challenges SET status = 'consumed', ended_at = ?
           WHERE id = ? AND status = 'claimed' AND planning_state_digest = ? AND content_digest = ? AND work_state_digest = ?
             AND policy_digest = ? AND trust_digest = ?`,
        )
        .run(p.recorded_at, p.challenge, p.planning_state_digest, p.content_digest, p.work_state_digest, p.policy_digest, p.trust_digest);
      expectChanges(c.changes, 1, p.challenge);
      // The trust mode column is the signed predicate's (migration 0010): replay derives it again.
      const trustMode = envelopeTrustMode(p);
      expectChanges(trustMode === null ? 0 : 1, 1, p.receipt);
      // The row is `receiptRowOfEntry` (one definition: the decision loader checks the table against
      // the log entries with it, src/flows/decide/facts.ts).
      const row = receiptRowOfEntry(p, seq);
      const i = cached(
          db,
          `INSERT INTO receipts (${RECEIPT_ROW_COLUMNS}, envelope, trust_mode)
           VALUES (@id, @run_id, @unit, @stage, @slot, @verdict, @has_veto, @planning_state_digest, @content_digest,
             @work_state_digest, @policy_digest, @trust_digest, @recorded_at, @log_seq, @envelope, @trust_mode)`,
        )
        .run({ ...row, envelope: Buffer.from(p.envelope_b64, 'base64'), trust_mode: trustMode });
      expectChanges(i.changes, 1, p.receipt);
    },
  }),

  run_abort: reducer({
    payload: z.strictObject({
      run: runId,
      challenge: challengeId,
      unit: unitId,
      code: abortCode,
      aborted_at: seconds,
    }),
    unitOf: (p) => p.unit,
    apply(db, p) {
      const r = cached(
          db,
          `UPDATE runs SET status = 'aborted', ended_at = ?, end_seq = ?, abort_code = ?
           WHERE id = ? AND challenge_id = ? AND unit = ? AND status = 'claimed'`,
        )
        .run(p.aborted_at, currentSeq(db), p.code, p.run, p.challenge, p.unit);
      expectChanges(r.changes, 1, p.run);
      const c = cached(db, `UPDATE challenges SET status = 'aborted', ended_at = ? WHERE id = ? AND status = 'claimed'`)
        .run(p.aborted_at, p.challenge);
      expectChanges(c.changes, 1, p.challenge);
    },
  }),
} as const;
