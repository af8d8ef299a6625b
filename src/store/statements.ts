// Prepared statements compiled once per connection (docs/audit.md "Cost and memory"). better-sqlite3
// compiles SQL on every `db.prepare`; the reducers ran it for each statement of each entry, so
// compiling SQL was a tenth of replaying a log (bench/audit, node --cpu-prof) and a share of every
// append. A statement from here is shared by every caller of the same SQL on the same connection:
// callers never toggle its modes; `cachedPluck` is the plucking twin, cached apart.
import type Database from 'better-sqlite3';
import type { Db } from './store.js';

const plain = new WeakMap<Db, Map<string, Database.Statement>>();
const plucked = new WeakMap<Db, Map<string, Database.Statement>>();

function from(caches: WeakMap<Db, Map<string, Database.Statement>>, db: Db, sql: string, pluck: boolean): Database.Statement {
  let m = caches.get(db);
  if (m === undefined) {
    m = new Map();
    caches.set(db, m);
  }
  let s = m.get(sql);
  if (s === undefined) {
    s = pluck ? db.prepare(sql).pluck() : db.prepare(sql);
    m.set(sql, s);
  }
  return s;
}

/** `db.prepare(sql)`, compiled once per connection. */
export function cached(db: Db, sql: string): Database.Statement {
  return from(plain, db, sql, false);
}

/** `db.prepare(sql).pluck()`, compiled once per connection. */
export function cachedPluck(db: Db, sql: string): Database.Statement {
  return from(plucked, db, sql, true);
}
