// Canonical digests of the store's tables (docs/commands.md#what-each-command-guarantees audit verify: "replaying the log gives the
// stored state"; docs/state.md#state-the-store-units-and-scope-versions-writers-leases-review-challenges: "the store is unchanged", digest of all tables before/after).
//
// Rows are read in a total order (ORDER BY every column), every cell keeps its SQLite type (an
// INTEGER is a number, TEXT a string, a BLOB `{"blob": base64}`, NULL null) and the column names
// are included, so two stores have equal digests exactly when their tables hold equal rows.
import { digestOf } from '../core/canonical.js';
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

function tableContent(db: Db, name: string): { name: string; columns: string[]; rows: Cell[][] } {
  if (!TABLE_NAME_RE.test(name)) fail('internal_error', ['table_name']);
  const columns = (db.prepare(`SELECT name FROM pragma_table_info(?) ORDER BY cid`).pluck().all(name) as string[]);
  if (columns.length === 0) fail('internal_error', [name]);
  const order = columns.map((_, i) => String(i + 1)).join(', ');
  const stmt = db.prepare(`SELECT * FROM "${name}" ORDER BY ${order}`).raw(true).safeIntegers(true);
  const rows = (stmt.all() as unknown[][]).map((r) => r.map((v, i) => cellOf(v, `${name}.${columns[i] ?? i}`)));
  return { name, columns, rows };
}

function digestTables(db: Db, includeLog: boolean): string {
  // One read transaction: every table is read from the same snapshot.
  const read = db.transaction(() => ({
    schema_version: db.pragma('user_version', { simple: true }) as number,
    tables: tableNames(db, includeLog).map((n) => tableContent(db, n)),
  }));
  return digestOf(read());
}

/** Digest of every table except the log: the state that replaying the log must reproduce. */
export function stateDigest(x: Store | Db): string {
  return digestTables(dbOf(x), false);
}

/** Digest of every table including the log: equal before and after ⇔ the store is unchanged. */
export function tablesDigest(x: Store | Db): string {
  return digestTables(dbOf(x), true);
}
