// Opening the state directory and its SQLite store (docs/state.md#the-store, docs/commands.md#what-each-command-guarantees `init`).
//
// Layout: `<home>/` (0700) holds `governed.db` (0600; WAL, synchronous=FULL, foreign_keys=ON) and
// `bundles/` (0700). Every path is checked with lstat: it must be ours (owner = effective uid), not
// a symlink, and not accessible to group or others. A state directory someone else can write is a
// store someone else can edit, so it is refused (fail closed), never silently chmod-ed.
import { closeSync, existsSync, lstatSync, mkdirSync, openSync, chmodSync, type Stats } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { fail } from '../core/errors.js';
import { applyMigrations, SCHEMA_VERSION } from './migrations.js';
import { toGovernedError } from './sqlite-errors.js';
import type { Store } from './store.js';

export const DB_FILE = 'governed.db';
export const BUNDLES_DIR = 'bundles';
/** Busy timeout (ms): a writer waits this long for another process's transaction (docs/state.md#state-the-store-units-and-scope-versions-writers-leases-review-challenges: ≥ 5 s). */
export const BUSY_TIMEOUT_MS = 10_000;

export interface OpenStoreOptions {
  /** Create the directory, bundles/ and an empty, migrated database when absent (used by init). */
  readonly create?: boolean;
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw toGovernedError(e);
  }
}

function euid(): number {
  return typeof process.geteuid === 'function' ? process.geteuid() : -1;
}

/** Refuse a path that is a symlink, of the wrong kind, not ours, or group/other accessible. */
function assertPrivate(st: Stats, kind: 'dir' | 'file', what: string): void {
  const rightKind = kind === 'dir' ? st.isDirectory() : st.isFile();
  if (st.isSymbolicLink() || !rightKind || st.uid !== euid() || (st.mode & 0o077) !== 0) {
    fail('store_permissions_unsafe', [what]);
  }
}

function ensurePrivateDir(path: string, create: boolean, what: string): void {
  let st = lstatOrNull(path);
  if (st === null) {
    if (!create) fail('store_missing', [what]);
    try {
      mkdirSync(path, { recursive: true, mode: 0o700 });
      // mkdir's mode is filtered by the umask; set it explicitly on the directory we just made.
      chmodSync(path, 0o700);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw toGovernedError(e);
    }
    st = lstatOrNull(path);
    if (st === null) fail('store_missing', [what]);
  }
  assertPrivate(st, 'dir', what);
}

function ensurePrivateDbFile(path: string, create: boolean): void {
  let st = lstatOrNull(path);
  if (st === null) {
    if (!create) fail('store_missing', [DB_FILE]);
    // Create it ourselves, exclusively and 0600: SQLite would create it with the umask's mode,
    // and it gives its -wal/-shm files the mode of the database file.
    try {
      closeSync(openSync(path, 'wx', 0o600));
      chmodSync(path, 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw toGovernedError(e);
    }
    st = lstatOrNull(path);
    if (st === null) fail('store_missing', [DB_FILE]);
  }
  assertPrivate(st, 'file', DB_FILE);
}

let addon: string | undefined | null = null;

/**
 * The path of better-sqlite3's native addon, handed to it as `nativeBinding` so it loads the file
 * directly instead of through the `bindings` package, which probes a dozen candidate paths and
 * walks a stack trace on every cold start (bench/gate). `undefined` (the package's own search)
 * when the addon is not where `npm install` / prebuild-install puts it.
 */
function addonPath(): string | undefined {
  if (addon === null) {
    try {
      const p = join(dirname(createRequire(import.meta.url).resolve('better-sqlite3')), '..', 'build', 'Release', 'better_sqlite3.node');
      addon = existsSync(p) ? p : undefined;
    } catch {
      addon = undefined;
    }
  }
  return addon;
}

/** Open a database file with governed's connection settings and bring its schema up to date. */
export function openDatabase(dbPath: string): Database.Database {
  let db: Database.Database;
  try {
    db = new Database(dbPath, { fileMustExist: true, nativeBinding: addonPath() });
  } catch (e) {
    throw toGovernedError(e);
  }
  try {
    configureConnection(db);
    applyMigrations(db);
    return db;
  } catch (e) {
    db.close();
    throw toGovernedError(e);
  }
}

/**
 * Connection settings of docs/state.md#the-store. busy_timeout is set first so that even switching to WAL waits for
 * a concurrent opener instead of failing. trusted_schema=OFF: a tampered schema cannot make us run
 * SQL functions with side effects from views or triggers.
 */
export function configureConnection(db: Database.Database): void {
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  const mode = db.pragma('journal_mode = WAL', { simple: true });
  if (mode !== 'wal') fail('internal_error', ['journal_mode']);
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('trusted_schema = OFF');
}

/** True when the store was initialised: its first log entry is the init pin (docs/commands.md#what-each-command-guarantees). */
export function isInitialized(db: Database.Database): boolean {
  const row = db.prepare("SELECT 1 AS one FROM log WHERE seq = 1 AND type = 'store_init'").get();
  return row !== undefined;
}

/** The state directory, bundles/ and the database file, each checked (and made when `create`) in this order. */
function checkedPaths(homeDir: string, create: boolean): { home: string; bundlesDir: string; dbPath: string } {
  const home = resolve(homeDir);
  ensurePrivateDir(home, create, 'home');
  const bundlesDir = join(home, BUNDLES_DIR);
  ensurePrivateDir(bundlesDir, create, BUNDLES_DIR);
  const dbPath = join(home, DB_FILE);
  ensurePrivateDbFile(dbPath, create);
  return { home, bundlesDir, dbPath };
}

/**
 * Open the store of state directory `homeDir`. Without `create`, the directory, `bundles/` and an
 * initialised database must already exist (`store_missing`, exit 2: the caller pointed --home at
 * nothing). With `create`, they are made (0700 / 0600) and migrated, but not initialised: that is
 * `initStore`'s job, so one `init` is one logged transaction.
 */
export function openStore(homeDir: string, options: OpenStoreOptions = {}): Store {
  const create = options.create === true;
  const { home, bundlesDir, dbPath } = checkedPaths(homeDir, create);
  const db = openDatabase(dbPath);
  if (!create && !isInitialized(db)) {
    db.close();
    fail('store_missing', [DB_FILE]);
  }
  return { home, dbPath, bundlesDir, db };
}

/**
 * Open an initialised store for reading only (`gate`, docs/decision.md#8-delivery-state-and-reason-codes: it never writes). Same path
 * checks as `openStore`, in the same order; then a read-only connection with busy_timeout and
 * trusted_schema=OFF, and none of the writes `openStore` makes on every open (journal mode,
 * synchronous, the migration check in an IMMEDIATE transaction, i.e. the write lock). Only a store
 * already in WAL mode, at this code's schema version and initialised is opened this way. A store at
 * an OLDER schema version is refused (`store_migration_required`, exit 2), never migrated: a
 * read-only command (gate, audit verify / checkpoint / export) must not write the store it judges
 * (docs/decision.md#8-delivery-state-and-reason-codes; docs/state.md#the-store "schema changes are numbered migrations" — applied by a command that writes).
 * Anything else — a file that is not SQLite, a busy lock, a newer schema — is handed to `openStore`,
 * so every other refusal and its code stay exactly those of `openStore`.
 */
export function openStoreReadOnly(homeDir: string): Store {
  const { home, bundlesDir, dbPath } = checkedPaths(homeDir, false);
  let db: Database.Database | null = null;
  let older: number | null = null;
  try {
    db = new Database(dbPath, { fileMustExist: true, readonly: true, nativeBinding: addonPath() });
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.pragma('trusted_schema = OFF');
    const version = db.pragma('user_version', { simple: true });
    if (db.pragma('journal_mode', { simple: true }) === 'wal' && version === SCHEMA_VERSION && isInitialized(db)) {
      return { home, dbPath, bundlesDir, db };
    }
    // A store made by an earlier governed (migration 1 made the log; init wrote its first entry).
    if (typeof version === 'number' && version >= 1 && version < SCHEMA_VERSION && isInitialized(db)) older = version;
  } catch {
    // Decided by openStore below, with its codes.
  }
  if (db?.open) db.close();
  if (older !== null) fail('store_migration_required', [`schema:${older}`]);
  return openStore(homeDir);
}

export function closeStore(store: Store): void {
  if (store.db.open) store.db.close();
}
