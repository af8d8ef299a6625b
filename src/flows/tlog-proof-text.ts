// The inclusion proof file of one log entry (docs/audit.md "Proof files"), made from the store's
// Merkle tree: the one way `audit prove`, `audit export`, `audit verify --export` and the gate's
// deploy record make it. Lean (no store index, no parsers): the gate loads it for --export.
import { proveInclusion, treeHash } from '../core/merkle.js';
import { inclusionProofFile } from '../core/tlog-proof-file.js';
import type { LogRow } from '../store/log.js';
import type { Db } from '../store/store.js';
import { treeReader } from '../store/tree-read.js';

/** The proof of `row` in the tree of the first `size` entries, as the file's text. */
export function inclusionProofText(db: Db, row: LogRow, size: number, origin: string): string {
  const read = treeReader(db);
  return inclusionProofFile({
    origin,
    tree_size: size,
    leaf_index: row.seq - 1,
    entry: { seq: row.seq, time: row.time, type: row.type, unit: row.unit, payload_digest: row.payload_digest, prev_hash: row.prev_hash },
    payload: row.type === 'run_receipt' ? row.payload.toString('base64') : null,
    root: treeHash(size, read),
    hashes: proveInclusion(size, row.seq - 1, read),
  });
}
