// The hash-chained log (docs/state.md#the-store) and the one entry point for state changes, `mutate`.
//
// entry_hash = sha256(JCS({seq, time, type, unit, payload_digest, prev_hash})), payload_digest =
// sha256 of the payload's canonical bytes, prev_hash of the first entry = `sha256:` + 64 zeros.
// Every table change happens as `tx.append(type, unit, payload)`: the entry is written and its
// reducer applied in the same IMMEDIATE transaction, so a change and its log entry commit together
// or not at all (docs/threat-model.md#rules-that-hold-everywhere "Nothing half-done").
import { canonicalJson, digestOf, isCanonicalTextOf, sha256Digest } from '../core/canonical.js';
import { fail, isGovernedError } from '../core/errors.js';
import { parseJsonStrict } from '../core/strict-parse.js';
import { isEntryType, reducerOf, type EntryType, type PayloadOf } from './reducers.js';
import { toGovernedError } from './sqlite-errors.js';
import { dbOf, type Db, type Store } from './store.js';
import { appendLeaf } from './tree.js';
import { leafBytesOf } from '../core/tlog-leaf.js';
import { noteAppended } from './appended.js';
import { utf8OrNull } from '../core/utf8.js';

export const GENESIS_HASH = `sha256:${'0'.repeat(64)}`;

export interface LogRow {
  readonly seq: number;
  readonly time: number;
  readonly type: string;
  readonly unit: string | null;
  readonly payload: Buffer;
  readonly payload_digest: string;
  readonly prev_hash: string;
  readonly entry_hash: string;
}

export interface LogHead {
  readonly seq: number;
  readonly entryHash: string;
}

export function entryHashOf(fields: {
  seq: number;
  time: number;
  type: string;
  unit: string | null;
  payload_digest: string;
  prev_hash: string;
}): string {
  const { seq, time, type, unit, payload_digest, prev_hash } = fields;
  return digestOf({ seq, time, type, unit, payload_digest, prev_hash });
}

export function assertWholeSeconds(now: number): void {
  if (!Number.isSafeInteger(now) || now < 0) fail('store_time_invalid');
}

/** Last entry of the log, or seq 0 / the genesis hash for an empty log. */
export function logHead(x: Store | Db): LogHead {
  const row = dbOf(x).prepare('SELECT seq, entry_hash FROM log ORDER BY seq DESC LIMIT 1').get() as
    | { seq: number; entry_hash: string }
    | undefined;
  return row === undefined ? { seq: 0, entryHash: GENESIS_HASH } : { seq: row.seq, entryHash: row.entry_hash };
}

/**
 * Decode and validate a stored payload: known type, exact RFC 8785 bytes of a value in the
 * canonical domain, and inside the type's closed schema. Used by verifyChain and replay.
 */
export function decodePayload(seq: number, type: string, unit: string | null, payload: Buffer): unknown {
  const id = `seq:${seq}`;
  if (!isEntryType(type)) fail('log_payload_invalid', [id]);
  const text = utf8OrNull(payload);
  if (text === null) fail('log_payload_invalid', [id]);
  let value: unknown;
  try {
    value = parseJsonStrict(text);
  } catch {
    fail('log_payload_invalid', [id]);
  }
  // parseJsonStrict already refused anything outside the canonical domain; the bytes must be its RFC 8785 form.
  if (!isCanonicalTextOf(value, text)) fail('log_payload_invalid', [id]);
  const reducer = reducerOf(type);
  const parsed = reducer.payload.safeParse(value);
  if (!parsed.success) fail('log_payload_invalid', [id]);
  if (reducer.unitOf(parsed.data) !== unit) fail('log_payload_invalid', [id]);
  return parsed.data;
}

/** 9999-12-31T23:59:59Z: the last instant an ISO-seconds time (docs/reviewers.md#reviewer-output) can name. */
const MAX_LOG_TIME = 253_402_300_799;

/**
 * Check one row's own hashes and its link to the previous head. The order of checks names the
 * most specific fault: an edited payload alone is a payload digest mismatch; an edited payload
 * with a recomputed digest is an entry hash mismatch; a recomputed entry hash breaks the link.
 */
export function checkRow(row: LogRow, prev: LogHead): void {
  const id = `seq:${row.seq}`;
  if (row.seq !== prev.seq + 1) fail('log_chain_broken', [id]);
  // An entry's time is an instant (records are judged with the keys valid at it, docs/state.md#the-store, docs/policy.md#policy-and-trust-root):
  // one no ISO-seconds time can name is refused here, with a code, not left to crash the audit.
  if (!Number.isSafeInteger(row.time) || row.time < 0 || row.time > MAX_LOG_TIME) fail('log_time_invalid', [id]);
  if (sha256Digest(row.payload) !== row.payload_digest) fail('log_payload_digest_mismatch', [id]);
  if (entryHashOf(row) !== row.entry_hash) fail('log_entry_hash_mismatch', [id]);
  if (row.prev_hash !== prev.entryHash) fail('log_chain_broken', [id]);
}

const INSERT_LOG = `INSERT INTO log (seq, time, type, unit, payload, payload_digest, prev_hash, entry_hash)
                    VALUES (@seq, @time, @type, @unit, @payload, @payload_digest, @prev_hash, @entry_hash)`;

/**
 * The payload field holding each entry type's own time. The live path stamps it and the entry's
 * `time` with the same `tx.now`; reducers judge expiry with the payload time while the audit judges
 * signatures at the entry time (docs/state.md#the-store, docs/policy.md#policy-and-trust-root), so an entry where they differ is one the live path
 * never writes — e.g. a lease released (by payload) before its expiry but logged after it.
 */
const ENTRY_TIME_FIELD: { readonly [T in EntryType]: string } = {
  store_init: 'pinned_at',
  unit_create: 'created_at',
  writer_register: 'registered_at',
  lease_acquire: 'acquired_at',
  lease_release: 'released_at',
  lease_sweep: 'swept_at',
  authority_request: 'requested_at',
  authority_record: 'recorded_at',
  authority_consume: 'consumed_at',
  policy_update: 'updated_at',
  trust_update: 'updated_at',
  scope_bind: 'bound_at',
  challenge_issue: 'issued_at',
  challenge_sweep: 'swept_at',
  run_claim: 'claimed_at',
  run_receipt: 'recorded_at',
  run_abort: 'aborted_at',
  preservation_set: 'bound_at',
  incident_correction: 'recorded_at',
  surface_inventory: 'recorded_at',
  probe_record: 'recorded_at',
  vendor_attest: 'recorded_at',
};

const insertLog = new WeakMap<Db, { run(...params: unknown[]): unknown }>();

/** Write one already-checked row and apply its reducer: the code shared by append and replay. */
export function writeEntry(db: Db, row: LogRow, payload: unknown, leaf?: Buffer): void {
  const field = ENTRY_TIME_FIELD[row.type as EntryType];
  if ((payload as Record<string, unknown>)[field] !== row.time) fail('log_entry_not_applicable', [`seq:${row.seq}`]);
  let ins = insertLog.get(db);
  if (ins === undefined) {
    ins = db.prepare(INSERT_LOG);
    insertLog.set(db, ins);
  }
  ins.run(row);
  appendLeaf(db, row, leaf); // the Merkle tree grows in the same transaction (docs/audit.md "Transparency log")
  reducerOf(row.type as EntryType).apply(db, payload);
}

export interface Tx {
  /** The connection, for reads inside the transaction. Writes go through `append` only. */
  readonly db: Db;
  /** Time of every entry of this transaction (whole seconds, runner clock). */
  readonly now: number;
  append<T extends EntryType>(type: T, unit: string | null, payload: PayloadOf<T>): LogRow;
}

const mutating = new WeakSet<Db>();

function totalChanges(db: Db): number {
  return db.prepare('SELECT total_changes()').pluck().get() as number;
}

function appendIn(db: Db, now: number, type: EntryType, unit: string | null, payload: unknown): LogRow {
  if (!isEntryType(type)) fail('internal_error', ['entry_type']);
  const reducer = reducerOf(type);
  const parsed = reducer.payload.safeParse(payload);
  if (!parsed.success) fail('internal_error', [`payload:${type}`]);
  if (reducer.unitOf(parsed.data) !== unit) fail('internal_error', [`unit:${type}`]);
  const bytes = Buffer.from(canonicalJson(parsed.data), 'utf8');
  const head = logHead(db);
  // The machine's clock must not read earlier than the newest entry: expiry (challenges, leases,
  // authority records, trust roots) is judged against the clock and log time, so a clock stepped
  // back (NTP, a VM restore, a hostile `date`) could make an expired fact current again. Refused
  // until the clock has caught up (fail closed). The clock is read here, under the write lock, not
  // taken from `now`: the caller sampled `now` before waiting for the lock, and another process may
  // have committed a later second meanwhile — that is concurrency, not a clock stepped back.
  if (head.seq > 0) {
    const last = db.prepare('SELECT time FROM log WHERE seq = ?').pluck().get(head.seq) as number;
    if (Math.floor(Date.now() / 1000) < last) fail('store_clock_regressed');
  }
  const fields = {
    seq: head.seq + 1,
    time: now,
    type,
    unit,
    payload_digest: sha256Digest(bytes),
    prev_hash: head.entryHash,
  };
  // The leaf bytes ARE the bytes the entry hash covers: canonicalised once for both.
  const leaf = leafBytesOf(fields);
  const row: LogRow = { ...fields, payload: bytes, entry_hash: sha256Digest(leaf) };
  writeEntry(db, row, parsed.data, leaf);
  return row;
}

/**
 * Run one state change: `fn` reads what it needs through `tx.db` and records every change with
 * `tx.append`. Runs inside `BEGIN IMMEDIATE` (the write lock is taken up front, so the checks `fn`
 * makes still hold when it writes, across processes). Any throw rolls everything back. Writes
 * that bypass `append` are detected by counting changed rows and refused
 * (`store_write_outside_log`), so replay can always rebuild what the live path built.
 */
export function mutate<R>(store: Store, now: number, fn: (tx: Tx) => R): R {
  assertWholeSeconds(now);
  const db = store.db;
  if (mutating.has(db)) fail('store_nested_mutation');
  mutating.add(db);
  let appended = false;
  try {
    const run = db.transaction((): R => {
      const before = totalChanges(db);
      let logged = 0;
      const tx: Tx = {
        db,
        now,
        append(type, unit, payload) {
          const t0 = totalChanges(db);
          const row = appendIn(db, now, type, unit, payload);
          appended = true;
          logged += totalChanges(db) - t0;
          return row;
        },
      };
      const result = fn(tx);
      if (result instanceof Promise) fail('internal_error', ['mutate_async']);
      if (totalChanges(db) - before !== logged) fail('store_write_outside_log');
      return result;
    });
    const result = run.immediate();
    // Committed: an automatic checkpoint may now be due (docs/audit.md "Automatic checkpoints").
    if (appended) noteAppended(store.home);
    return result;
  } catch (e) {
    throw isGovernedError(e) ? e : toGovernedError(e);
  } finally {
    mutating.delete(db);
  }
}

/** All log rows in order (small stores, tests, export). */
export function readLog(x: Store | Db): LogRow[] {
  return dbOf(x).prepare('SELECT * FROM log ORDER BY seq').all() as LogRow[];
}

export interface ChainReport {
  readonly entries: number;
  readonly head: string;
}

/**
 * Recompute every hash of the log (docs/state.md#the-store, docs/commands.md#what-each-command-guarantees audit verify): contiguous seq from 1, payload
 * digests, entry hashes, prev links, and each payload well-formed for its type. Reads in one
 * statement, so it sees one consistent snapshot even while other processes append. Deleting the
 * *last* entries is not detectable from the log alone: that is what exported checkpoints are for.
 */
export function verifyChain(x: Store | Db): ChainReport {
  const db = dbOf(x);
  let head: LogHead = { seq: 0, entryHash: GENESIS_HASH };
  try {
    for (const row of db.prepare('SELECT * FROM log ORDER BY seq').iterate() as IterableIterator<LogRow>) {
      checkRow(row, head);
      decodePayload(row.seq, row.type, row.unit, row.payload);
      head = { seq: row.seq, entryHash: row.entry_hash };
    }
  } catch (e) {
    throw toGovernedError(e);
  }
  return { entries: head.seq, head: head.entryHash };
}
