// Load the facts of one unit into the decision input (docs/decision.md#the-rules-in-short §1, §11), with
// indexed queries (migration 0006) that fetch only what `sufficientReceipts` says a decision needs:
//   1. every DIRTY receipt;
//   2. every receipt on the current state (planning: planning-state digest; other stages: work state);
//   3. for every DIRTY receipt and ABORTED run, the first later CLEAN receipt of the same stage and
//      slot on different reviewed content (the one that can lift it);
// and, whole, the ABORTED runs, the consumed authority records of the unit, the policy/trust
// updates and the unit's open leases (expired-but-unswept included: they still block, §10.3).
// So the work grows with the current state and the blocks, never with the history's length.
//
// Receipt facts come from the columns `commitReceiptIn` derived from the verified payload; the
// veto findings (not a column) from the payload itself. Every receipt whose payload is read here and
// every record the decision relies on is re-verified afterwards (./verify.ts), and its row checked
// against its signed bytes. Read-only: nothing here writes.
import type { AbortedRunFact, AuthorityFact, LeaseFact, ReceiptFact, ResetFact, StateDigests, VetoFinding } from '../../core/decision/index.js';
import { fail } from '../../core/errors.js';
import type { Db } from '../../store/store.js';
import { decodeCanonicalPayloadLean, parseEnvelopeLean, receiptPredicateShape } from '../../core/lean/receipt.js';
import { isPlainObject } from '../../core/lean/shape.js';
import { prepared } from './statements.js';

export interface LoadedReceipt {
  readonly fact: ReceiptFact;
  /** Whether the predicate was read to get the veto findings (then it must be re-verified). */
  readonly readPayload: boolean;
}

export interface LoadedAuthority {
  readonly fact: AuthorityFact;
}

export interface UnitFacts {
  readonly receipts: readonly LoadedReceipt[];
  readonly abortedRuns: readonly AbortedRunFact[];
  readonly authorities: readonly LoadedAuthority[];
  readonly resets: readonly ResetFact[];
  readonly openLeases: readonly (LeaseFact & { readonly session: string; readonly acquiredAt: number })[];
}

interface ReceiptRow {
  id: string;
  unit: string;
  stage: string;
  slot: string;
  verdict: string;
  has_veto: number;
  planning_state_digest: string;
  content_digest: string;
  work_state_digest: string;
  policy_digest: string;
  trust_digest: string;
  recorded_at: number;
  log_seq: number;
}

const RECEIPT_COLUMNS =
  'id, unit, stage, slot, verdict, has_veto, planning_state_digest, content_digest, work_state_digest, policy_digest, trust_digest, recorded_at, log_seq';

/** Whether the unit has at least one receipt (docs/commands.md#exit-codes exit 7: "a unit without a single receipt"). */
export function hasAnyReceipt(db: Db, unit: string): boolean {
  return db.prepare('SELECT 1 FROM receipts WHERE unit = ? LIMIT 1').get(unit) !== undefined;
}

/** The exact stored envelope bytes of a receipt. */
export function receiptEnvelope(db: Db, receiptId: string): Buffer {
  const bytes = prepared(db, 'SELECT envelope FROM receipts WHERE id = ?').pluck().get(receiptId) as Buffer | undefined;
  if (bytes === undefined) fail('decision_fact_mismatch', [receiptId]);
  return bytes;
}

/** The veto findings of a stored receipt, read from its payload (shape-checked; signatures later). */
function vetoesOf(db: Db, receiptId: string): VetoFinding[] {
  const value = decodeCanonicalPayloadLean(parseEnvelopeLean(receiptEnvelope(db, receiptId)));
  const predicate = isPlainObject(value) ? value.predicate : undefined;
  if (receiptPredicateShape(predicate, 'predicate') !== null) fail('predicate_invalid', [receiptId]);
  return ((predicate as { vetoes: VetoFinding[] }).vetoes ?? []).map((v) => ({ code: v.code, class: v.class, severity: v.severity, refs: [...v.refs] }));
}

function toLoaded(db: Db, r: ReceiptRow): LoadedReceipt {
  const readPayload = r.has_veto === 1;
  return {
    readPayload,
    fact: {
      receiptId: r.id,
      unit: r.unit,
      stage: r.stage as ReceiptFact['stage'],
      slot: r.slot,
      verdict: r.verdict as ReceiptFact['verdict'],
      vetoes: readPayload ? vetoesOf(db, r.id) : [],
      planningStateDigest: r.planning_state_digest,
      contentDigest: r.content_digest,
      workStateDigest: r.work_state_digest,
      policyDigest: r.policy_digest,
      trustDigest: r.trust_digest,
      seq: r.log_seq,
      time: r.recorded_at,
    },
  };
}

/** Planning receipts on a planning state (part 2 of the subset, for planning). */
export function planningReceipts(db: Db, unit: string, planningStateDigest: string): LoadedReceipt[] {
  return (
    db
      .prepare(`SELECT ${RECEIPT_COLUMNS} FROM receipts WHERE unit = ? AND planning_state_digest = ? AND stage = 'planning' ORDER BY log_seq`)
      .all(unit, planningStateDigest) as ReceiptRow[]
  ).map((r) => toLoaded(db, r));
}

/** The receipts a decision needs (sufficientReceipts), one indexed query per part. */
export function loadReceipts(db: Db, unit: string, current: StateDigests, aborted: readonly AbortedRunFact[]): LoadedReceipt[] {
  const rows = new Map<string, ReceiptRow>();
  const add = (list: readonly ReceiptRow[]): void => {
    for (const r of list) rows.set(r.id, r);
  };
  add(
    db
      .prepare(`SELECT ${RECEIPT_COLUMNS} FROM receipts WHERE unit = ? AND planning_state_digest = ? AND stage = 'planning'`)
      .all(unit, current.planningStateDigest) as ReceiptRow[],
  );
  add(
    db
      .prepare(`SELECT ${RECEIPT_COLUMNS} FROM receipts WHERE unit = ? AND work_state_digest = ? AND stage <> 'planning'`)
      .all(unit, current.workStateDigest) as ReceiptRow[],
  );
  const dirty = db.prepare(`SELECT ${RECEIPT_COLUMNS} FROM receipts WHERE unit = ? AND verdict = 'DIRTY'`).all(unit) as ReceiptRow[];
  add(dirty);
  // The one receipt that can lift a block: the first later CLEAN of the slot on other content.
  const lifter = db.prepare(
    `SELECT ${RECEIPT_COLUMNS} FROM receipts
     WHERE unit = ? AND stage = ? AND slot = ? AND log_seq > ? AND verdict = 'CLEAN'
       AND (CASE WHEN stage = 'planning' THEN planning_state_digest ELSE content_digest END) <> ?
     ORDER BY log_seq LIMIT 1`,
  );
  const blocks = [
    ...dirty.map((r) => ({ stage: r.stage, slot: r.slot, seq: r.log_seq, content: r.stage === 'planning' ? r.planning_state_digest : r.content_digest })),
    ...aborted.map((a) => ({ stage: a.stage, slot: a.slot, seq: a.seq, content: a.stage === 'planning' ? a.planningStateDigest : a.contentDigest })),
  ];
  for (const b of blocks) {
    const row = lifter.get(unit, b.stage, b.slot, b.seq, b.content) as ReceiptRow | undefined;
    if (row !== undefined) rows.set(row.id, row);
  }
  return [...rows.values()].sort((a, b) => a.log_seq - b.log_seq).map((r) => toLoaded(db, r));
}

/** Every ABORTED run of the unit, with the state its challenge was issued for (docs/runner.md#the-run-step-by-step step 3). */
export function loadAbortedRuns(db: Db, unit: string): AbortedRunFact[] {
  const rows = db
    .prepare(
      `SELECT r.id, r.unit, r.stage, r.slot, r.end_seq, r.ended_at, c.planning_state_digest, c.content_digest, c.work_state_digest
       FROM runs r JOIN challenges c ON c.id = r.challenge_id
       WHERE r.unit = ? AND r.status = 'aborted' ORDER BY r.end_seq`,
    )
    .all(unit) as {
    id: string;
    unit: string;
    stage: string;
    slot: string;
    end_seq: number;
    ended_at: number;
    planning_state_digest: string;
    content_digest: string;
    work_state_digest: string;
  }[];
  return rows.map((r) => ({
    runId: r.id,
    unit: r.unit,
    stage: r.stage as AbortedRunFact['stage'],
    slot: r.slot,
    seq: r.end_seq,
    time: r.ended_at,
    planningStateDigest: r.planning_state_digest,
    contentDigest: r.content_digest,
    workStateDigest: r.work_state_digest,
  }));
}

/** Every authority record consumed for the unit, at its consumption (docs/authority.md#human-authority-records: judged there). */
export function loadAuthorities(db: Db, unit: string): LoadedAuthority[] {
  const rows = db
    .prepare(
      `SELECT c.record, c.consumed_seq, c.consumed_at, r.operation, r.ids, r.expires_at
       FROM authority_consumptions c JOIN authority_records r ON r.id = c.record
       WHERE c.unit = ? ORDER BY c.consumed_seq`,
    )
    .all(unit) as { record: string; consumed_seq: number; consumed_at: number; operation: string; ids: string; expires_at: number }[];
  return rows.map((r) => {
    let ids: unknown;
    try {
      ids = JSON.parse(r.ids);
    } catch {
      fail('decision_fact_mismatch', [r.record]);
    }
    if (!Array.isArray(ids) || !ids.every((i) => typeof i === 'string')) fail('decision_fact_mismatch', [r.record]);
    return {
      fact: { recordId: r.record, unit, operation: r.operation, ids: ids as string[], expiresAt: r.expires_at, seq: r.consumed_seq, time: r.consumed_at },
    };
  });
}

/** Policy and trust-root updates (docs/contract.md#the-states-a-receipt-is-judged-against: every receipt before one stops counting). */
export function loadResets(db: Db): ResetFact[] {
  const rows = db.prepare('SELECT seq, kind, updated_at FROM pin_updates ORDER BY seq').all() as { seq: number; kind: string; updated_at: number }[];
  return rows.map((r) => ({ seq: r.seq, time: r.updated_at, kind: r.kind === 'policy' ? 'policy_update' : 'trust_update' }));
}

/** Leases the store still records as active, expired or not (docs/decision.md#8-delivery-state-and-reason-codes: they block until swept). */
export function loadOpenLeases(db: Db, unit: string): UnitFacts['openLeases'] {
  const rows = db.prepare("SELECT id, session, acquired_at, expires_at FROM leases WHERE unit = ? AND state = 'active' ORDER BY id").all(unit) as {
    id: string;
    session: string;
    acquired_at: number;
    expires_at: number;
  }[];
  return rows.map((r) => ({ leaseId: r.id, session: r.session, acquiredAt: r.acquired_at, expiresAt: r.expires_at }));
}

/** Every fact of the unit; call inside one read snapshot (./snapshot.ts) with the unit's state. */
export function loadUnitFacts(db: Db, unit: string, current: StateDigests): UnitFacts {
  const abortedRuns = loadAbortedRuns(db, unit);
  return {
    receipts: loadReceipts(db, unit, current, abortedRuns),
    abortedRuns,
    authorities: loadAuthorities(db, unit),
    resets: loadResets(db),
    openLeases: loadOpenLeases(db, unit),
  };
}

/**
 * The workspace digests reviewed by the work stages on the unit's current scope and revision: the
 * challenges (each bound to the workspace it was issued for, docs/bundle.md#views) that ended in a receipt.
 * Not signed evidence: `gate` uses it only to say *why* a subject is refused (its content is not the
 * reviewed content) rather than just "streak incomplete".
 */
export function reviewedWorkspaces(db: Db, unit: string, args: { planningStateDigest: string; contractDigest: string; workRevision: number }): string[] {
  return db
    .prepare(
      `SELECT DISTINCT c.workspace_digest FROM challenges c
       JOIN runs r ON r.challenge_id = c.id
       JOIN receipts x ON x.run_id = r.id
       WHERE c.unit = ? AND c.work_revision = ? AND c.stage <> 'planning' AND c.planning_state_digest = ? AND c.contract_digest = ?
       ORDER BY c.workspace_digest`,
    )
    .pluck()
    .all(unit, args.workRevision, args.planningStateDigest, args.contractDigest) as string[];
}

/** `sha256:` of an authority record's signed payload (its input-attestation digest in a VSA). */
export function authorityPayloadDigest(db: Db, recordId: string): string {
  const d = db.prepare('SELECT payload_digest FROM authority_records WHERE id = ?').pluck().get(recordId) as string | undefined;
  if (d === undefined) fail('decision_fact_mismatch', [recordId]);
  return d;
}
