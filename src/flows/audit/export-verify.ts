// `governed audit verify --export DIR` (docs/commands.md#what-each-command-guarantees `audit verify [--unit U] [--export DIR]`, docs/threat-model.md#rules-that-hold-everywhere item 6
// "anyone with the public keys can verify every receipt and the whole log offline"): re-check an
// `audit export` without the store it came from.
//   1. DIR against its own manifest: a closed, canonical `manifest.json`; every listed file present
//      with its sha256; no file it does not list; nothing but regular files in the three known
//      subdirectories (a symlink, FIFO or device anywhere is refused before anything is read through it).
//      The manifest is NOT signed: this is a consistency check. Integrity comes from the chain, the
//      signatures and (against a key-holding writer, docs/threat-model.md#trust-modes) a checkpoint that left the machine.
//   2. A private store rebuilt from `log.jsonl` alone (payload bytes = RFC 8785 of each payload), through
//      the same chain check (`verifyChain`) and the same reducers (`replayInto`) as the store audit,
//      then the store audit itself (`auditVerify`) on it: every check is that one implementation.
//   3. The export's other files against that log: each receipt / authority envelope byte-equal to
//      the one its entry recorded (and none missing), the pinned policy and trust root byte-equal to
//      the pins in force at the log head, `keys/<id>.pub` exactly that trust root's keys, and the
//      manifest's head, pin digests and unit equal to the log's.
// Read-only: DIR is only ever opened O_RDONLY|O_NOFOLLOW; the rebuilt store lives in a 0700
// directory under os.tmpdir(), removed in `finally`. A DIR that cannot be read as an export (not a
// directory, a non-regular entry, a manifest or log line not of the format) is refused (thrown);
// every other failure is collected (code, exit, ids — relative paths, made of IDs inside an
// export; file contents are never printed) and the exit code is the worst by docs/commands.md#exit-codes precedence.
import { constants as bufferConstants } from 'node:buffer';
import { closeSync, fstatSync, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, constants as fsc, type Stats } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { canonicalJson, sha256Hex } from '../../core/canonical.js';
import { fail, GovernedError, highestPrecedence, isGovernedError } from '../../core/errors.js';
import { exportLogLineSchema, exportManifestSchema, type ExportManifest as Manifest } from '../../core/audit/export-schema.js';
import { parseJsonStrict } from '../../core/strict-parse.js';
import { BUNDLES_DIR, closeStore, DB_FILE, openDatabase, openStoreReadOnly, readLog, readPin, verifyChain, type Db, type LogRow } from '../../store/index.js';
import { readAllFd } from '../read-file.js';
import { CHECKPOINT_FILE, exportLayout, exportTlogFiles } from './export-layout.js';
import { auditRebuild, type AuditFailure, type AuditOptions, type AuditReport } from './verify.js';
import { utf8OrNull } from '../../core/utf8.js';

/** What the export part of the report says (docs/audit.md "audit verify --export"): defined once in src/core/command-output.ts exportCheckSchema. */
export type { ExportCheck } from '../../core/command-output.js';
import type { ExportCheck } from '../../core/command-output.js';

export interface ExportAuditReport extends AuditReport {
  readonly export: ExportCheck;
}

const SUBDIRS = new Set(['receipts', 'authority', 'keys', 'proofs', 'intoto', 'sigstore']);
const MANIFEST = 'manifest.json';
const LOG = 'log.jsonl';
/**
 * Size caps (docs/commands.md#what-each-command-guarantees `audit verify --export`; docs/threat-model.md#rules-that-hold-everywhere "fail closed"; the number is decided
 * in docs/audit.md): an export is read into memory whole, so its size is bounded BEFORE anything is
 * read. One file: at most V8's longest string (`buffer.constants.MAX_STRING_LENGTH`, 536,870,888
 * bytes on 64-bit Node 20) — `log.jsonl` is decoded into one string to be parsed, so a larger file
 * could never be verified here anyway, and reading it first costs gigabytes of memory (a 2.2 GB
 * sparse `log.jsonl` used to end in `internal_error` from readFileSync's own 2 GiB limit). The whole
 * export: at most twice that, 1 GiB (a log that size holds millions of entries; envelopes, pins and
 * keys are kilobytes each).
 */
const MAX_FILE_BYTES = bufferConstants.MAX_STRING_LENGTH;
const MAX_EXPORT_BYTES = 2 * MAX_FILE_BYTES;
/** A name found in DIR is printed only when it is plainly an identifier-like name (never arbitrary bytes). */
const PRINTABLE_NAME = /^[A-Za-z0-9._-]{1,128}$/;

function exportFailure(code: 'audit_export_invalid' | 'audit_export_mismatch', ids: string[]): AuditFailure {
  const e = new GovernedError(code, { ids });
  return { code: e.code, exit: e.exit, ids: [...e.ids] };
}

const nameOf = (rel: string): string => (rel.split('/').every((s) => PRINTABLE_NAME.test(s)) ? rel : '(unprintable name)');

/**
 * Read every regular file of DIR into memory, refusing (thrown, `audit_export_invalid`) anything
 * that is not a directory we expect or a regular file: nothing is ever read through a symlink, and
 * a FIFO or device is never opened. Each file is opened O_NOFOLLOW|O_NONBLOCK and fstat-ed, so an
 * entry swapped between the listing and the open is refused too.
 */
function readExportDir(dir: string): Map<string, Buffer> {
  const top = lstatOrFail(dir, '.');
  if (!top.isDirectory()) fail('audit_export_invalid', ['.']);
  const files = new Map<string, Buffer>();
  const regular: [string, string][] = [];
  let listed = 0;
  const walk = (abs: string, rel: string, depth: number): void => {
    let names: string[];
    try {
      names = readdirSync(abs).sort();
    } catch {
      fail('audit_export_invalid', [rel === '' ? '.' : nameOf(rel)]);
    }
    for (const name of names) {
      const r = rel === '' ? name : `${rel}/${name}`;
      const st = lstatOrFail(join(abs, name), r);
      if (st.isDirectory()) {
        // Only the three subdirectories an export makes, one level deep.
        if (depth > 0 || !SUBDIRS.has(name)) fail('audit_export_invalid', [nameOf(r)]);
        walk(join(abs, name), r, depth + 1);
      } else if (st.isFile()) {
        if (st.size > MAX_FILE_BYTES) fail('audit_export_invalid', [nameOf(r), 'size']);
        listed += st.size;
        regular.push([join(abs, name), r]);
      } else {
        fail('audit_export_invalid', [nameOf(r)]); // symlink, FIFO, socket, device
      }
    }
  };
  walk(dir, '', 0);
  // The whole export's size, from the listing, before any file is read; each read is then bounded
  // again by its own fstat (a file grown since the listing is refused, never read past the cap).
  if (listed > MAX_EXPORT_BYTES) fail('audit_export_invalid', ['.', 'size']);
  let total = 0;
  for (const [abs, r] of regular) {
    const bytes = readRegular(abs, r, Math.min(MAX_FILE_BYTES, MAX_EXPORT_BYTES - total));
    total += bytes.length;
    files.set(r, bytes);
  }
  return files;
}

function lstatOrFail(path: string, rel: string): Stats {
  try {
    return lstatSync(path);
  } catch {
    fail('audit_export_invalid', [nameOf(rel)]);
  }
}

/**
 * A regular file of at most `max` bytes (see MAX_FILE_BYTES), refused by its fstat size before any
 * byte is read, and read as exactly that many bytes: a file that grows or shrinks while it is read
 * is refused too (the bytes hashed and parsed are the bytes of one read, never a mix).
 */
function readRegular(path: string, rel: string, max: number): Buffer {
  let fd: number;
  try {
    fd = openSync(path, fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK);
  } catch {
    fail('audit_export_invalid', [nameOf(rel)]);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) fail('audit_export_invalid', [nameOf(rel)]);
    if (st.size > max) fail('audit_export_invalid', [nameOf(rel), 'size']);
    let bytes: Buffer;
    try {
      bytes = readAllFd(fd, st.size);
      // Exactly the size fstat gave, and no byte past it.
      if (bytes.length !== st.size || readSync(fd, Buffer.alloc(1), 0, 1, st.size) !== 0) fail('audit_export_invalid', [nameOf(rel), 'size']);
    } catch (e) {
      if (isGovernedError(e)) throw e;
      fail('audit_export_invalid', [nameOf(rel)]);
    }
    return bytes;
  } finally {
    closeSync(fd);
  }
}

/** `manifest.json`: strict JSON, exactly the canonical text export.ts writes (+ newline), closed shape. */
function parseManifest(bytes: Buffer | undefined): Manifest {
  if (bytes === undefined) fail('audit_export_invalid', [MANIFEST]);
  let value: unknown;
  try {
    const text = utf8OrNull(bytes) ?? fail('audit_export_invalid', [MANIFEST]);
    value = parseJsonStrict(text);
    if (`${canonicalJson(value as never)}\n` !== text) fail('audit_export_invalid', [MANIFEST]);
  } catch {
    fail('audit_export_invalid', [MANIFEST]);
  }
  const parsed = exportManifestSchema.safeParse(value);
  if (!parsed.success) fail('audit_export_invalid', [MANIFEST]);
  const m: Manifest = parsed.data;
  // Sorted and unique, as written: one entry per path.
  for (let i = 1; i < m.files.length; i++) if (!((m.files[i - 1] as { path: string }).path < (m.files[i] as { path: string }).path)) fail('audit_export_invalid', [MANIFEST]);
  return m;
}

/** Step 1: DIR against its manifest, collected. manifest.json itself is not listed in it. */
function manifestFailures(m: Manifest, files: ReadonlyMap<string, Buffer>): AuditFailure[] {
  const out: AuditFailure[] = [];
  const listed = new Set<string>();
  for (const f of m.files) {
    listed.add(f.path);
    const bytes = files.get(f.path);
    if (bytes === undefined || sha256Hex(bytes) !== f.sha256) out.push(exportFailure('audit_export_invalid', [f.path]));
  }
  for (const path of files.keys()) if (path !== MANIFEST && !listed.has(path)) out.push(exportFailure('audit_export_invalid', [nameOf(path)]));
  return out;
}

/**
 * `log.jsonl` → log rows: one strict-JSON object per `\n`-terminated line with exactly the export's
 * fields; the payload bytes are the RFC 8785 text of `payload` (the chain then checks their digest).
 */
function parseLog(bytes: Buffer): LogRow[] {
  const text = utf8OrNull(bytes);
  if (text === null) fail('audit_export_invalid', [LOG]);
  if (text === '') return [];
  if (!text.endsWith('\n')) fail('audit_export_invalid', [LOG, 'last line']);
  const lines = text.slice(0, -1).split('\n');
  return lines.map((line, i) => {
    const at = `line:${i + 1}`;
    let value: unknown;
    let payload: Buffer;
    try {
      value = parseJsonStrict(line);
      if (!exportLogLineSchema.safeParse(value).success) fail('audit_export_invalid', [LOG, at]);
      payload = Buffer.from(canonicalJson((value as { payload: never }).payload), 'utf8');
    } catch {
      fail('audit_export_invalid', [LOG, at]);
    }
    const v = value as Omit<LogRow, 'payload'>;
    return { seq: v.seq, time: v.time, type: v.type, unit: v.unit, payload, payload_digest: v.payload_digest, prev_hash: v.prev_hash, entry_hash: v.entry_hash };
  });
}

/**
 * The rows as the `log` table that `verifyChain` and `replayInto` read (`SELECT * FROM log`). The
 * connection is the store's own (`openDatabase`: its native-addon loading and settings) on a scratch
 * file; the rows go into a TEMP table `log`, which SQLite resolves before the migrated `main.log`
 * for an unqualified name. The temp table has no constraint or trigger at all, so every fault of
 * the exported log — a repeated seq, a duplicated hash, a broken link — reaches the chain check and
 * is named by the store audit's own code, instead of failing an INSERT here.
 */
function sourceDb(rows: readonly LogRow[], path: string): Db {
  closeSync(openSync(path, 'wx', 0o600));
  const db = openDatabase(path);
  try {
    db.exec('CREATE TEMP TABLE log (seq INTEGER, time INTEGER, type TEXT, unit TEXT, payload BLOB, payload_digest TEXT, prev_hash TEXT, entry_hash TEXT)');
    const insert = db.prepare('INSERT INTO temp.log VALUES (@seq, @time, @type, @unit, @payload, @payload_digest, @prev_hash, @entry_hash)');
    db.transaction(() => {
      for (const row of rows) insert.run(row);
    })();
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

function emptyReport(options: AuditOptions, failures: AuditFailure[], log: AuditReport['log']): AuditReport {
  return {
    exit: 0,
    log,
    replay: null,
    unit: options.unit ?? null,
    trust: options.trust === undefined ? 'pinned-at-position' : 'given',
    receipts: { checked: 0, failed: 0 },
    authority_records: { checked: 0, failed: 0 },
    challenges: { issued: 0, claimed: 0, answered: 0, aborted: 0 },
    trust_modes: [],
    checkpoints: [],
    failures,
  };
}

/** Step 3: what export.ts would write from this log and these pins, against what DIR holds. */
function contentFailures(db: Db, rows: readonly LogRow[], m: Manifest, files: ReadonlyMap<string, Buffer>, pins: { policy: Buffer; trust: Buffer }): AuditFailure[] {
  // What `audit export` writes for this log and these pins: the one layout (./export-layout.ts).
  let expected: Map<string, Buffer>;
  try {
    expected = exportLayout({ rows, unit: m.unit, policy: pins.policy, trust: pins.trust }).files;
    // The checkpoint the export carries, and exactly the inclusion proofs `audit export` makes
    // from it on this log (a checkpoint the log does not extend is already the audit's
    // tlog_root_mismatch / tlog_log_truncated; its proofs are then not expected).
    const cp = files.get(CHECKPOINT_FILE);
    if (cp !== undefined) {
      try {
        for (const [path, bytes] of exportTlogFiles(db, rows, m.unit, cp)) expected.set(path, bytes);
      } catch (e) {
        if (!isGovernedError(e)) throw e;
        expected.set(CHECKPOINT_FILE, cp);
        for (const path of files.keys()) if (path.startsWith('proofs/')) expected.set(path, files.get(path) as Buffer);
      }
    }
  } catch (e) {
    if (!isGovernedError(e)) throw e;
    return [{ code: e.code, exit: e.exit, ids: [...e.ids] }];
  }
  const out: AuditFailure[] = [];
  for (const [path, bytes] of [...expected].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const got = files.get(path);
    if (got === undefined || !got.equals(bytes)) out.push(exportFailure('audit_export_mismatch', [nameOf(path)]));
  }
  for (const path of files.keys()) if (path !== MANIFEST && path !== LOG && !expected.has(path)) out.push(exportFailure('audit_export_mismatch', [nameOf(path)]));
  return out;
}

/**
 * Verify the audit export at `dir` (see the header). Structural refusals (DIR or manifest unusable,
 * a non-regular entry, a malformed log line, an unknown --unit) are thrown; everything else is a
 * collected failure and the exit code is the worst by docs/commands.md#exit-codes precedence.
 */
export async function auditVerifyExport(dir: string, options: AuditOptions = {}): Promise<ExportAuditReport> {
  const files = readExportDir(resolve(dir));
  const manifest = parseManifest(files.get(MANIFEST));
  const failures = manifestFailures(manifest, files);
  const manifestState: ExportCheck['manifest'] = failures.length === 0 ? 'matches' : 'differs';
  const logBytes = files.get(LOG);
  if (logBytes === undefined) fail('audit_export_invalid', [LOG]);
  const rows = parseLog(logBytes);
  const exportCheck = (contents: ExportCheck['contents']): ExportCheck => ({ files: files.size, manifest: manifestState, contents, unit: manifest.unit, made_at: manifest.made_at });
  const finish = (r: AuditReport, extra: readonly AuditFailure[], contents: ExportCheck['contents']): ExportAuditReport => {
    const all = [...failures, ...r.failures, ...extra];
    return { ...r, exit: highestPrecedence(all.map((f) => f.exit)), failures: all, export: exportCheck(contents) };
  };

  const scratch = mkdtempSync(join(tmpdir(), 'governed-export-verify-')); // 0700
  try {
    const home = join(scratch, 'state');
    mkdirSync(home, { mode: 0o700 });
    mkdirSync(join(home, BUNDLES_DIR), { mode: 0o700 });
    const src = sourceDb(rows, join(scratch, 'source.db'));
    let r: AuditReport;
    try {
      // A store's log opens with its init pin (docs/commands.md#what-each-command-guarantees init);
      // without it there is nothing to replay. (A broken chain is named first, as the audit would.)
      if (rows[0]?.type !== 'store_init') {
        let chain: { entries: number; head: string };
        try {
          chain = verifyChain(src);
        } catch (e) {
          if (!isGovernedError(e)) throw e;
          return finish(emptyReport(options, [{ code: e.code, exit: e.exit, ids: [...e.ids] }], null), [], 'not-checked');
        }
        return finish(emptyReport(options, [exportFailure('audit_export_invalid', [LOG, 'seq:1'])], chain), [], 'not-checked');
      }
      // Every check of the store audit, in the same one pass that rebuilds the store from the
      // exported log (unit_unknown is thrown, as there): the log is replayed once. The exported
      // checkpoint is checked as a `--checkpoint` is: signed by a log key of the trust root, its
      // root this log's.
      const cpBytes = files.get(CHECKPOINT_FILE);
      r = await auditRebuild(src, join(home, DB_FILE), cpBytes === undefined ? options : { ...options, checkpoints: [...(options.checkpoints ?? []), { file: CHECKPOINT_FILE, bytes: cpBytes }] });
    } finally {
      src.close();
    }
    // A broken chain, or an entry that does not apply to the state before it: without a
    // consistent rebuilt state the export's other files have nothing sound to be compared with.
    if (r.log === null || r.replay?.matches !== true) return finish(r, [], 'not-checked');
    const extra: AuditFailure[] = [];
    const store = openStoreReadOnly(home);
    try {
      const db = store.db;
      const policy = readPin(db, 'policy');
      const trust = readPin(db, 'trust');
      if (r.log !== null && (manifest.log.entries !== r.log.entries || manifest.log.head !== r.log.head)) extra.push(exportFailure('audit_export_mismatch', [MANIFEST, 'log']));
      if (manifest.policy_digest !== policy.digest) extra.push(exportFailure('audit_export_mismatch', [MANIFEST, 'policy_digest']));
      if (manifest.trust_digest !== trust.digest) extra.push(exportFailure('audit_export_mismatch', [MANIFEST, 'trust_digest']));
      if (manifest.unit !== null && db.prepare('SELECT 1 FROM units WHERE id = ?').get(manifest.unit) === undefined) extra.push(exportFailure('audit_export_mismatch', [MANIFEST, 'unit']));
      extra.push(...contentFailures(db, readLog(db), manifest, files, { policy: policy.bytes, trust: trust.bytes }));
    } finally {
      closeStore(store);
    }
    const contents = extra.length === 0 ? 'matches' : 'differs';
    return finish(r, extra, contents);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
