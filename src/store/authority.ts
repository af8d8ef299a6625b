// Human authority records in the store (docs/authority.md#human-authority-records) and the pin updates they authorise (docs/state.md#the-store, docs/policy.md#policy-and-trust-root).
// This file is the API other domains consume (docs/authority.md "API"):
//
//   requestAuthorityIn / requestAuthority   issue a one-time nonce and the exact statement to sign
//   recordAuthority                          verify a signed record and store its exact bytes
//   consumeAuthorityIn(tx, {recordId, ...})  judge a record at THIS log position and use it once
//   getAuthorityRecord / isAuthorityConsumedFor / readAuthorityEnvelope / listAuthorityRecords
//   replacePinIn                             policy/trust update inside a transaction
//   pinUpdates / lastPinUpdateSeq / pinInForceAt / trustRootInForce
//
// Judgement time is always the time of the log position being written (`tx.now`), and the trust
// root is the one pinned at that position (docs/state.md#the-store: "the key validity that applies to a record is
// the trust root in force at its log position").
import { randomBytes } from 'node:crypto';
import { canonicalBytes, sha256Digest } from '../core/canonical.js';
import { fail, GovernedError, isGovernedError, worstError } from '../core/errors.js';
import { parseEnvelopeBytes } from '../core/dsse.js';
import { parsePinDocument } from '../core/pin-document.js';
import { parseStructured, parseJsonStrict } from '../core/strict-parse.js';
import { loadTrustRoot, type TrustRoot } from '../core/trust-root.js';
import { utf8OrNull } from '../core/utf8.js';
import {
  AUTHORITY_PREDICATE_TYPE,
  authorityPredicateViolation,
  authorityStatementSchema,
  buildAuthorityStatement,
  COVERED_ID_RE,
  isAuthorityOperation,
  isExpiredAt,
  isoOfSeconds,
  MAX_COVERED_IDS,
  MAX_TTL_SECONDS,
  MIN_TTL_SECONDS,
  OPERATION_RULES,
  pinKindOf,
  RECORD_ID_RE,
  recordIdOf,
  requestMismatchField,
  sortIds,
  useMismatch,
  verifyAuthorityRecordBytes,
  type AuthorityOperation,
  type AuthorityPredicate,
  type AuthorityStatement,
  type AuthorityUse,
} from '../core/authority/index.js';
import { DIGEST_RE } from '../core/canonical.js';
import { mutate, type Tx } from './log.js';
import { readPin, type PinKind } from './pins.js';
import { getUnit } from './units.js';
import { dbOf, type Db, type Store } from './store.js';

export type { AuthorityOperation, AuthorityUse } from '../core/authority/index.js';

// ---------------------------------------------------------------------------------------------
// Trust root in force

/** The trust root pinned now (the one in force at the next log position). */
export function trustRootInForce(x: Store | Db): TrustRoot {
  return trustRootOfBytes(readPin(x, 'trust').bytes);
}

/**
 * Parsed trust roots by their exact bytes (a function of the bytes alone; a few per store): the
 * audit judges every record under the root in force at its position, and re-parsing it (zod, one
 * createPublicKey per key) for each of 100,000 receipts was most of `audit verify`'s time
 * (bench/audit). Bounded: the oldest entry is dropped past 16.
 */
const trustRoots = new Map<string, TrustRoot>();

function trustRootOfBytes(bytes: Buffer): TrustRoot {
  const key = bytes.toString('latin1');
  const hit = trustRoots.get(key);
  if (hit !== undefined) return hit;
  const root = parseTrustRootBytes(bytes);
  if (trustRoots.size >= 16) trustRoots.delete(trustRoots.keys().next().value as string);
  trustRoots.set(key, root);
  return root;
}

function parseTrustRootBytes(bytes: Buffer): TrustRoot {
  const text = utf8OrNull(bytes);
  if (text === null) fail('trust_root_invalid', []);
  return loadTrustRoot(parseStructured(text, ''));
}

// ---------------------------------------------------------------------------------------------
// authority request

export interface AuthorityRequestArgs {
  readonly operation: string;
  /** The exact IDs the decision covers, any order; duplicates are refused. Empty for pin updates. */
  readonly ids: readonly string[];
  readonly unit: string | null;
  /** For policy/trust updates, null means "the digest pinned now". */
  readonly stateBefore: string | null;
  readonly stateAfter: string | null;
  readonly ttlSeconds: number;
}

export interface IssuedAuthorityRequest {
  readonly requestId: string;
  /** The id the record will have once this exact statement is signed (payload-derived). */
  readonly recordId: string;
  readonly statement: AuthorityStatement;
  /** The exact RFC 8785 bytes to sign. */
  readonly payload: Buffer;
  readonly payloadDigest: string;
  readonly issuedAt: number;
  readonly expiresAt: number;
  readonly seq: number;
}

const invalidRequest = (field: string): never => fail('authority_request_invalid', [field]);

/** Inside a mutate: validate the request, draw a request id and nonce, log the statement. */
export function requestAuthorityIn(tx: Tx, args: AuthorityRequestArgs): IssuedAuthorityRequest {
  if (!isAuthorityOperation(args.operation)) invalidRequest('operation');
  const operation = args.operation as AuthorityOperation;
  const rule = OPERATION_RULES[operation];
  if (args.ids.length > MAX_COVERED_IDS || args.ids.some((id) => !COVERED_ID_RE.test(id))) invalidRequest('ids');
  const ids = sortIds(args.ids);
  if (ids.length !== args.ids.length) invalidRequest('ids');
  if (!Number.isSafeInteger(args.ttlSeconds) || args.ttlSeconds < MIN_TTL_SECONDS || args.ttlSeconds > MAX_TTL_SECONDS) {
    invalidRequest('ttl');
  }
  for (const [field, value] of [
    ['state_before', args.stateBefore],
    ['state_after', args.stateAfter],
  ] as const) {
    if (value !== null && !DIGEST_RE.test(value)) invalidRequest(field);
  }
  if (rule.unit) {
    if (args.unit === null) invalidRequest('unit');
    getUnit(tx.db, args.unit as string); // unit_unknown (7)
  } else if (args.unit !== null) {
    invalidRequest('unit');
  }
  let stateBefore = args.stateBefore;
  const kind = pinKindOf(operation);
  if (kind !== null) {
    // A pin update is always from the document pinned now (docs/authority.md).
    const pinned = readPin(tx.db, kind).digest;
    if (stateBefore === null) stateBefore = pinned;
    else if (stateBefore !== pinned) invalidRequest('state_before');
  }
  const requestId = `ARQ-${randomBytes(16).toString('hex')}`;
  const predicate: AuthorityPredicate = {
    operation,
    ids,
    unit: args.unit,
    state_before: stateBefore,
    state_after: args.stateAfter,
    nonce: randomBytes(32).toString('hex'),
    request_id: requestId,
    issued_at: isoOfSeconds(tx.now),
    expires_at: isoOfSeconds(tx.now + args.ttlSeconds),
  };
  const broken = authorityPredicateViolation(predicate);
  if (broken !== null) invalidRequest(broken);
  const statement = buildAuthorityStatement(predicate);
  const row = tx.append('authority_request', predicate.unit, { request: requestId, statement, requested_at: tx.now });
  const payload = canonicalBytes(statement);
  return {
    requestId,
    recordId: recordIdOf(payload),
    statement,
    payload,
    payloadDigest: sha256Digest(payload),
    issuedAt: tx.now,
    expiresAt: tx.now + args.ttlSeconds,
    seq: row.seq,
  };
}

export function requestAuthority(store: Store, args: AuthorityRequestArgs & { readonly now: number }): IssuedAuthorityRequest {
  return mutate(store, args.now, (tx) => requestAuthorityIn(tx, args));
}

// ---------------------------------------------------------------------------------------------
// authority record

export interface AuthorityRecordInfo {
  readonly recordId: string;
  readonly requestId: string;
  readonly payloadDigest: string;
  readonly keyId: string;
  readonly operation: AuthorityOperation;
  readonly ids: readonly string[];
  readonly unit: string | null;
  readonly stateBefore: string | null;
  readonly stateAfter: string | null;
  readonly expiresAt: number;
  readonly recordedAt: number;
  readonly recordedSeq: number;
  /** Where the record was judged and used, or null while it is unused. */
  readonly consumed: { readonly seq: number; readonly at: number; readonly operation: AuthorityOperation; readonly unit: string | null } | null;
}

interface RequestRow {
  id: string;
  nonce: string;
  statement: Buffer;
  payload_digest: string;
  expires_at: number;
}

/**
 * Verify a signed record and store its exact bytes (`authority record`). Judged at `now`, under
 * the trust root pinned now: one signature by an authority key valid then, the closed statement,
 * a request id and nonce this store issued, the very statement issued (not an edited one), a
 * nonce not used before, and a request not yet expired.
 */
export function recordAuthority(store: Store, args: { readonly envelope: Uint8Array; readonly now: number }): AuthorityRecordInfo {
  return mutate(store, args.now, (tx) => {
    const trust = trustRootInForce(tx.db);
    const v = verifyAuthorityRecordBytes(args.envelope, trust, { at: isoOfSeconds(tx.now), offline: false });
    const p = v.predicate;
    const req = tx.db
      .prepare('SELECT id, nonce, statement, payload_digest, expires_at FROM authority_requests WHERE id = ?')
      .get(p.request_id) as RequestRow | undefined;
    if (req === undefined || req.nonce !== p.nonce) fail('authority_nonce_unknown', [v.recordId]);
    const issued = authorityStatementSchema.parse(JSON.parse(req.statement.toString('utf8')));
    const field = requestMismatchField(p, issued.predicate);
    // Same predicate ⇒ same subject and canonical bytes; the digest check closes any remaining gap.
    if (field !== null || v.payloadDigest !== req.payload_digest) fail('authority_request_mismatch', [v.recordId, field ?? 'payload']);
    const used = tx.db.prepare('SELECT id FROM authority_records WHERE request = ?').pluck().get(req.id) as string | undefined;
    if (used !== undefined) fail('authority_nonce_reused', [req.id]);
    if (tx.now >= req.expires_at) fail('authority_expired', [req.id]);
    tx.append('authority_record', p.unit, {
      record: v.recordId,
      request: req.id,
      unit: p.unit,
      envelope_b64: Buffer.from(args.envelope).toString('base64'),
      key_id: v.keyId,
      recorded_at: tx.now,
    });
    const info = getAuthorityRecord(tx.db, v.recordId);
    if (info === null) fail('internal_error', ['authority_record']);
    return info;
  });
}

// ---------------------------------------------------------------------------------------------
// consumption

export interface ConsumeAuthorityArgs extends AuthorityUse {
  readonly recordId: string;
}

export interface ConsumedAuthority {
  readonly recordId: string;
  readonly operation: AuthorityOperation;
  readonly ids: readonly string[];
  readonly unit: string | null;
  readonly stateBefore: string | null;
  readonly stateAfter: string | null;
  readonly keyId: string;
  /** The log position where the record was judged and used (the `authority_consume` entry). */
  readonly consumedSeq: number;
  readonly consumedAt: number;
}


function predicateOfStoredEnvelope(envelope: Buffer): AuthorityPredicate {
  const payload = parseEnvelopeBytes(envelope).payload;
  const st = authorityStatementSchema.safeParse(parseJsonStrict(payload.toString('utf8')));
  if (!st.success || st.data.predicateType !== AUTHORITY_PREDICATE_TYPE) fail('authority_record_invalid', []);
  return st.data.predicate;
}

/**
 * Judge the record at THIS log position and mark it consumed, inside the caller's transaction
 * (docs/authority.md#human-authority-records: "judged once, at the log position where it is consumed"). Checks, with the docs/commands.md#exit-codes
 * precedence among the failures: the stored envelope re-verified under the trust root in force now
 * at `tx.now` (4/6/5), the record covers exactly `use` (4), it was not consumed before (5) and has
 * not expired (5). Unknown record: `authority_record_unknown` (7). On success one
 * `authority_consume` entry is appended; the caller's own entries follow in the same transaction,
 * so a refused caller leaves the record unused.
 */
export function consumeAuthorityIn(tx: Tx, args: ConsumeAuthorityArgs): ConsumedAuthority {
  const known = RECORD_ID_RE.test(args.recordId)
    ? (tx.db.prepare('SELECT envelope, key_id FROM authority_records WHERE id = ?').get(args.recordId) as
        | { envelope: Buffer; key_id: string }
        | undefined)
    : undefined;
  if (known === undefined) fail('authority_record_unknown', RECORD_ID_RE.test(args.recordId) ? [args.recordId] : []);
  const errors: GovernedError[] = [];
  const collect = (fn: () => void): void => {
    try {
      fn();
    } catch (e) {
      if (!isGovernedError(e)) throw e;
      errors.push(e);
    }
  };
  collect(() => {
    verifyAuthorityRecordBytes(known.envelope, trustRootInForce(tx.db), { at: isoOfSeconds(tx.now), offline: false });
  });
  let predicate: AuthorityPredicate | null = null;
  collect(() => {
    predicate = predicateOfStoredEnvelope(known.envelope);
  });
  const p = predicate as AuthorityPredicate | null;
  if (p !== null) {
    const mismatch = useMismatch(p, args);
    if (mismatch !== null) errors.push(mismatch);
    const consumed = tx.db.prepare('SELECT 1 FROM authority_consumptions WHERE record = ?').get(args.recordId);
    if (consumed !== undefined) errors.push(new GovernedError('authority_replayed', { ids: [args.recordId] }));
    if (isExpiredAt(p, tx.now)) errors.push(new GovernedError('authority_expired', { ids: [args.recordId] }));
  }
  const failure = worstError(errors);
  if (failure !== null) throw failure;
  if (p === null) fail('internal_error', ['authority_consume']);
  const row = tx.append('authority_consume', p.unit, { record: args.recordId, operation: p.operation, unit: p.unit, consumed_at: tx.now });
  return {
    recordId: args.recordId,
    operation: p.operation,
    ids: p.ids,
    unit: p.unit,
    stateBefore: p.state_before,
    stateAfter: p.state_after,
    keyId: known.key_id,
    consumedSeq: row.seq,
    consumedAt: tx.now,
  };
}

// ---------------------------------------------------------------------------------------------
// queries

interface RecordRow {
  id: string;
  request: string;
  payload_digest: string;
  key_id: string;
  operation: AuthorityOperation;
  unit: string | null;
  ids: string;
  state_before: string | null;
  state_after: string | null;
  expires_at: number;
  recorded_at: number;
  recorded_seq: number;
  consumed_seq: number | null;
  consumed_at: number | null;
  consumed_operation: AuthorityOperation | null;
  consumed_unit: string | null;
}

const RECORD_SELECT = `
  SELECT r.id, r.request, r.payload_digest, r.key_id, r.operation, r.unit, r.ids, r.state_before, r.state_after,
         r.expires_at, r.recorded_at, r.recorded_seq,
         c.consumed_seq, c.consumed_at, c.operation AS consumed_operation, c.unit AS consumed_unit
  FROM authority_records r LEFT JOIN authority_consumptions c ON c.record = r.id`;

function infoOf(row: RecordRow): AuthorityRecordInfo {
  return {
    recordId: row.id,
    requestId: row.request,
    payloadDigest: row.payload_digest,
    keyId: row.key_id,
    operation: row.operation,
    ids: JSON.parse(row.ids) as string[],
    unit: row.unit,
    stateBefore: row.state_before,
    stateAfter: row.state_after,
    expiresAt: row.expires_at,
    recordedAt: row.recorded_at,
    recordedSeq: row.recorded_seq,
    consumed:
      row.consumed_seq === null || row.consumed_at === null || row.consumed_operation === null
        ? null
        : { seq: row.consumed_seq, at: row.consumed_at, operation: row.consumed_operation, unit: row.consumed_unit },
  };
}

/** A recorded authority record with its consumption, or null. Not a judgement: see consumeAuthorityIn. */
export function getAuthorityRecord(x: Store | Db, recordId: string): AuthorityRecordInfo | null {
  if (!RECORD_ID_RE.test(recordId)) return null;
  const row = dbOf(x).prepare(`${RECORD_SELECT} WHERE r.id = ?`).get(recordId) as RecordRow | undefined;
  return row === undefined ? null : infoOf(row);
}

/** Every recorded authority record (of one unit, when given), in log order. */
export function listAuthorityRecords(x: Store | Db, filter: { readonly unit?: string } = {}): AuthorityRecordInfo[] {
  const db = dbOf(x);
  const rows = (
    filter.unit === undefined
      ? db.prepare(`${RECORD_SELECT} ORDER BY r.recorded_seq`).all()
      : db.prepare(`${RECORD_SELECT} WHERE r.unit = ? ORDER BY r.recorded_seq`).all(filter.unit)
  ) as RecordRow[];
  return rows.map(infoOf);
}

/** The exact stored envelope bytes of a record (for re-verification under another trust root). */
export function readAuthorityEnvelope(x: Store | Db, recordId: string): Buffer | null {
  if (!RECORD_ID_RE.test(recordId)) return null;
  const row = dbOf(x).prepare('SELECT envelope FROM authority_records WHERE id = ?').pluck().get(recordId) as Buffer | undefined;
  return row ?? null;
}

/**
 * True when `recordId` was consumed for `unit` by an operation among `operation`: the validity of a
 * tombstone's authority once the bind that introduced it committed (docs/authority.md#human-authority-records: "later binds carry
 * it as history"). Not a re-judgement: the record was judged at its consumption.
 */
export function isAuthorityConsumedFor(
  x: Store | Db,
  args: { readonly recordId: string; readonly operation: AuthorityOperation | readonly AuthorityOperation[]; readonly unit: string },
): boolean {
  const info = getAuthorityRecord(x, args.recordId);
  if (info === null || info.consumed === null) return false;
  const ops: readonly AuthorityOperation[] = typeof args.operation === 'string' ? [args.operation] : args.operation;
  return ops.includes(info.operation) && info.unit === args.unit && info.consumed.unit === args.unit;
}

// ---------------------------------------------------------------------------------------------
// policy / trust updates

export interface PinUpdate {
  /** The log position of the update: the new document is in force from here on. */
  readonly seq: number;
  readonly kind: PinKind;
  readonly digestBefore: string;
  readonly digest: string;
  readonly record: string;
  readonly updatedAt: number;
}

export interface ReplacePinArgs {
  readonly kind: PinKind;
  /** The new document's exact bytes; the caller validated it (policy / trust-root schema). */
  readonly bytes: Uint8Array;
  readonly recordId: string;
}

/**
 * Inside a mutate: consume a `policy_update` / `trust_update` record naming (pinned digest → new
 * digest) and replace the pin. The record is judged under the trust root pinned BEFORE this
 * update, so a new trust root can never authorise itself.
 */
export function replacePinIn(tx: Tx, args: ReplacePinArgs): PinUpdate {
  const current = readPin(tx.db, args.kind);
  let digest: string;
  try {
    digest = parsePinDocument(args.bytes, args.kind).digest;
  } catch (e) {
    if (isGovernedError(e)) throw e;
    fail('input_unreadable', [args.kind]);
  }
  const consumed = consumeAuthorityIn(tx, {
    recordId: args.recordId,
    operation: `${args.kind}_update`,
    ids: [],
    unit: null,
    stateBefore: current.digest,
    stateAfter: digest,
  });
  const row = tx.append(`${args.kind}_update`, null, {
    record: consumed.recordId,
    digest_before: current.digest,
    digest,
    bytes_b64: Buffer.from(args.bytes).toString('base64'),
    updated_at: tx.now,
  });
  return { seq: row.seq, kind: args.kind, digestBefore: current.digest, digest, record: consumed.recordId, updatedAt: tx.now };
}

/** Every pin update (of one kind, when given), in log order. */
export function pinUpdates(x: Store | Db, kind?: PinKind): PinUpdate[] {
  const db = dbOf(x);
  const sql = 'SELECT seq, kind, digest_before, digest, record, updated_at FROM pin_updates';
  const rows = (kind === undefined ? db.prepare(`${sql} ORDER BY seq`).all() : db.prepare(`${sql} WHERE kind = ? ORDER BY seq`).all(kind)) as {
    seq: number;
    kind: PinKind;
    digest_before: string;
    digest: string;
    record: string;
    updated_at: number;
  }[];
  return rows.map((r) => ({ seq: r.seq, kind: r.kind, digestBefore: r.digest_before, digest: r.digest, record: r.record, updatedAt: r.updated_at }));
}

/**
 * The log position of the latest policy or trust update, or 0 when there was none. docs/contract.md#the-states-a-receipt-is-judged-against,
 * docs/policy.md#policy-and-trust-root: every receipt recorded before this position stops counting (every streak restarts).
 */
export function lastPinUpdateSeq(x: Store | Db): number {
  return (dbOf(x).prepare('SELECT COALESCE(MAX(seq), 0) FROM pin_updates').pluck().get() as number) ?? 0;
}

/** The policy or trust root in force at log position `seq` (the init pin before any update). */
const pinStatements = new WeakMap<Db, { get(...params: unknown[]): unknown }>();

export function pinInForceAt(x: Store | Db, kind: PinKind, seq: number): { readonly digest: string; readonly bytes: Buffer; readonly sinceSeq: number } {
  const db = dbOf(x);
  let stmt = pinStatements.get(db);
  if (stmt === undefined) {
    stmt = db.prepare('SELECT seq, digest, bytes FROM pin_updates WHERE kind = ? AND seq <= ? ORDER BY seq DESC LIMIT 1');
    pinStatements.set(db, stmt);
  }
  const row = stmt.get(kind, seq) as { seq: number; digest: string; bytes: Buffer } | undefined;
  if (row !== undefined) return { digest: row.digest, bytes: row.bytes, sinceSeq: row.seq };
  // The init pin: log entry 1, which no statement can change (the log's append-only triggers), so
  // it is read and parsed once per connection — the audit asks for it once per receipt.
  let init = initPins.get(db);
  if (init === undefined) {
    const bytes = db.prepare("SELECT payload FROM log WHERE seq = 1 AND type = 'store_init'").pluck().get() as Buffer | undefined;
    if (bytes === undefined) fail('store_missing', [kind]);
    init = JSON.parse(bytes.toString('utf8')) as Record<PinKind, { digest: string; bytes_b64: string }>;
    initPins.set(db, init);
  }
  return { digest: init[kind].digest, bytes: Buffer.from(init[kind].bytes_b64, 'base64'), sinceSeq: 1 };
}

const initPins = new WeakMap<Db, Record<PinKind, { digest: string; bytes_b64: string }>>();

/** The trust root in force at log position `seq` (for judging a record at its position). */
export function trustRootAt(x: Store | Db, seq: number): TrustRoot {
  return trustRootOfBytes(pinInForceAt(x, 'trust', seq).bytes);
}
