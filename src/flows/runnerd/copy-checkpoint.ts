// What `gate --runner` checks of a store copy against signed heads of the daemon's log (docs/runnerd.md
// "Checkpoints"), before the gate judges it: each checkpoint note — the daemon's newest, sent with
// the copy, and any the deploy side kept (--runner-checkpoint) — must verify under a `log` key of
// the deploy side's OWN trust root (now), and the copy's log must extend it: at least that many
// entries (else runnerd_store_copy_stale) and the same Merkle root at that size (else
// tlog_root_mismatch). What this proves and what it does not: a copy older than a head the deploy
// side holds is refused; a daemon that replays an older copy together with its older checkpoint is
// caught only by a newer checkpoint the deploy side got elsewhere (--runner-checkpoint).
import { fail } from '../../core/errors.js';
import { treeHash } from '../../core/merkle.js';
import { verifyCheckpointNote } from '../../core/tlog-checkpoint.js';
import type { TrustRoot } from '../../core/trust-root.js';
import { closeStore, openStoreReadOnly } from '../../store/index.js';
import { treeReader } from '../../store/tree.js';

export interface CheckpointNoteFile {
  /** How the note is named in errors (a file name, never its content). */
  readonly file: string;
  readonly bytes: Buffer;
}

/**
 * Throws the first failure: tlog_checkpoint_* (the note), runnerd_store_copy_stale, tlog_root_mismatch.
 * Returns the newest of the notes (largest size; every one verified and extended), or null when none was given.
 */
export function assertCopyExtends(home: string, notes: readonly CheckpointNoteFile[], trust: TrustRoot, nowIso: string): CheckpointNoteFile | null {
  if (notes.length === 0) return null;
  const heads = notes.map((n) => ({ file: n.file, cp: verifyCheckpointNote(n.bytes, n.file, trust, nowIso).cp }));
  const store = openStoreReadOnly(home);
  try {
    const db = store.db;
    const entries = db.prepare('SELECT count(*) FROM log').pluck().get() as number;
    for (const { file, cp } of heads) {
      if (cp.size > entries) fail('runnerd_store_copy_stale', [file, `size:${cp.size}`, `log:${entries}`]);
      if (cp.size > 0 && !treeHash(cp.size, treeReader(db)).equals(cp.root)) fail('tlog_root_mismatch', [file, `size:${cp.size}`]);
    }
  } finally {
    closeStore(store);
  }
  let newest = 0;
  heads.forEach((h, i) => {
    if (h.cp.size > (heads[newest] as (typeof heads)[number]).cp.size) newest = i;
  });
  return notes[newest] as CheckpointNoteFile;
}
