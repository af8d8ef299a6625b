// Automatic checkpoints (docs/audit.md "Automatic checkpoints"). After a command appended to a
// store whose pinned policy has `tlog_checkpoints`, and the rule of src/core/tlog-auto.ts says one
// is due, a C2SP checkpoint of the whole log is signed through the same pinned tlog-note `log`
// attestor as `audit checkpoint` and stored in `<home>/checkpoints/` (src/store/checkpoints.ts).
//
// What is checked before signing, on one read snapshot (O(entries since the newest checkpoint), not
// a replay of the whole log — that is `audit verify` / `audit checkpoint`):
//   - the newest stored checkpoint is signed by a `log` key of the pinned trust root (now) and
//     names this log's origin, and the stored tree still gives its root at its size (else the store
//     no longer extends what it signed: tlog_root_mismatch / tlog_log_truncated, nothing signed);
//   - every entry after it: its hashes, its link, and its stored tree hashes re-derived.
// Fail closed, nothing half-recorded: the log entries the command appended are committed and
// complete before this runs (a checkpoint is outside the log: it signs the log). The checkpoint is
// written whole or not at all; a failure (attestor refused, key not trusted, tree mismatch, disk)
// is reported as the command's error with its code, and `gate` refuses `tlog_checkpoint_overdue`
// while the due checkpoint is missing — the next command that appends tries again.
import { fail } from '../../core/errors.js';
import { treeHash } from '../../core/merkle.js';
import { verifyCheckpointNote } from '../../core/tlog-checkpoint.js';
import { isoSecondsOf } from '../../core/trust-root.js';
import { checkpointDueOn, newestStoredCheckpoint, storeCheckpoint } from '../../store/checkpoints.js';
import { closeStore, openStore } from '../../store/index.js';
import { treeReader } from '../../store/tree.js';
import { verifyTreeSince } from '../../store/tree-since.js';
import type { Db } from '../../store/store.js';
import { loadPinned, type Pinned } from '../challenge/pinned.js';
import { attestorFiles, resolveLocations } from '../run/locations.js';
import type { CheckpointSigner } from './tlog-checkpoint.js';

export interface AutoCheckpointResult {
  /** `checkpoints/<size>.note`, relative to the state directory. */
  readonly file: string;
  readonly tree_size: number;
}

/** The newest stored checkpoint, checked against the pinned trust root and this log's tree. */
function newestCovered(home: string, db: Db, pinned: Pinned, now: Date): { size: number; origin: string | null } {
  const stored = newestStoredCheckpoint(home);
  if (stored === null) return { size: 0, origin: null };
  const { cp } = verifyCheckpointNote(stored.bytes, stored.file, pinned.trust, isoSecondsOf(now));
  if (cp.size !== stored.size) fail('tlog_checkpoint_invalid', [stored.file]);
  const entries = db.prepare('SELECT count(*) FROM log').pluck().get() as number;
  if (cp.size > entries) fail('tlog_log_truncated', [stored.file, `size:${cp.size}`, `log:${entries}`]);
  if (!treeHash(cp.size, treeReader(db)).equals(cp.root)) fail('tlog_root_mismatch', [stored.file, `size:${cp.size}`]);
  return { size: cp.size, origin: cp.origin };
}

/** Write the due checkpoint of `home`, if its policy asks for one and it is due; null otherwise. */
export async function autoCheckpoint(args: {
  home: string;
  attestorsDir?: string | undefined;
  now: Date;
  /** The daemon's warm log attestor (docs/runnerd.md#checkpoints); absent: a one-shot child. */
  signer?: CheckpointSigner | undefined;
}): Promise<AutoCheckpointResult | null> {
  // A read-write handle: as the last connection to close it checkpoints the WAL into the database
  // file, as every command's own handle does (a read-only one cannot), so the file's bytes are what
  // they were before this step ran (test/run-locations-before-claim.test.ts compares them).
  const store = openStore(args.home);
  let plan: { pinned: Pinned; size: number; root: Buffer; origin: string | null } | null;
  try {
    const db = store.db;
    plan = db.transaction(() => {
      const pinned = loadPinned(db, Math.floor(args.now.getTime() / 1000));
      if (pinned.policy.doc.tlog_checkpoints === undefined) return null;
      const newest = newestCovered(store.home, db, pinned, args.now);
      if (!checkpointDueOn(db, pinned.policy.doc.tlog_checkpoints, newest.size)) return null;
      const tree = verifyTreeSince(db, newest.size);
      return { pinned, size: tree.size, root: tree.root, origin: newest.origin };
    }).deferred();
  } finally {
    closeStore(store);
  }
  if (plan === null) return null;
  const files = attestorFiles(resolveLocations({ home: args.home, attestorsDir: args.attestorsDir }), 'log');
  // The signing path (attestor host, child process) is loaded only when a checkpoint is due: every
  // command that appends runs this step.
  const { signCheckpointNote } = await import('./tlog-checkpoint.js');
  const signed = await signCheckpointNote({ files, pinned: plan.pinned, now: args.now, size: plan.size, root: plan.root, signer: args.signer });
  // One origin per store: a config changed to another origin would start a second log's history.
  if (plan.origin !== null && signed.origin !== plan.origin) fail('tlog_origin_mismatch', ['checkpoints']);
  const file = storeCheckpoint(args.home, plan.size, signed.text);
  return { file, tree_size: plan.size };
}
