// The one pass over a log (src/store/replay.ts passLog; docs/audit.md "Cost and memory"): every row
// checked, decoded once, applied by writeEntry in its own savepoint and visited in order. Attacks:
// an entry that does not apply (forged with correct hashes) stops the replay's tables there, while
// later rows are still checked and visited and the scratch tree stays the tree of every row; a
// broken link after such an entry is still the chain's code (nothing after it is trusted).
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalJson, sha256Digest } from '../src/core/canonical.js';
import { treeHash } from '../src/core/merkle.js';
import { entryHashOf, readLog, type LogRow } from '../src/store/log.js';
import { closeStore, openStore } from '../src/store/open.js';
import { openReplayTarget, passLog } from '../src/store/replay.js';
import { appendLeaf, storedTreeHash, treeReader } from '../src/store/tree.js';
import { createUnit } from '../src/store/units.js';
import { registerWriter } from '../src/store/writers.js';
import { TLOG_SQL } from '../src/store/migrations/0008-tlog.js';
import type { Store } from '../src/store/store.js';
import { cleanupDirs, codeOf, COMMIT, identityN, newStore, rawConnection, T0, tempDir, TREE } from './store-helpers.js';

afterEach(cleanupDirs);

function smallStore(): { store: Store; unit: string } {
  const store = newStore();
  const { unitId } = createUnit(store, { baselineCommit: COMMIT, baselineTree: TREE, now: T0 + 1 });
  registerWriter(store, { unit: unitId, writerSession: 'w0', identity: identityN(1), now: T0 + 2 });
  return { store, unit: unitId };
}

/** Append, behind governed, `n` entries with correct hashes releasing leases that never existed. */
function forgeReleases(store: Store, unit: string, n: number): number {
  const raw = rawConnection(store);
  try {
    let last = readLog(raw).at(-1) as LogRow;
    const first = last.seq + 1;
    for (let i = 0; i < n; i++) {
      const payload = Buffer.from(canonicalJson({ lease: `LSE-${String(i + 1).repeat(32)}`, unit, writer_session: 'w0', released_at: last.time + 1 }));
      const f = { seq: last.seq + 1, time: last.time + 1, type: 'lease_release', unit, payload_digest: sha256Digest(payload), prev_hash: last.entry_hash };
      const row = { ...f, payload, entry_hash: entryHashOf(f) };
      raw.prepare('INSERT INTO log (seq,time,type,unit,payload,payload_digest,prev_hash,entry_hash) VALUES (@seq,@time,@type,@unit,@payload,@payload_digest,@prev_hash,@entry_hash)').run(row);
      last = row;
    }
    return first;
  } finally {
    raw.close();
  }
}

/** The root of the tree of every log row, derived apart (appendLeaf into an empty table). */
function rootOfRows(rows: readonly LogRow[]): Buffer {
  const db = new Database(':memory:');
  try {
    db.exec(TLOG_SQL);
    for (const r of rows) appendLeaf(db, r);
    return treeHash(rows.length, treeReader(db));
  } finally {
    db.close();
  }
}

function pass(store: Store): { seqs: number[]; types: string[]; result: ReturnType<typeof passLog>; target: Database.Database } {
  const target = openReplayTarget(join(tempDir(), 'scratch.db'));
  target.exec('BEGIN IMMEDIATE');
  const seqs: number[] = [];
  const types: string[] = [];
  const result = passLog(store.db, target, (row, payload) => {
    seqs.push(row.seq);
    types.push(typeof payload === 'object' && payload !== null ? row.type : 'not-decoded');
  });
  return { seqs, types, result, target };
}

describe('passLog', () => {
  it('visits every row once, in order, decoded; the scratch tree is the stored tree', () => {
    const { store } = smallStore();
    const rows = readLog(store);
    const { seqs, types, result, target } = pass(store);
    expect(seqs).toEqual(rows.map((r) => r.seq));
    expect(types).toEqual(rows.map((r) => r.type));
    expect(result.notApplicable).toBeNull();
    expect(result.entries).toBe(rows.length);
    expect(treeHash(rows.length, treeReader(target)).equals(storedTreeHash(store, rows.length))).toBe(true);
    target.close();
    closeStore(store);
  });

  it('an entry that does not apply: its code; later rows still visited; the tables stop there; the tree covers every row', () => {
    const { store, unit } = smallStore();
    const honest = readLog(store).length;
    closeStore(store);
    const forged = forgeReleases(store, unit, 2);
    const reopened = openStore(store.home);
    const rows = readLog(reopened);
    const { seqs, result, target } = pass(reopened);
    expect(result.notApplicable?.code).toBe('log_entry_not_applicable');
    // The reducer's own refusal (nothing was released): raised at the first forged entry.
    expect(target.prepare('SELECT COUNT(*) FROM log WHERE seq >= ?').pluck().get(forged)).toBe(0);
    expect(seqs).toEqual(rows.map((r) => r.seq)); // the row after it too
    expect(result.entries).toBe(honest + 2);
    // The refused entry left nothing (its savepoint), and nothing after it was applied.
    expect(target.prepare('SELECT MAX(seq) FROM log').pluck().get()).toBe(honest);
    expect(treeHash(rows.length, treeReader(target)).equals(rootOfRows(rows))).toBe(true);
    target.close();
    closeStore(reopened);
  });

  it('a broken link after an entry that does not apply is the chain failure, thrown', () => {
    const { store, unit } = smallStore();
    closeStore(store);
    const forged = forgeReleases(store, unit, 2);
    const raw = rawConnection(store);
    raw.exec('DROP TRIGGER IF EXISTS log_no_update');
    // The second forged entry links to nothing: its own hash recomputed, so only the link is wrong.
    const r = raw.prepare('SELECT seq, time, type, unit, payload_digest FROM log WHERE seq = ?').get(forged + 1) as Omit<Parameters<typeof entryHashOf>[0], 'prev_hash'>;
    const prev = `sha256:${'e'.repeat(64)}`;
    raw.prepare('UPDATE log SET prev_hash = ?, entry_hash = ? WHERE seq = ?').run(prev, entryHashOf({ ...r, prev_hash: prev }), forged + 1);
    raw.close();
    const reopened = openStore(store.home);
    const target = openReplayTarget(join(tempDir(), 'scratch.db'));
    target.exec('BEGIN IMMEDIATE');
    expect(codeOf(() => passLog(reopened.db, target))).toBe('log_chain_broken');
    target.close();
    closeStore(reopened);
  });

  it('refuses to run outside a transaction of the target (internal_error)', () => {
    const { store } = smallStore();
    const target = openReplayTarget(join(tempDir(), 'scratch.db'));
    expect(codeOf(() => passLog(store.db, target))).toBe('internal_error');
    target.close();
    closeStore(store);
  });
});
