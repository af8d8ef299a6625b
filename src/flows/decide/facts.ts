// Load the facts of one unit into the decision input (docs/decision.md#1-inputs-what-a-flow-must-load, docs/decision.md#11-loading-only-what-counts-lean-gate-path), with
// indexed queries (migration 0006) that fetch only what `sufficientReceipts` says a decision needs:
//   1. every DIRTY receipt;
//   2. every receipt on the current state (planning: planning-state digest; other stages: work state);
//   3. for every DIRTY receipt and ABORTED run, the first later CLEAN receipt of the same stage and
//      slot on different reviewed content (the one that can lift it);
// and, whole, the ABORTED runs, the consumed authority records of the unit, the policy/trust
// updates and the unit's open leases (expired-but-unswept included: they still block, docs/decision.md#8-delivery-state-and-reason-codes).
// So the work grows with the current state and the blocks, never with the history's length.
//
// The rows read are proven to be the rows the unit's log entries derive (docs/gate.md#5a-the-tables-must-be-what-the-log-says-decision_table_log_mismatch-4): the
// receipt subset is read again from the `run_receipt` entries by the same definition, the ABORTED
// runs and authority consumptions are compared with their entries (`decision_table_log_mismatch`).
//
// Receipt facts come from the columns `commitReceiptIn` derived from the verified payload; the
// veto findings (not a column) from the payload itself. Every receipt whose payload is read here and
// every record the decision relies on is re-verified afterwards (./verify.ts), and its row checked
// against its signed bytes. Read-only: nothing here writes.
import type { AbortedRunFact, AuthorityFact, LeaseFact, ReceiptFact, ResetFact, StateDigests, VetoFinding } from '../../core/decision/index.js';
import { fail, isGovernedError } from '../../core/errors.js';
import type { Db } from '../../store/store.js';
import { storedPredicate, vetoesOfPredicate } from '../../core/verify-receipt.js';
import { prepared } from './statements.js';
import { liftWitnessReader, type LiftWitnessOf } from './lift-witness.js';
import { liftsFact } from '../../core/decision/incident-lift.js';
import { canonicalJson } from '../../core/canonical.js';
import { logField, RECEIPT_ROW_COLUMNS, receiptRowOfPayloadBytes, type ReceiptRow } from '../../store/receipt-entries.js';

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

const RECEIPT_COLUMNS = RECEIPT_ROW_COLUMNS;

/**
 * Whether the unit has at least one receipt (docs/commands.md#exit-codes exit 7: "a unit without a single receipt"),
 * asked of the log: a table emptied behind governed is tampering (exit 4, `loadUnitFacts`), not
 * "no evidence".
 */
export function hasAnyReceipt(db: Db, unit: string): boolean {
  if (prepared(db, "SELECT 1 FROM log WHERE unit = ? AND type = 'run_receipt' LIMIT 1").get(unit) !== undefined) return true;
  // No entry, yet a row: a receipt relabelled to this unit behind governed.
  const row = prepared(db, 'SELECT log_seq FROM receipts WHERE unit = ? ORDER BY log_seq LIMIT 1').pluck().get(unit) as number | undefined;
  if (row !== undefined) fail('decision_table_log_mismatch', ['receipts', `seq:${row}`]);
  return false;
}

/** The exact stored envelope bytes of a receipt. */
export function receiptEnvelope(db: Db, receiptId: string): Buffer {
  const bytes = prepared(db, 'SELECT envelope FROM receipts WHERE id = ?').pluck().get(receiptId) as Buffer | undefined;
  if (bytes === undefined) fail('decision_fact_mismatch', [receiptId]);
  return bytes;
}

/**
 * The stored envelope's signed predicate (its vetoes), read for a receipt with veto findings only;
 * an envelope that does not parse is not the receipt its row claims: decision_fact_mismatch.
 */
function predicateOf(db: Db, receiptId: string): ReturnType<typeof storedPredicate> {
  try {
    return storedPredicate(receiptEnvelope(db, receiptId), receiptId);
  } catch (e) {
    if (isGovernedError(e)) fail('decision_fact_mismatch', [receiptId]);
    throw e;
  }
}

/**
 * The receipt's trust mode from its `trust_mode` column (migration 0010), which the `run_receipt`
 * reducer derives from the signed predicate: no envelope is parsed for it here. The gate compares it
 * with the signed predicate wherever it matters (./verify.ts: every re-verified receipt, and every
 * other loaded receipt whose column says `separated`); a column that says `co-located` can only make
 * the decision's trust mode stricter (docs/gate.md#6-the-cold-gate-path).
 */
function trustModeColumn(db: Db, receiptId: string): ReceiptFact['trustMode'] {
  const m = prepared(db, 'SELECT trust_mode FROM receipts WHERE id = ?').pluck().get(receiptId) as string | undefined;
  return m === 'co-located' || m === 'separated' ? m : fail('decision_fact_mismatch', [receiptId]);
}

function toLoaded(db: Db, r: ReceiptRow, witness: LiftWitnessOf | null = null): LoadedReceipt {
  const readPayload = r.has_veto === 1;
  // The predicate is parsed only where its content is needed: the veto findings, the lift witness.
  const predicate = readPayload || witness !== null ? predicateOf(db, r.id) : null;
  const w = witness === null || predicate === null ? null : witness(predicate.challenge_id);
  return {
    readPayload,
    fact: {
      receiptId: r.id,
      unit: r.unit,
      stage: r.stage as ReceiptFact['stage'],
      slot: r.slot,
      verdict: r.verdict as ReceiptFact['verdict'],
      vetoes: readPayload && predicate !== null ? (vetoesOfPredicate(predicate).map((v) => ({ ...v, refs: [...v.refs] })) as VetoFinding[]) : [],
      trustMode: trustModeColumn(db, r.id),
      planningStateDigest: r.planning_state_digest,
      contentDigest: r.content_digest,
      workStateDigest: r.work_state_digest,
      policyDigest: r.policy_digest,
      trustDigest: r.trust_digest,
      seq: r.log_seq,
      time: r.recorded_at,
      ...(w === null ? {} : { work: w.work, historySeenUpto: w.historySeenUpto }),
    },
  };
}

/**
 * Where receipt rows are read from: the `receipts` table (what the decision is computed from), or
 * the unit's `run_receipt` log entries, each turned into the row its reducer inserts
 * (`receiptRowOfEntry`). Both answer the same four questions with indexed queries (migrations 0006
 * and 0007), so `sufficientRows` — one definition of the subset — runs on either.
 */
interface ReceiptSource {
  planningOn(unit: string, planningStateDigest: string): ReceiptRow[];
  workOn(unit: string, workStateDigest: string): ReceiptRow[];
  dirty(unit: string): ReceiptRow[];
  /**
   * The CLEAN receipts of (stage, slot) after `seq` whose reviewed content is not `content`, in log
   * order; with `first`, only the first (without a preservation contract only the first can lift;
   * with one, the incident-lift rule may pass over it: ./lift-witness.ts).
   */
  cleansAfter(unit: string, stage: string, slot: string, seq: number, content: string, first: boolean): ReceiptRow[];
}

function tableSource(db: Db): ReceiptSource {
  return {
    planningOn: (unit, digest) =>
      prepared(db, `SELECT ${RECEIPT_COLUMNS} FROM receipts WHERE unit = ? AND planning_state_digest = ? AND stage = 'planning' ORDER BY log_seq`).all(
        unit,
        digest,
      ) as ReceiptRow[],
    workOn: (unit, digest) =>
      prepared(db, `SELECT ${RECEIPT_COLUMNS} FROM receipts WHERE unit = ? AND work_state_digest = ? AND stage <> 'planning'`).all(unit, digest) as ReceiptRow[],
    dirty: (unit) => prepared(db, `SELECT ${RECEIPT_COLUMNS} FROM receipts WHERE unit = ? AND verdict = 'DIRTY'`).all(unit) as ReceiptRow[],
    cleansAfter: (unit, stage, slot, seq, content, first) =>
      prepared(
        db,
        `SELECT ${RECEIPT_COLUMNS} FROM receipts
         WHERE unit = ? AND stage = ? AND slot = ? AND log_seq > ? AND verdict = 'CLEAN'
           AND (CASE WHEN stage = 'planning' THEN planning_state_digest ELSE content_digest END) <> ?
         ORDER BY log_seq${first ? ' LIMIT 1' : ''}`,
      ).all(unit, stage, slot, seq, content) as ReceiptRow[],
  };
}

const L = {
  stage: logField('stage'),
  slot: logField('slot'),
  verdict: logField('verdict'),
  planning: logField('planning_state_digest'),
  content: logField('content_digest'),
  work: logField('work_state_digest'),
};
interface LogEntryRow {
  readonly seq: number;
  readonly payload: Buffer;
}
const LOG_RECEIPTS = "SELECT seq, payload FROM log WHERE type = 'run_receipt' AND unit = ?";
const LOG_ABORTS = "SELECT seq, payload FROM log WHERE type = 'run_abort' AND unit = ? ORDER BY seq";
const LOG_CONSUMPTIONS = "SELECT seq, payload FROM log WHERE type = 'authority_consume' AND unit = ? ORDER BY seq";

function logSource(db: Db): ReceiptSource {
  const rows = (entries: unknown[]): ReceiptRow[] =>
    (entries as LogEntryRow[]).map((e) => receiptRowOfPayloadBytes(e.payload, e.seq) ?? fail('decision_table_log_mismatch', ['log', `seq:${e.seq}`]));
  return {
    planningOn: (unit, digest) => rows(prepared(db, `${LOG_RECEIPTS} AND ${L.stage} = 'planning' AND ${L.planning} = ? ORDER BY seq`).all(unit, digest)),
    workOn: (unit, digest) => rows(prepared(db, `${LOG_RECEIPTS} AND ${L.work} = ? AND ${L.stage} <> 'planning'`).all(unit, digest)),
    dirty: (unit) => rows(prepared(db, `${LOG_RECEIPTS} AND ${L.verdict} = 'DIRTY'`).all(unit)),
    cleansAfter: (unit, stage, slot, seq, content, first) =>
      rows(
        prepared(
          db,
          `${LOG_RECEIPTS} AND ${L.stage} = ? AND ${L.slot} = ? AND ${L.verdict} = 'CLEAN' AND seq > ?
             AND (CASE WHEN ${L.stage} = 'planning' THEN ${L.planning} ELSE ${L.content} END) <> ?
           ORDER BY seq${first ? ' LIMIT 1' : ''}`,
        ).all(unit, stage, slot, seq, content),
      ),
  };
}

/** The rows a decision needs (sufficientReceipts), one indexed query per part, keyed by log position. */
function sufficientRows(
  src: ReceiptSource,
  unit: string,
  current: StateDigests,
  aborted: readonly AbortedRunFact[],
  lifter: ((b: { seq: number; content: string; work: string | null | undefined }, candidates: readonly ReceiptRow[]) => ReceiptRow | undefined) | null = null,
): Map<number, ReceiptRow> {
  const rows = new Map<number, ReceiptRow>();
  const add = (list: readonly ReceiptRow[]): void => {
    for (const r of list) rows.set(r.log_seq, r);
  };
  add(src.planningOn(unit, current.planningStateDigest));
  add(src.workOn(unit, current.workStateDigest));
  const dirty = src.dirty(unit);
  add(dirty);
  // The one receipt that can lift a block: the first later CLEAN of the slot on other content.
  const blocks = [
    ...dirty.map((r) => ({ stage: r.stage, slot: r.slot, seq: r.log_seq, content: r.stage === 'planning' ? r.planning_state_digest : r.content_digest, row: r as ReceiptRow | null, work: undefined as string | null | undefined })),
    ...aborted.map((a) => ({ stage: a.stage, slot: a.slot, seq: a.seq, content: a.stage === 'planning' ? a.planningStateDigest : a.contentDigest, row: null, work: a.work })),
  ];
  for (const b of blocks) {
    // With a preservation contract bound, the first CLEAN on other content may not lift (only the
    // history was re-bound): the first that does, by the rule of src/core/decision/incident-lift.ts.
    const candidates = src.cleansAfter(unit, b.stage, b.slot, b.seq, b.content, lifter === null);
    const row = lifter === null ? candidates[0] : lifter(b, candidates);
    if (row !== undefined) rows.set(row.log_seq, row);
  }
  return rows;
}

/**
 * The table's subset must be exactly the log's (docs/gate.md#5a-the-tables-must-be-what-the-log-says-decision_table_log_mismatch-4): the same log positions, and at
 * each the very row its `run_receipt` entry derives. A receipt row deleted, added, edited (verdict,
 * stage, slot, a digest) or relabelled to another unit changes one of the two subsets; the first
 * differing log position is named.
 */
function assertSameRows(table: ReadonlyMap<number, ReceiptRow>, log: ReadonlyMap<number, ReceiptRow>): void {
  const seqs = [...new Set([...table.keys(), ...log.keys()])].sort((a, b) => a - b);
  for (const seq of seqs) {
    const t = table.get(seq);
    const l = log.get(seq);
    if (t === undefined || l === undefined || canonicalJson({ ...t }) !== canonicalJson({ ...l })) fail('decision_table_log_mismatch', ['receipts', `seq:${seq}`]);
  }
}

/** Planning receipts on a planning state (part 2 of the subset, for planning). */
export function planningReceipts(db: Db, unit: string, planningStateDigest: string): LoadedReceipt[] {
  return tableSource(db)
    .planningOn(unit, planningStateDigest)
    .map((r) => toLoaded(db, r));
}

/**
 * The receipts a decision needs (sufficientReceipts), read from the table and proven equal to what
 * the unit's log entries say (`decision_table_log_mismatch`, exit 4, otherwise).
 */
export function loadReceipts(db: Db, unit: string, current: StateDigests, aborted: readonly AbortedRunFact[]): LoadedReceipt[] {
  const witness = liftWitnessReader(db, unit);
  const witnessOfRow = (r: ReceiptRow) => (witness === null ? null : witness(predicateOf(db, r.id).challenge_id));
  const lifter =
    witness === null
      ? null
      : (b: { seq: number; content: string; work: string | null | undefined; row?: ReceiptRow | null }, candidates: readonly ReceiptRow[]): ReceiptRow | undefined => {
          const work = b.row != null ? witnessOfRow(b.row)?.work : b.work;
          return candidates.find((c) => {
            const w = witnessOfRow(c);
            return liftsFact({ seq: b.seq, reviewedContent: b.content, work }, { reviewedContent: c.stage === 'planning' ? c.planning_state_digest : c.content_digest, work: w?.work, historySeenUpto: w?.historySeenUpto });
          });
        };
  const rows = sufficientRows(tableSource(db), unit, current, aborted, lifter);
  assertSameRows(rows, sufficientRows(logSource(db), unit, current, aborted, lifter));
  return [...rows.values()].sort((a, b) => a.log_seq - b.log_seq).map((r) => toLoaded(db, r, witness));
}

/** A stored payload as a JSON object, or null (the comparison that follows then fails). */
function jsonObjectOf(bytes: Buffer): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(bytes.toString('utf8'));
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The unit's log entries of one type (migration 0007's partial indexes), as parsed payloads by log position. */
function logEntriesOf(db: Db, unit: string, type: 'run_abort' | 'authority_consume'): Map<number, Record<string, unknown>> {
  const out = new Map<number, Record<string, unknown>>();
  const sql = type === 'run_abort' ? LOG_ABORTS : LOG_CONSUMPTIONS;
  for (const e of prepared(db, sql).all(unit) as LogEntryRow[]) {
    out.set(e.seq, jsonObjectOf(e.payload) ?? fail('decision_table_log_mismatch', ['log', `seq:${e.seq}`]));
  }
  return out;
}

/**
 * Rows of `table` keyed by the log position that made them must be exactly the unit's entries of
 * that type, each naming the row (`same`); the first differing position is named.
 */
function assertRowsAreEntries<R>(table: string, rows: ReadonlyMap<number, R>, entries: ReadonlyMap<number, Record<string, unknown>>, same: (r: R, p: Record<string, unknown>) => boolean): void {
  const seqs = [...new Set([...rows.keys(), ...entries.keys()])].sort((a, b) => a - b);
  for (const seq of seqs) {
    const r = rows.get(seq);
    const p = entries.get(seq);
    if (r === undefined || p === undefined || !same(r, p)) fail('decision_table_log_mismatch', [table, `seq:${seq}`]);
  }
}

/** Every ABORTED run of the unit, with the state its challenge was issued for (docs/runner.md#the-run-step-by-step step 3). */
export function loadAbortedRuns(db: Db, unit: string): AbortedRunFact[] {
  const witness = liftWitnessReader(db, unit);
  const rows = db
    .prepare(
      `SELECT r.id, r.unit, r.stage, r.slot, r.end_seq, r.ended_at, r.claim_seq, r.challenge_id, c.planning_state_digest, c.content_digest, c.work_state_digest
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
    claim_seq: number;
    challenge_id: string;
    planning_state_digest: string;
    content_digest: string;
    work_state_digest: string;
  }[];
  // Each row is its `run_abort` entry's (run, challenge, time), and its stage and slot are its
  // `run_claim` entry's: a row deleted, added, or moved to another slot is tampering.
  assertRowsAreEntries('runs', new Map(rows.map((r) => [r.end_seq, r])), logEntriesOf(db, unit, 'run_abort'), (r, p) => {
    if (p.run !== r.id || p.challenge !== r.challenge_id || p.aborted_at !== r.ended_at) return false;
    const claim = prepared(db, "SELECT payload FROM log WHERE seq = ? AND type = 'run_claim' AND unit = ?").pluck().get(r.claim_seq, unit) as Buffer | undefined;
    if (claim === undefined) return false;
    const c = jsonObjectOf(claim);
    return c !== null && c.run === r.id && c.stage === r.stage && c.slot === r.slot;
  });
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
    ...(witness === null ? {} : { work: witness(r.challenge_id).work }),
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
  assertRowsAreEntries(
    'authority_consumptions',
    new Map(rows.map((r) => [r.consumed_seq, r])),
    logEntriesOf(db, unit, 'authority_consume'),
    (r, p) => p.record === r.record && p.operation === r.operation && p.consumed_at === r.consumed_at,
  );
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
