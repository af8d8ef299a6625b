// Prepared statements cached per connection. A decision re-verifies every receipt it relies on
// and reads each one's envelope and log entry (./verify.ts, ./facts.ts): preparing the same SQL
// for every record costs a parse each time on the gate's cold path (bench/gate). A statement is
// bound to its connection, so the cache is keyed by it and dies with it.
import type { Statement } from 'better-sqlite3';
import type { Db } from '../../store/store.js';

const cache = new WeakMap<Db, Map<string, Statement>>();

/** `db.prepare(sql)`, once per connection and SQL text. */
export function prepared(db: Db, sql: string): Statement {
  let byText = cache.get(db);
  if (byText === undefined) {
    byText = new Map();
    cache.set(db, byText);
  }
  let s = byText.get(sql);
  if (s === undefined) {
    s = db.prepare(sql);
    byText.set(sql, s);
  }
  return s;
}
