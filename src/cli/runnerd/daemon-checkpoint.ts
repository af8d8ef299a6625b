// The daemon's automatic checkpoints (docs/runnerd.md "Checkpoints"): after every request that
// appended to the daemon's store (and once at start, after the reap), the same step co-located
// commands run after an append (docs/audit.md "Automatic checkpoints"): if the pinned policy's
// tlog_checkpoints says one is due, a C2SP checkpoint of the whole log is signed through the pinned
// tlog-checkpoint attestor of <base>/attestors with the daemon's own log key and stored in
// <home>/checkpoints/. One step at a time (requests run in parallel; the store's log is one).
import type { OutputOptions } from '../output.js';
import { checkpointAfter, type CheckpointStep } from '../run-action.js';

export function daemonCheckpointer(attestorsDir: string): () => Promise<CheckpointStep | null> {
  let tail: Promise<unknown> = Promise.resolve();
  return () => {
    const next = tail.then(() => checkpointAfter({ attestors: attestorsDir } as OutputOptions & { attestors: string }));
    tail = next.catch(() => undefined);
    return next;
  };
}
