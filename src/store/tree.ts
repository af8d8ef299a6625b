// The Merkle tree of the log in the store (docs/audit.md "Transparency log"): the `tlog_hashes`
// table (migration 0008) holds Go sumdb/tlog's stored hashes (src/core/merkle.ts). Leaf number
// seq−1 is the log entry `seq`; its leaf bytes are `entryLeafBytes` — exactly the RFC 8785 bytes
// the chain hashes into entry_hash — so leaf hash = SHA-256(0x00 ‖ those bytes).
import { fail } from '../core/errors.js';
import { leafHash, storedHashCount, storedHashesForLeaf, storedHashIndex, treeHash, type Hash } from '../core/merkle.js';
import { leafBytesOf, type LeafFields } from '../core/tlog-leaf.js';
import { dbOf, type Db, type Store } from './store.js';
import { treeReader } from './tree-read.js';

export { treeReader };

export type { LeafFields };

/** The leaf bytes of a log entry: canonicalJson({seq, time, type, unit, payload_digest, prev_hash}), UTF-8. */
export function entryLeafBytes(f: LeafFields): Buffer {
  return leafBytesOf(f);
}

export function entryLeafHash(f: LeafFields): Hash {
  return leafHash(entryLeafBytes(f));
}

const inserts = new WeakMap<Db, { run(...params: unknown[]): unknown }>();

/** Append the tree hashes of log entry `seq` (called right after its log row is written); `leaf`: its leaf bytes, when the caller already has them. */
export function appendLeaf(db: Db, f: LeafFields, leaf?: Buffer): void {
  const n = f.seq - 1;
  const hashes = storedHashesForLeaf(n, leafHash(leaf ?? entryLeafBytes(f)), treeReader(db));
  const base = storedHashIndex(0, n);
  let ins = inserts.get(db);
  if (ins === undefined) {
    ins = db.prepare('INSERT INTO tlog_hashes (idx, hash) VALUES (?, ?)');
    inserts.set(db, ins);
  }
  for (let j = 0; j < hashes.length; j++) ins.run(base + j, hashes[j]);
}

/** Root hash of the tree of the first `size` entries, from the stored hashes. */
export function storedTreeHash(x: Store | Db, size: number): Hash {
  return treeHash(size, treeReader(x));
}

/** Build the tree of a log that predates migration 0008 (inside the migration's transaction). */
export function backfillTree(db: Db): void {
  // Read first (better-sqlite3 cannot write while a statement iterates): six short fields a row.
  const rows = db.prepare('SELECT seq, time, type, unit, payload_digest, prev_hash FROM log ORDER BY seq').all() as LeafFields[];
  for (const row of rows) appendLeaf(db, row);
}

/**
 * Re-derive every stored hash from the log, in one pass (streaming: each hash is checked before it
 * is used to derive later ones): the table must hold exactly the hashes the log gives, no more.
 * A difference is `log_tree_mismatch` naming the first stored index that differs.
 */
export function verifyTree(x: Store | Db): { size: number; root: Hash } {
  const db = dbOf(x);
  const read = treeReader(db);
  let size = 0;
  for (const row of db.prepare('SELECT seq, time, type, unit, payload_digest, prev_hash FROM log ORDER BY seq').iterate() as IterableIterator<LeafFields>) {
    const n = row.seq - 1;
    const expected = storedHashesForLeaf(n, entryLeafHash(row), read);
    const base = storedHashIndex(0, n);
    const stored = read(expected.map((_, j) => base + j));
    expected.forEach((h, j) => {
      if (!h.equals(stored[j] as Buffer)) fail('log_tree_mismatch', [`tree:${base + j}`]);
    });
    size = row.seq;
  }
  const count = db.prepare('SELECT count(*) FROM tlog_hashes').pluck().get() as number;
  if (count !== storedHashCount(size)) fail('log_tree_mismatch', ['tree:count']);
  return { size, root: treeHash(size, read) };
}
