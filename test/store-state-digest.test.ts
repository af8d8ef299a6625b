// The store's state digest (src/store/state-digest.ts) is hashed as it is read, one row at a time,
// never built as one document (docs/audit.md "Cost and memory"). Its definition is still "sha256 of
// canonicalJson of the whole document": this file builds that document in memory, the way the
// digest was first written, and requires the streamed digest to be byte-for-byte the same — on a
// store with every cell kind (integers, text, NULL, BLOBs) — and to change when one cell changes.
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { digestOf } from '../src/core/canonical.js';
import { closeStore } from '../src/store/open.js';
import { stateDigest, tablesDigest } from '../src/store/state-digest.js';
import { createUnit } from '../src/store/units.js';
import { registerWriter } from '../src/store/writers.js';
import { acquireLease } from '../src/store/leases.js';
import { cleanupDirs, COMMIT, identityN, newStore, rawConnection, T0, TREE } from './store-helpers.js';

afterEach(cleanupDirs);

/** The reference: the whole document in memory, then canonicalJson + sha256 (digestOf). */
function documentDigest(db: Database.Database, includeLog: boolean): string {
  const names = (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name").pluck().all() as string[]).filter(
    (n) => includeLog || (n !== 'log' && n !== 'tlog_hashes'),
  );
  const tables = names.map((name) => {
    const columns = db.prepare('SELECT name FROM pragma_table_info(?) ORDER BY cid').pluck().all(name) as string[];
    const order = columns.map((_, i) => String(i + 1)).join(', ');
    const rows = (db.prepare(`SELECT * FROM "${name}" ORDER BY ${order}`).raw(true).safeIntegers(true).all() as unknown[][]).map((r) =>
      r.map((v) => (typeof v === 'bigint' ? Number(v) : Buffer.isBuffer(v) ? { blob: v.toString('base64') } : v)),
    );
    return { name, columns, rows };
  });
  return digestOf({ schema_version: db.pragma('user_version', { simple: true }) as number, tables });
}

describe('state digest, streamed', () => {
  it('equals sha256 of the whole document built in memory, for the state and for every table', () => {
    const store = newStore();
    let now = T0;
    const { unitId } = createUnit(store, { baselineCommit: COMMIT, baselineTree: TREE, now: ++now });
    registerWriter(store, { unit: unitId, writerSession: 'w0', identity: identityN(1), now: ++now });
    acquireLease(store, { unit: unitId, writerSession: 'w0', ttlSeconds: 60, now: ++now });
    // Every cell kind is present: BLOBs (log payloads, pins), NULLs, integers and text.
    const kinds = store.db.prepare("SELECT count(*) FROM log WHERE unit IS NULL").pluck().get() as number;
    expect(kinds).toBeGreaterThan(0);
    expect(stateDigest(store)).toBe(documentDigest(store.db, false));
    expect(tablesDigest(store)).toBe(documentDigest(store.db, true));
    expect(stateDigest(store)).not.toBe(tablesDigest(store));
    closeStore(store);
  });

  it('changes when one cell changes (positive control: unchanged before the edit)', () => {
    const store = newStore();
    const { unitId } = createUnit(store, { baselineCommit: COMMIT, baselineTree: TREE, now: T0 + 1 });
    const before = stateDigest(store);
    expect(stateDigest(store)).toBe(before);
    const raw = rawConnection(store);
    raw.prepare('UPDATE units SET work_revision = work_revision + 1 WHERE id = ?').run(unitId);
    raw.close();
    expect(stateDigest(store)).not.toBe(before);
    expect(stateDigest(store)).toBe(documentDigest(store.db, false));
    closeStore(store);
  });
});
