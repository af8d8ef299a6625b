// Canonical digests of the store's tables (docs/commands.md#what-each-command-guarantees audit verify: "replaying the log gives the
// stored state"; docs/state.md#state-the-store-units-and-scope-versions-writers-leases-review-challenges: "the store is unchanged", digest of all tables before/after).
//
// Rows are read in a total order (ORDER BY every column), every cell keeps its SQLite type (an
// INTEGER is a number, TEXT a string, a BLOB `{"blob": base64}`, NULL null) and the column names
// are included, so two stores have equal digests exactly when their tables hold equal rows.
import { createHash, type Hash } from 'node:crypto';
import { canonicalJson } from '../core/canonical.js';
import { fail } from '../core/errors.js';
import { dbOf, type Db, type Store } from './store.js';

const TABLE_NAME_RE = /^[a-z_][a-z0-9_]*$/;

type Cell = string | number | null | { blob: string };

function cellOf(v: unknown, where: string): Cell {
  if (v === null || typeof v === 'string') return v;
  if (typeof v === 'bigint') {
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) fail('internal_error', [where]);
    return Number(v);
  }
  if (Buffer.isBuffer(v)) return { blob: v.toString('base64') };
  // REAL values are outside governed's canonical domain; the schema never stores one.
  return fail('internal_error', [where]);
}

function tableNames(db: Db, includeLog: boolean): string[] {
  const names = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
    .pluck()
    .all() as string[];
  // The Merkle tree (tlog_hashes) is the log's own representation, a function of the log alone:
  // like the log it is outside the state replay must reproduce, and audit verify re-derives it
  // from the log instead (verifyTree, log_tree_mismatch; docs/audit.md "Transparency log").
  return names.filter((n) => includeLog || (n !== 'log' && n !== 'tlog_hashes'));
}

/**
 * The digest is sha256 over the RFC 8785 bytes of one document,
 *   {"schema_version": N, "tables": [{"columns": [...], "name": "...", "rows": [[cell, ...], ...]}, ...]},
 * tables by name. The document is never built: its bytes are hashed as they are produced, one row
 * at a time (docs/audit.md "Cost and memory": a store of 100,000 receipts holds gigabytes of
 * envelopes, so a digest that held them would be the audit's memory). Only the framing is written
 * here — keys in RFC 8785 order (columns < name < rows, schema_version < tables), no whitespace —
 * and every value inside it, each row included, is `canonicalJson`'s output, so the bytes are
 * exactly `canonicalJson` of the whole document (test/store-state-digest.test.ts checks that
 * against the document built in memory).
 */
function hashTable(h: Hash, db: Db, name: string): void {
  if (!TABLE_NAME_RE.test(name)) fail('internal_error', ['table_name']);
  const columns = db.prepare(`SELECT name FROM pragma_table_info(?) ORDER BY cid`).pluck().all(name) as string[];
  if (columns.length === 0) fail('internal_error', [name]);
  const order = columns.map((_, i) => String(i + 1)).join(', ');
  const stmt = db.prepare(`SELECT * FROM "${name}" ORDER BY ${order}`).raw(true).safeIntegers(true);
  h.update(`{"columns":${canonicalJson(columns)},"name":${canonicalJson(name)},"rows":[`);
  let first = true;
  for (const r of stmt.iterate() as IterableIterator<unknown[]>) {
    h.update(first ? '' : ',');
    h.update(canonicalJson(r.map((v, i) => cellOf(v, `${name}.${columns[i] ?? i}`))));
    first = false;
  }
  h.update(']}');
}

function digestTables(db: Db, includeLog: boolean): string {
  // One read transaction: every table is read from the same snapshot.
  const read = db.transaction(() => {
    const h = createHash('sha256');
    h.update(`{"schema_version":${canonicalJson(db.pragma('user_version', { simple: true }))},"tables":[`);
    tableNames(db, includeLog).forEach((n, i) => {
      if (i > 0) h.update(',');
      hashTable(h, db, n);
    });
    h.update(']}');
    return `sha256:${h.digest('hex')}`;
  });
  return read();
}

/** Digest of every table except the log: the state that replaying the log must reproduce. */
export function stateDigest(x: Store | Db): string {
  return digestTables(dbOf(x), false);
}

/** Digest of every table including the log: equal before and after ⇔ the store is unchanged. */
export function tablesDigest(x: Store | Db): string {
  return digestTables(dbOf(x), true);
}
