// `governed audit prove` (docs/audit.md "Proofs"): an inclusion proof of one log entry in the tree
// of a checkpoint, or a consistency proof between two checkpoints, from the store's Merkle tree.
// The checkpoints' roots must be the log's own at their sizes (a proof is never made for a tree
// this log does not have); their signatures are the verifier's business. Read-only on the store.
import { fail } from '../../core/errors.js';
import { proveConsistency, proveInclusion, treeHash } from '../../core/merkle.js';
import { parseCheckpointNote } from '../../core/tlog-checkpoint.js';
import { consistencyProofFile, inclusionProofFile } from '../../core/tlog-proof.js';
import type { Checkpoint } from '../../core/signed-note.js';
import { closeStore, openStoreReadOnly, type LogRow } from '../../store/index.js';
import { treeReader } from '../../store/tree.js';
import type { Db } from '../../store/store.js';

export interface ProveInclusionArgs {
  readonly home: string;
  readonly entry?: number;
  readonly receipt?: string;
  /** The checkpoint the proof is for; else the whole log now (then `origin` must be given). */
  readonly checkpoint?: { readonly file: string; readonly bytes: Buffer };
  readonly origin?: string;
}

function assertLogHas(db: Db, cp: Checkpoint, file: string): void {
  const entries = db.prepare('SELECT count(*) FROM log').pluck().get() as number;
  if (cp.size > entries) fail('tlog_log_truncated', [file, `size:${cp.size}`, `log:${entries}`]);
  if (!treeHash(cp.size, treeReader(db)).equals(cp.root)) fail('tlog_root_mismatch', [file, `size:${cp.size}`]);
}

/** The inclusion proof file's text. */
export function proveEntryInclusion(args: ProveInclusionArgs): { text: string; seq: number; tree_size: number } {
  const store = openStoreReadOnly(args.home);
  try {
    const db = store.db;
    return db.transaction(() => {
      let seq = args.entry;
      if (args.receipt !== undefined) {
        seq = db.prepare('SELECT log_seq FROM receipts WHERE id = ?').pluck().get(args.receipt) as number | undefined;
        if (seq === undefined) fail('tlog_entry_unknown', []);
      }
      if (seq === undefined || !Number.isSafeInteger(seq) || seq < 1) fail('usage_error', ['--entry']);
      const row = db.prepare('SELECT * FROM log WHERE seq = ?').get(seq) as LogRow | undefined;
      if (row === undefined) fail('tlog_entry_unknown', [`seq:${seq}`]);
      let size: number;
      let origin: string;
      if (args.checkpoint !== undefined) {
        const { cp } = parseCheckpointNote(args.checkpoint.bytes, args.checkpoint.file);
        assertLogHas(db, cp, args.checkpoint.file);
        size = cp.size;
        origin = cp.origin;
      } else {
        size = db.prepare('SELECT count(*) FROM log').pluck().get() as number;
        if (args.origin === undefined) fail('usage_error', ['--checkpoint']);
        origin = args.origin;
      }
      if (seq > size) fail('tlog_entry_unknown', [`seq:${seq}`, `size:${size}`]);
      const read = treeReader(db);
      const text = inclusionProofFile({
        origin,
        tree_size: size,
        leaf_index: seq - 1,
        entry: { seq: row.seq, time: row.time, type: row.type, unit: row.unit, payload_digest: row.payload_digest, prev_hash: row.prev_hash },
        payload: row.type === 'run_receipt' ? row.payload.toString('base64') : null,
        root: treeHash(size, read),
        hashes: proveInclusion(size, seq - 1, read),
      });
      return { text, seq, tree_size: size };
    }).deferred();
  } finally {
    closeStore(store);
  }
}

/** The consistency proof file's text, from checkpoint `from` to checkpoint `to`. */
export function proveCheckpointConsistency(home: string, from: { file: string; bytes: Buffer }, to: { file: string; bytes: Buffer }): { text: string; old_size: number; new_size: number } {
  const a = parseCheckpointNote(from.bytes, from.file).cp;
  const b = parseCheckpointNote(to.bytes, to.file).cp;
  if (a.origin !== b.origin) fail('tlog_origin_mismatch', [from.file, to.file]);
  if (a.size > b.size || a.size < 1) fail('usage_error', ['--from', '--to']);
  const store = openStoreReadOnly(home);
  try {
    const db = store.db;
    return db.transaction(() => {
      assertLogHas(db, a, from.file);
      assertLogHas(db, b, to.file);
      const hashes = proveConsistency(b.size, a.size, treeReader(db));
      return { text: consistencyProofFile({ origin: a.origin, old_size: a.size, old_root: a.root, new_size: b.size, new_root: b.root, hashes }), old_size: a.size, new_size: b.size };
    }).deferred();
  } finally {
    closeStore(store);
  }
}
