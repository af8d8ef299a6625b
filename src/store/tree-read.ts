// Reading the stored Merkle tree (docs/audit.md "Transparency log"), with no dependency on the log
// or its reducers: the gate's deploy record reads proofs through it on the lean gate path
// (test/gate-cold-imports.test.ts). ./tree.ts writes and re-derives the table.
import { fail } from '../core/errors.js';
import type { HashReader } from '../core/merkle.js';
import { dbOf, type Db, type Store } from './store.js';

const readers = new WeakMap<Db, HashReader>();

/** Reads stored hashes from the table; a missing one is `log_tree_mismatch` (the table was edited). */
export function treeReader(x: Store | Db): HashReader {
  const db = dbOf(x);
  let r = readers.get(db);
  if (r === undefined) {
    const get = db.prepare('SELECT hash FROM tlog_hashes WHERE idx = ?').pluck();
    r = (indexes) =>
      indexes.map((i) => {
        const h = get.get(i) as Buffer | undefined;
        if (h === undefined || h.length !== 32) fail('log_tree_mismatch', [`tree:${i}`]);
        return h;
      });
    readers.set(db, r);
  }
  return r;
}

