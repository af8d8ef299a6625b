// `governed audit verify` (docs/commands.md#what-each-command-guarantees, docs/state.md#the-store, docs/threat-model.md#trust-modes item 6): re-check the whole store from its log alone.
//   1. the chain: contiguous seq, payload digests, entry hashes, links, every payload well-formed;
//   2. replay: every log entry applied to an empty database gives exactly the stored state;
//   3. every receipt the log recorded: its envelope verifies (DSSE, canonical payload, statement,
//      predicate, two signatures by distinct reviewer and runner keys) under the trust root in
//      force at its log position (or the auditor's own, `--trust`), and its signed predicate equals
//      the `run_receipt`, `run_claim` and `challenge_issue` entries it belongs to;
//   4. single use: no challenge claimed or answered twice, no receipt without its claim and issue;
//   5. every authority record verifies at the log position where it took effect (its consumption,
//      docs/authority.md#human-authority-records; else where it was recorded) and matches its entry;
//   6. each signed checkpoint given (`audit checkpoint`) is extended by this log;
//   7. every probe receipt the log recorded verifies under the trust root in force at its position,
//      by a key holding role `probe` (docs/preservation.md#probes).
// Read-only: nothing is written to the state directory (replay goes to a private temp directory).
// A chain failure stops the audit (nothing after a broken link can be trusted); other failures are
// collected, and the exit code is the worst by docs/commands.md#exit-codes precedence.
//
// What it proves, and what not (docs/threat-model.md#trust-modes): every record is internally consistent and signed by
// keys the trust root held for that role at that position. In co-located mode a writer with the
// uid that owns the keys and the store could rewrite the log and re-sign consistently; only a
// checkpoint that has left the machine (step 6) makes such a rewrite of what it covers detectable.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXIT_PRECEDENCE, GovernedError, isGovernedError, type ExitCode } from '../../core/errors.js';
import { checkpointViolation, type CheckpointPredicate } from '../../core/checkpoint.js';
import { isoOfSeconds, isoSecondsOf, type TrustRoot } from '../../core/trust-root.js';
import { verifyStatementEnvelope } from '../../core/verify-receipt.js';
import { checkNoteCheckpoints, type WitnessPolicy } from './tlog-verify.js';
import { isNoteCheckpoint } from '../../core/tlog-checkpoint.js';
import { entryLeafHash, treeReader, verifyTree } from '../../store/tree.js';
import { closeStore, openStoreReadOnly, stateDigest, trustRootAt, trustRootInForce, type Db, type LogRow } from '../../store/index.js';
import { openReplayTarget, passLog, type LogPass } from '../../store/replay.js';
import { checkRow, GENESIS_HASH, logHead, type LogHead } from '../../store/log.js';
import { openDatabase } from '../../store/open.js';
import { storedHashCount, storedHashesForLeaf, storedHashIndex, treeHash, HASH_SIZE, type HashReader } from '../../core/merkle.js';
import { canonicalJson } from '../../core/canonical.js';
import { auditCarrySchema, type AuditCarry, type AuditStateAnchor } from '../../core/audit-state-note.js';
import { AUDIT_SQLITE_CACHE_KIB } from '../../core/limits.js';
import type { Statement } from 'better-sqlite3';
import { abandonAuditStateDir, openAuditStateDir, saveAuditState, STATE_DB, type AuditStateDir } from './audit-state.js';
import type { SigningKey } from '../authority/private-key.js';
import { inThreadChecker, workerChecker, type ReceiptChecker } from './receipt-pool.js';

/** Defined once in zod/mini (src/core/command-output.ts auditVerifySchema); type imports only. */
export type { AuditFailure, AuditReport } from '../../core/command-output.js';
import type { AuditFailure, AuditReport } from '../../core/command-output.js';
import type { ProgressSink } from '../../core/progress.js';
import { UNIT_ID_RE } from '../../core/ids.js';

export interface AuditOptions {
  readonly unit?: string;
  /** The auditor's own trust root, applied at every log position instead of the pinned ones. */
  readonly trust?: TrustRoot;
  /** Signed checkpoints (`audit checkpoint`) the log must extend, by file name. */
  readonly checkpoints?: readonly { readonly file: string; readonly bytes: Buffer }[];
  /** When the audit runs (checkpoint signatures are judged now, offline: valid and not revoked). */
  readonly now?: Date;
  /** Witness keys whose cosignatures each C2SP checkpoint must carry (docs/audit.md "Witnesses"). */
  readonly witnesses?: WitnessPolicy;
  /**
   * Worker threads for the receipt checks (docs/audit.md "Cost and memory"); 0: in this thread.
   * Default: up to 4, one less than the available cores, and only for a log of at least
   * WORKERS_FROM receipts. Workers need `workerFile` (dist/audit-receipt-worker.mjs).
   */
  readonly jobs?: number;
  readonly workerFile?: string | null;
  /** One call as each phase starts (docs/commands.md#progress-on-stderr); fixed words and counts only. */
  readonly progress?: ProgressSink<'audit-verify'> | undefined;
  /**
   * The auditor's state directory and key (docs/audit.md#incremental-audit): resume from the signed
   * state it holds, re-checking only the entries after it, and save the new state after a clean
   * audit. Not with `unit`.
   */
  readonly state?: { readonly dir: string; readonly key: SigningKey } | undefined;
}

/** Below this many receipts a worker's start-up (~0.1 s) costs more than it saves. */
const WORKERS_FROM = 256;

async function receiptChecker(db: Db, options: AuditOptions, rebuild: boolean): Promise<ReceiptChecker> {
  let n = options.jobs;
  if (n === undefined) {
    const receipts = db.prepare(rebuild ? "SELECT count(*) FROM log WHERE type = 'run_receipt'" : 'SELECT count(*) FROM receipts').pluck().get() as number;
    n = receipts < WORKERS_FROM || options.workerFile == null ? 0 : Math.max(0, Math.min(4, availableParallelism() - 1));
  }
  if (n === 0) return inThreadChecker();
  if (options.workerFile == null) throw new GovernedError('internal_error', { ids: ['audit_worker_missing'] });
  return workerChecker(n, options.workerFile);
}

type Payload = Record<string, unknown>;


function failureOf(e: GovernedError, extraIds: readonly string[] = []): AuditFailure {
  return { code: e.code, exit: e.exit, ids: [...extraIds, ...e.ids] };
}

function worstExit(failures: readonly AuditFailure[]): ExitCode {
  for (const exit of EXIT_PRECEDENCE) if (failures.some((f) => f.exit === exit)) return exit;
  return 0;
}

function failure(
  code: 'audit_receipt_mismatch' | 'audit_authority_mismatch' | 'audit_challenge_reused' | 'audit_orphan_record' | 'audit_checkpoint_mismatch' | 'audit_checkpoint_invalid',
  ids: string[],
): AuditFailure {
  return failureOf(new GovernedError(code, { ids }));
}

/**
 * A connection's page cache, bounded for the audit's one pass (docs/audit.md#cost-and-memory); with
 * `temp`, its temp schema's too (the replay connection's, which holds IdSets). temp_store is never
 * set: this SQLite build keeps temp tables in files by default (TEMP_STORE=1), and setting it would
 * drop the temp schema — where `audit verify --export` keeps the exported log (./export-verify.ts).
 */
function boundCache(x: Db, temp: boolean): void {
  x.pragma(`cache_size = -${AUDIT_SQLITE_CACHE_KIB}`);
  if (temp) x.pragma(`temp.cache_size = -${AUDIT_SQLITE_CACHE_KIB}`);
}

/**
 * The ids of the challenges issued, claimed and answered so far (docs/audit.md#cost-and-memory), held for
 * the whole pass: in a TEMP table of the replay connection, not in memory — at 100,000 receipts
 * they were ~50 MB of JS heap. A temp table lives in the connection's temp schema (a file SQLite
 * deletes as it opens it: this build's default, TEMP_STORE=1), is never part of the replayed state (stateDigest reads
 * the main schema) and goes with the connection. Insertion order is kept (rowid) for carry().
 */
class IdSets {
  private readonly hasStmt: Statement;
  private readonly addStmt: Statement;
  private readonly listStmt: Statement;
  constructor(t: Db) {
    t.exec('CREATE TEMP TABLE audit_ids (kind INTEGER NOT NULL, id TEXT NOT NULL, UNIQUE (kind, id))');
    this.hasStmt = t.prepare('SELECT 1 FROM temp.audit_ids WHERE kind = ? AND id = ?').pluck();
    this.addStmt = t.prepare('INSERT OR IGNORE INTO temp.audit_ids (kind, id) VALUES (?, ?)');
    this.listStmt = t.prepare('SELECT id FROM temp.audit_ids WHERE kind = ? ORDER BY rowid').pluck();
  }
  has(kind: IdKind, id: string): boolean {
    return this.hasStmt.get(kind, id) !== undefined;
  }
  /** Add `id`; false when it was already there. */
  add(kind: IdKind, id: string): boolean {
    return this.addStmt.run(kind, id).changes === 1;
  }
  list(kind: IdKind): string[] {
    return this.listStmt.all(kind) as string[];
  }
}
const ISSUED = 0;
const CLAIMED = 1;
const ANSWERED = 2;
type IdKind = typeof ISSUED | typeof CLAIMED | typeof ANSWERED;

export async function auditVerify(home: string, options: AuditOptions = {}): Promise<AuditReport> {
  const progress = options.progress ?? (() => undefined);
  progress('open');
  const store = openStoreReadOnly(home); // no write lock, no write: an audit never changes what it audits
  if (options.state !== undefined && options.unit !== undefined) {
    closeStore(store);
    throw new GovernedError('usage_error', { ids: ['--state', '--unit'] });
  }
  let state: AuditStateDir | null = null;
  let saved: Saved | null = null;
  const scratch = mkdtempSync(join(tmpdir(), 'governed-audit-'));
  try {
    if (options.state !== undefined) {
      state = openAuditStateDir(options.state.dir, options.state.key);
      // The saved audit and this one must judge signatures under the same trust: the checks
      // before the note's size are not repeated.
      if (state.kind === 'resume' && state.anchor.trust !== trustLine(options)) throw new GovernedError('audit_state_invalid', { ids: ['trust'] });
    }
    const r = await auditLog(store.db, options, { scratch, state, onSaved: (s) => (saved = s) });
    const s = saved as Saved | null;
    if (s !== null && options.state !== undefined) {
      try {
        saveAuditState(options.state.dir, options.state.key, s.anchor, s.carry);
      } catch (e) {
        saved = null; // a full audit's directory is then removed again (finally)
        throw e;
      }
      return { ...r, state: { resumed_from: state?.kind === 'resume' ? state.anchor.size : null, saved: s.anchor.size } };
    }
    return state === null ? r : { ...r, state: { resumed_from: state.kind === 'resume' ? state.anchor.size : null, saved: null } };
  } finally {
    closeStore(store);
    rmSync(scratch, { recursive: true, force: true });
    if (state !== null && saved === null) abandonAuditStateDir(state);
  }
}

interface Saved {
  readonly anchor: Omit<AuditStateAnchor, 'carry'>;
  readonly carry: string;
}

function trustLine(options: AuditOptions): string {
  return options.trust?.digest ?? 'pinned-at-position';
}

/**
 * The log's first `a.size` entries, re-hashed (docs/audit.md#incremental-audit): the log is the
 * one the note names (its first entry; tlog_origin_mismatch), at least that long
 * (tlog_log_truncated), every row's own hashes and links hold (checkRow), and the RFC 6962 tree of
 * their leaves has the note's root (tlog_root_mismatch) — the tree is re-derived from the rows, in
 * memory, not read from the stored hashes. Nothing is decoded, applied or signature-checked: that
 * was done by the audit that signed the note. Returns the head to resume from, or null after
 * recording the failure.
 */
function checkPrefix(db: Db, a: AuditStateAnchor, failures: AuditFailure[]): LogHead | null {
  const first = db.prepare('SELECT entry_hash FROM log WHERE seq = 1').pluck().get() as string | undefined;
  if (first !== a.log) {
    failures.push(failureOf(new GovernedError('tlog_origin_mismatch', { ids: ['state.note'] })));
    return null;
  }
  const entries = logHead(db).seq;
  if (entries < a.size) {
    failures.push(failureOf(new GovernedError('tlog_log_truncated', { ids: ['state.note', `size:${a.size}`, `log:${entries}`] })));
    return null;
  }
  const mem = Buffer.alloc(storedHashCount(a.size) * HASH_SIZE);
  const read: HashReader = (idx) => idx.map((i) => mem.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE));
  let head: LogHead = { seq: 0, entryHash: GENESIS_HASH };
  try {
    for (const row of db.prepare('SELECT * FROM log WHERE seq <= ? ORDER BY seq').iterate(a.size) as IterableIterator<LogRow>) {
      checkRow(row, head);
      const n = row.seq - 1;
      const base = storedHashIndex(0, n);
      storedHashesForLeaf(n, entryLeafHash(row), read).forEach((h, j) => h.copy(mem, (base + j) * HASH_SIZE));
      head = { seq: row.seq, entryHash: row.entry_hash };
    }
  } catch (e) {
    if (!isGovernedError(e)) throw e;
    failures.push(failureOf(e));
    return null;
  }
  if (head.seq !== a.size || !treeHash(a.size, read).equals(a.root) || head.entryHash !== a.head) {
    failures.push(failureOf(new GovernedError('tlog_root_mismatch', { ids: ['state.note', `size:${a.size}`] })));
    return null;
  }
  return head;
}

/** The saved replay database must be at the note's size, chain head, Merkle root and state digest. */
function checkSavedReplay(t: Db, a: AuditStateAnchor): void {
  const h = logHead(t);
  if (h.seq !== a.size || h.entryHash !== a.head) throw new GovernedError('audit_state_invalid', { ids: [STATE_DB, 'head'] });
  if (!treeHash(a.size, treeReader(t)).equals(a.root)) throw new GovernedError('audit_state_invalid', { ids: [STATE_DB, 'root'] });
  if (stateDigest(t) !== a.state) throw new GovernedError('audit_state_invalid', { ids: [STATE_DB, 'state'] });
}

/**
 * `audit verify --export` (./export-verify.ts): the log rows of `src` (no stored state beside
 * them) audited in the same one pass that rebuilds the store from them into `rebuildTo` (a new
 * file, committed only when every entry applied) — the export's log is replayed once. The trust
 * root in force at each position is read from the store being rebuilt, which holds exactly the
 * entries before it; there is no stored state to compare, so `replay.matches` says every entry
 * applied. When one does not, the report holds that refusal only (the record checks would run on
 * a state that stopped there).
 */
export async function auditRebuild(src: Db, rebuildTo: string, options: AuditOptions = {}): Promise<AuditReport> {
  return auditLog(src, options, { rebuildTo });
}

type StoreMode = { readonly scratch: string; readonly state?: AuditStateDir | null; readonly onSaved?: (s: Saved) => void };

/** One audit in progress: what it audits, how, and the parts of its report found so far. */
interface AuditRun {
  readonly db: Db;
  readonly options: AuditOptions;
  readonly mode: StoreMode | { readonly rebuildTo: string };
  readonly rebuild: boolean;
  readonly state: AuditStateDir | null;
  readonly progress: ProgressSink<'audit-verify'>;
  readonly failures: AuditFailure[];
  readonly checkpoints: { file: string; log_entries: number | null; matches: boolean }[];
  log: AuditReport['log'];
  replay: AuditReport['replay'];
  records: RecordChecks | null;
  target: Db | null;
  checker: ReceiptChecker | null;
}

async function auditLog(db: Db, options: AuditOptions, mode: StoreMode | { readonly rebuildTo: string }): Promise<AuditReport> {
  const a: AuditRun = {
    db,
    options,
    mode,
    rebuild: 'rebuildTo' in mode,
    state: 'scratch' in mode ? (mode.state ?? null) : null,
    progress: options.progress ?? (() => undefined),
    failures: [],
    checkpoints: [],
    log: null,
    replay: null,
    records: null,
    target: null,
    checker: null,
  };
  try {
    // The pass reads each page of the store about once: a bounded page cache (docs/audit.md#cost-and-memory),
    // set before the first read. Only this connection's cache; nothing is written.
    boundCache(db, false);
    a.checker = await receiptChecker(db, options, a.rebuild);
    const receiptsOn = a.checker;
    // The authority verifier (zod-based) is loaded only when the log holds an authority record,
    // and before the pass, which is synchronous.
    const hasAuthority = db.prepare("SELECT 1 FROM log WHERE type = 'authority_record' LIMIT 1").get() !== undefined;
    const verifyAuthority = hasAuthority ? (await import('../../core/authority/index.js')).verifyAuthorityRecordBytes : null;
    // One read transaction: the chain, the replay and the records are judged on one snapshot even
    // while other processes append. One pass over the log (docs/audit.md "Cost and memory"): each
    // row is read once, checked, decoded once, applied to the replay and handed to the record checks.
    const snapshot = db.transaction((): void => auditSnapshot(a, receiptsOn, verifyAuthority));
    try {
      snapshot.deferred();
    } catch (e) {
      if (!isGovernedError(e) || e.code === 'unit_unknown') throw e;
      a.failures.push(failureOf(e));
    }
    return auditReport(a);
  } finally {
    const t = a.target;
    if (t !== null && t.open) t.close();
    a.checker?.close();
  }
}

/** The trust root in force at log position `seq` (or the auditor's own). */
function trustAt(a: AuditRun, seq: number): TrustRoot {
  return a.options.trust ?? trustRootAt(a.rebuild ? (a.target as unknown as Db) : a.db, seq);
}

/** The trust root in force now (or the auditor's own): checkpoints are judged under it. */
function trustNow(a: AuditRun): TrustRoot {
  return a.options.trust ?? trustRootInForce(a.rebuild ? (a.target as unknown as Db) : a.db);
}

// `--unit U` must name a known unit (docs/audit.md#governed-audit-verify-and-audit-checkpoint: `unit_unknown`).
function knowsUnit(options: AuditOptions, x: Db): void {
  if (options.unit === undefined) return;
  const known = x.prepare('SELECT 1 FROM units WHERE id = ?').get(options.unit);
  // A malformed --unit is never echoed (docs/commands.md#exit-codes: a rejected value is not printed), as src/store/units.ts.
  if (known === undefined) throw new GovernedError('unit_unknown', { ids: UNIT_ID_RE.test(options.unit) ? [options.unit] : [] });
}

// Steps 1–6 on one snapshot, in one pass over the log (docs/audit.md#governed-audit-verify-and-audit-checkpoint).
function auditSnapshot(a: AuditRun, receiptsOn: ReceiptChecker, verifyAuthority: VerifyAuthority | null): void {
  const { db, options, state } = a;
  if (!a.rebuild) knowsUnit(options, db);
  a.progress('replay', db.prepare('SELECT coalesce(max(seq), 0) FROM log').pluck().get() as number);
  // Resuming (docs/audit.md#incremental-audit): the entries the signed state covers are
  // re-hashed, not replayed; the saved replay database holds the state after them.
  let from: LogHead | undefined;
  if (state?.kind === 'resume') {
    const head = checkPrefix(db, state.anchor, a.failures);
    if (head === null) return;
    from = head;
  }
  const stored = a.rebuild ? null : stateDigest(db);
  const t = openTarget(a);
  const ids = new IdSets(t);
  if (state?.kind === 'resume') checkSavedReplay(t, state.anchor);
  // A store audit's replay is never committed: it is judged inside its transaction and dropped
  // with the file. A rebuild is committed below once every entry applied; with --state, the
  // replay is committed into the state directory after a clean audit.
  t.exec('BEGIN IMMEDIATE');
  const checks = new RecordChecks(options.unit, (seq) => trustAt(a, seq), verifyAuthority, receiptsOn, ids);
  if (state?.kind === 'resume') checks.restore(state.carry);
  let pass: LogPass;
  try {
    pass = passLog(db, t, (row, payload) => checks.visit(row, payload as Payload), from);
  } catch (e) {
    if (!isGovernedError(e)) throw e;
    // A broken chain stops the audit: nothing after a broken link can be trusted, and nothing
    // the record checks found before it is reported.
    a.failures.push(failureOf(e));
    return;
  }
  a.log = { entries: pass.entries, head: pass.head };
  const matches = judgeReplay(a, t, pass, stored, checks);
  if (matches === null) return;
  const tree = matches && !a.rebuild ? verifyStoredTree(a) : null;
  a.progress('records');
  checks.finish(a.failures);
  a.records = checks;
  judgeCheckpoints(a, t, pass.entries, tree);
  if (a.rebuild) t.exec('COMMIT');
  saveIfClean(a, t, pass, tree, checks);
}

// The database the log is replayed into (docs/audit.md#incremental-audit): the rebuilt store, a
// scratch file, or the state directory's (new, or the saved one to resume).
function openTarget(a: AuditRun): Db {
  const { mode, state } = a;
  const t =
    'rebuildTo' in mode
      ? openReplayTarget(mode.rebuildTo)
      : state === null
        ? openReplayTarget(join(mode.scratch, 'replay.db'))
        : state.kind === 'new'
          ? openReplayTarget(join(state.dir, STATE_DB))
          : openDatabase(join(state.dir, STATE_DB));
  a.target = t;
  boundCache(t, true);
  return t;
}

// Step 2, replay (docs/audit.md#governed-audit-verify-and-audit-checkpoint): the replayed state is
// the stored one. Whether it matched; null when a rebuild stopped at an entry that did not apply.
function judgeReplay(a: AuditRun, t: Db, pass: LogPass, stored: string | null, checks: RecordChecks): boolean | null {
  if (pass.notApplicable !== null) {
    a.failures.push(failureOf(pass.notApplicable));
    // No replayed state to name: its tables stopped at the refused entry.
    a.replay = { state_digest: null, matches: false };
    if (a.rebuild) {
      checks.finish([]); // drained and dropped: judged against a state that stopped at the refused entry
      return null;
    }
    return false;
  }
  if (a.rebuild) {
    knowsUnit(a.options, t);
    a.replay = { state_digest: stateDigest(t), matches: true };
    return false;
  }
  // Resumed with no entry after the state: nothing was applied to the saved database, whose
  // digest was just checked to be the note's.
  const replayed = a.state?.kind === 'resume' && pass.entries === a.state.anchor.size ? a.state.anchor.state : stateDigest(t);
  const matches = replayed === stored;
  if (!matches) a.failures.push(failureOf(new GovernedError('state_replay_mismatch')));
  // On a mismatch, the digest of what the log replays to (not the stored one): the two differ.
  a.replay = { state_digest: replayed, matches };
  return matches;
}

// The stored Merkle tree is re-derived from the log (docs/audit.md#transparency-log) once the
// tables are known to follow from it (a replay failure already names a store whose derived rows do
// not; a tree of a rewritten log would only repeat it). (A rebuilt store's tree is the one the pass
// itself built from the checked rows: this is not called for it.)
function verifyStoredTree(a: AuditRun): { size: number; root: Buffer } | null {
  a.progress('tree');
  try {
    return verifyTree(a.db);
  } catch (e) {
    if (!isGovernedError(e)) throw e;
    a.failures.push(failureOf(e));
    return null;
  }
}

// Step 6, checkpoints (docs/audit.md#checkpoints): judged on the tree the pass derived from the
// checked log rows (in the replay database, not in memory), never on the stored tree under test.
function judgeCheckpoints(a: AuditRun, t: Db, entries: number, tree: { size: number; root: Buffer } | null): void {
  const { options, state } = a;
  const now = options.now ?? new Date();
  if ((options.checkpoints ?? []).length > 0) a.progress('checkpoints', (options.checkpoints ?? []).length);
  const notes = (options.checkpoints ?? []).filter((c) => isNoteCheckpoint(c.bytes));
  // Resumed, the replay database's tree before the note's size is the saved one (bound by its
  // root only): checkpoints are then judged on the stored tree, once it was re-derived from
  // the checked rows (verifyTree); without that, they are not judged (a failure is recorded).
  const judgeOn = state?.kind === 'resume' ? (tree === null ? null : treeReader(a.db)) : treeReader(t);
  if (notes.length > 0 && judgeOn !== null) a.checkpoints.push(...checkNoteCheckpoints(notes, entries, judgeOn, trustNow(a), now, a.failures, options.witnesses));
  if (notes.length > 0 && judgeOn === null) for (const c of notes) a.checkpoints.push({ file: c.file, log_entries: null, matches: false });
  const entryHashAt = a.db.prepare('SELECT entry_hash FROM log WHERE seq = ?').pluck();
  for (const c of options.checkpoints ?? []) {
    if (isNoteCheckpoint(c.bytes)) continue;
    a.checkpoints.push(checkCheckpoint(c, (seq) => (seq >= 1 && seq <= entries ? (entryHashAt.get(seq) as string | undefined) : undefined), trustNow(a), now, a.failures));
  }
}

// With --state, a clean audit commits its replay into the state directory and hands back the
// state to sign (docs/audit.md#incremental-audit).
function saveIfClean(a: AuditRun, t: Db, pass: LogPass, tree: { size: number; root: Buffer } | null, checks: RecordChecks): void {
  const mode = a.mode;
  if (a.state !== null && a.failures.length === 0 && tree !== null && a.replay !== null && 'onSaved' in mode && mode.onSaved !== undefined) {
    const first = a.db.prepare('SELECT entry_hash FROM log WHERE seq = 1').pluck().get() as string;
    const r = a.replay;
    t.exec('COMMIT');
    mode.onSaved({
      anchor: { log: first, size: pass.entries, root: tree.root, head: pass.head, state: r.state_digest as string, trust: trustLine(a.options) },
      carry: checks.carry(),
    });
  }
}

// The report (docs/audit.md#governed-audit-verify-and-audit-checkpoint: `--json` prints one object).
function auditReport(a: AuditRun): AuditReport {
  const r = a.records;
  return {
    exit: worstExit(a.failures),
    log: a.log,
    replay: a.replay,
    unit: a.options.unit ?? null,
    trust: a.options.trust === undefined ? 'pinned-at-position' : 'given',
    receipts: { ...(r?.receipts ?? { checked: 0, failed: 0 }), workers: a.checker?.workers ?? 0 },
    authority_records: r?.authority ?? { checked: 0, failed: 0 },
    challenges: r?.counts ?? { issued: 0, claimed: 0, answered: 0, aborted: 0 },
    trust_modes: [...(r?.trustModes ?? [])].sort(),
    checkpoints: a.checkpoints,
    failures: a.failures,
  };
}

/**
 * The record checks (steps 3–5), fed one decoded log row at a time by the pass. What it holds: the
 * payload of each challenge issued and not yet answered and of each run claimed and not yet
 * answered, the ids of challenges issued, claimed and answered, and the authority records (checked
 * at the end, under the trust root at their consumption, which comes later in the log). Failures
 * keep their log position and are reported in log order.
 */
class RecordChecks {
  readonly counts = { issued: 0, claimed: 0, answered: 0, aborted: 0 };
  readonly receipts = { checked: 0, failed: 0 };
  readonly authority = { checked: 0, failed: 0 };
  readonly trustModes = new Set<AuditReport['trust_modes'][number]>();
  private readonly found: { seq: number; f: AuditFailure }[] = [];
  private readonly issues = new Map<string, Payload>(); // open challenges, by id
  private readonly claims = new Map<string, Payload>(); // unanswered claims, by run id
  private readonly consumedAt = new Map<string, LogRow>(); // authority record id → its consumption entry
  private readonly authorityRecords: { row: LogRow; p: Payload }[] = [];

  constructor(
    private readonly unit: string | undefined,
    private readonly trustAt: (seq: number) => TrustRoot,
    private readonly verifyAuthority: VerifyAuthority | null,
    private readonly receiptChecks: ReceiptChecker,
    private readonly ids: IdSets,
  ) {}

  visit(row: LogRow, p: Payload): void {
    const inUnit = this.unit === undefined || row.unit === this.unit;
    const add = (fs: readonly AuditFailure[]): void => {
      for (const f of fs) this.found.push({ seq: row.seq, f });
    };
    switch (row.type) {
      case 'challenge_issue':
        this.issues.set(p.challenge as string, p);
        this.ids.add(ISSUED, p.challenge as string);
        this.counts.issued += inUnit ? 1 : 0;
        break;
      case 'run_claim': {
        const challenge = p.challenge as string;
        if (!this.ids.has(ISSUED, challenge)) add([failure('audit_orphan_record', [`seq:${row.seq}`, challenge])]);
        if (!this.ids.add(CLAIMED, challenge)) add([failure('audit_challenge_reused', [`seq:${row.seq}`, challenge])]);
        this.claims.set(p.run as string, p);
        this.counts.claimed += inUnit ? 1 : 0;
        break;
      }
      case 'run_abort':
        this.counts.aborted += inUnit ? 1 : 0;
        break;
      case 'authority_consume':
        this.consumedAt.set(p.record as string, row);
        break;
      case 'run_receipt': {
        const challenge = p.challenge as string;
        const reused = !this.ids.add(ANSWERED, challenge);
        if (reused) add([failure('audit_challenge_reused', [`seq:${row.seq}`, challenge])]);
        // The first answer consumes its issue and its claim: they are no longer held. A second
        // answer is audit_challenge_reused; its envelope is still verified, its binding is not.
        const issue = this.issues.get(challenge);
        const claim = this.claims.get(p.run as string);
        this.issues.delete(challenge);
        this.claims.delete(p.run as string);
        if (!inUnit) break;
        this.counts.answered++;
        this.receipts.checked++;
        // Checked here or on a worker thread (./receipt-pool.ts); the outcome is taken in finish().
        this.receiptChecks.submit({ seq: row.seq, time: row.time, p, issue: reused ? null : issue, claim }, this.trustAt(row.seq));
        break;
      }
      case 'authority_record':
        if (inUnit) this.authorityRecords.push({ row, p });
        break;
      case 'probe_record': {
        if (!inUnit) break;
        const fs: AuditFailure[] = [];
        checkProbe(row, p, this.trustAt(row.seq), fs);
        add(fs);
        break;
      }
      default:
        break;
    }
  }

  /** What the checks hold across the log (docs/audit.md#incremental-audit), RFC 8785; after finish(). */
  carry(): string {
    const c: AuditCarry = {
      version: 1,
      issued: this.ids.list(ISSUED),
      claimed: this.ids.list(CLAIMED),
      answered: this.ids.list(ANSWERED),
      issues: [...this.issues.entries()],
      claims: [...this.claims.entries()],
      authority: this.authorityRecords.filter(({ p }) => !this.consumedAt.has(p.record as string)).map(({ row, p }) => ({ seq: row.seq, time: row.time, p })),
    };
    return canonicalJson(c as never);
  }

  /** Start from a saved carry (before the first visit): the state after the entries it covers. */
  restore(c: unknown): void {
    const parsed = auditCarrySchema.safeParse(c);
    if (!parsed.success) throw new GovernedError('audit_state_invalid', { ids: ['carry.json'] });
    const v = parsed.data;
    for (const x of v.issued) this.ids.add(ISSUED, x);
    for (const x of v.claimed) this.ids.add(CLAIMED, x);
    for (const x of v.answered) this.ids.add(ANSWERED, x);
    for (const [k, p] of v.issues) this.issues.set(k, p);
    for (const [k, p] of v.claims) this.claims.set(k, p);
    for (const a of v.authority) this.authorityRecords.push({ row: { seq: a.seq, time: a.time } as LogRow, p: a.p });
  }

  /** Check the authority records, then add every failure, in log order, to `failures`. */
  finish(failures: AuditFailure[]): void {
    for (const o of this.receiptChecks.drain(true)) {
      if (o.failed) this.receipts.failed++;
      if (o.trustMode !== null) this.trustModes.add(o.trustMode);
      for (const f of o.failures) this.found.push({ seq: o.seq, f });
    }
    for (const { row, p } of this.authorityRecords) {
      this.authority.checked++;
      const at = this.consumedAt.get(p.record as string) ?? row;
      const fs: AuditFailure[] = [];
      checkAuthority(row, p, at, this.trustAt(at.seq), fs, this.verifyAuthority as VerifyAuthority);
      if (fs.length > 0) this.authority.failed++;
      for (const f of fs) this.found.push({ seq: row.seq, f });
    }
    // A stable sort: the failures of one entry keep the order they were found in.
    this.found.sort((a, b) => a.seq - b.seq);
    for (const { f } of this.found) failures.push(f);
  }
}

type VerifyAuthority = typeof import('../../core/authority/index.js').verifyAuthorityRecordBytes;

/**
 * A probe receipt (docs/preservation.md#probes): its envelope verifies under the trust root in force at
 * its log position, at its log time, by a key holding role `probe`, and it is the statement the entry
 * names. Which probe key the policy names is the decision's rule (status, gate), not the log's.
 */
function checkProbe(row: LogRow, p: Payload, trust: TrustRoot, failures: AuditFailure[]): void {
  const id = p.receipt as string;
  try {
    const v = verifyStatementEnvelope(Buffer.from(p.envelope_b64 as string, 'base64'), trust, ['probe'], { at: isoOfSeconds(row.time), offline: false });
    if (v.id !== id) failures.push(failure('audit_receipt_mismatch', [`seq:${row.seq}`, id, 'receipt']));
  } catch (e) {
    if (!isGovernedError(e)) throw e;
    failures.push(failureOf(e, [`seq:${row.seq}`, id]));
  }
}

function checkAuthority(row: LogRow, p: Payload, at: LogRow, trust: TrustRoot, failures: AuditFailure[], verifyAuthorityRecordBytes: VerifyAuthority): void {
  const id = p.record as string;
  try {
    const v = verifyAuthorityRecordBytes(Buffer.from(p.envelope_b64 as string, 'base64'), trust, { at: isoOfSeconds(at.time), offline: false });
    const fields: string[] = [];
    if (v.recordId !== id) fields.push('record');
    if (v.keyId !== p.key_id) fields.push('key_id');
    if ((v.predicate.unit ?? null) !== (p.unit ?? null)) fields.push('unit');
    if (fields.length > 0) failures.push(failure('audit_authority_mismatch', [`seq:${row.seq}`, id, ...fields]));
  } catch (e) {
    if (!isGovernedError(e)) throw e;
    failures.push(failureOf(e, [`seq:${row.seq}`, id]));
  }
}

/**
 * A signed checkpoint against this log (docs/threat-model.md#trust-modes, docs/state.md#the-store): its one signature by a `log` key of `trust`
 * (judged now, offline: valid and not revoked — the log under test cannot vouch for its own keys),
 * a closed checkpoint statement, and the log's entry at `log_entries` whose hash is `log_head`.
 */
function checkCheckpoint(
  c: { readonly file: string; readonly bytes: Buffer },
  entryHashAt: (seq: number) => string | undefined,
  trust: TrustRoot,
  now: Date,
  failures: AuditFailure[],
): { file: string; log_entries: number | null; matches: boolean } {
  let p: CheckpointPredicate;
  try {
    const v = verifyStatementEnvelope(c.bytes, trust, ['log'], { at: isoSecondsOf(now), offline: true });
    if (checkpointViolation(v.statement) !== null) {
      failures.push(failure('audit_checkpoint_invalid', [c.file]));
      return { file: c.file, log_entries: null, matches: false };
    }
    p = v.statement.predicate as unknown as CheckpointPredicate;
  } catch (e) {
    if (!isGovernedError(e)) throw e;
    failures.push(failureOf(e, [c.file]));
    return { file: c.file, log_entries: null, matches: false };
  }
  const matches = entryHashAt(p.log_entries) === p.log_head;
  if (!matches) failures.push(failure('audit_checkpoint_mismatch', [c.file, `seq:${p.log_entries}`]));
  return { file: c.file, log_entries: p.log_entries, matches };
}
