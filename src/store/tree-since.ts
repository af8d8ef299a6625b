// Re-checking the log entries after a checkpoint (docs/audit.md "Automatic checkpoints"). Apart
// from ./tree.ts because it needs the log's row check, and ./tree.ts is loaded by the migrations on
// every store open (the gate's lean path must not load the log's reducers).
import { fail } from '../core/errors.js';
import { storedHashesForLeaf, storedHashIndex, treeHash, type Hash } from '../core/merkle.js';
import { checkRow, GENESIS_HASH, type LogHead, type LogRow } from './log.js';
import { dbOf, type Db, type Store } from './store.js';
import { entryLeafHash, treeReader } from './tree.js';

/**
 * The entries after the first `from` (an automatic checkpoint's increment, docs/audit.md "Automatic
 * checkpoints"): each row's own hashes and its link to the one before (`checkRow`, from entry
 * `from`'s stored hash), and the stored tree hashes of their leaves re-derived. O(entries since
 * `from`): what the newest checkpoint already covers is held by its signed root instead (the caller
 * checks that the stored tree still gives it).
 */
export function verifyTreeSince(x: Store | Db, from: number): { size: number; root: Hash; headTime: number } {
  const db = dbOf(x);
  const read = treeReader(db);
  let head: LogHead = { seq: 0, entryHash: GENESIS_HASH };
  if (from > 0) {
    const h = db.prepare('SELECT entry_hash FROM log WHERE seq = ?').pluck().get(from) as string | undefined;
    if (h === undefined) fail('tlog_log_truncated', [`size:${from}`]);
    head = { seq: from, entryHash: h };
  }
  let headTime = from > 0 ? (db.prepare('SELECT time FROM log WHERE seq = ?').pluck().get(from) as number) : 0;
  for (const row of db.prepare('SELECT * FROM log WHERE seq > ? ORDER BY seq').iterate(from) as IterableIterator<LogRow>) {
    checkRow(row, head);
    const n = row.seq - 1;
    const expected = storedHashesForLeaf(n, entryLeafHash(row), read);
    const base = storedHashIndex(0, n);
    const stored = read(expected.map((_, j) => base + j));
    expected.forEach((h, j) => {
      if (!h.equals(stored[j] as Buffer)) fail('log_tree_mismatch', [`tree:${base + j}`]);
    });
    head = { seq: row.seq, entryHash: row.entry_hash };
    headTime = row.time;
  }
  return { size: head.seq, root: treeHash(head.seq, read), headTime };
}

