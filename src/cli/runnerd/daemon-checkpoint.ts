// The daemon's automatic checkpoints (docs/runnerd.md "Checkpoints"): after every request that
// appended to the daemon's store, the same step co-located commands run after an append
// (docs/audit.md "Automatic checkpoints"): if the pinned policy's tlog_checkpoints says one is due, a
// C2SP checkpoint of the whole log is signed with the log key through the daemon's warm log
// attestor (the pinned tlog-checkpoint attestor of <base>/attestors, under the log uid: the daemon
// cannot read the log key) and stored in <home>/checkpoints/. At start, the
// same step whether or not anything was appended (a checkpoint a previous daemon did not get to
// write, or the first one). One step at a time (requests run in parallel; the store's log is one).
import { GovernedError, isGovernedError } from '../../core/errors.js';
import type { OutputOptions } from '../output.js';
import { checkpointAfter, type CheckpointStep } from '../run-action.js';
import type { CheckpointSigner } from '../../flows/audit/tlog-checkpoint.js';

export interface DaemonCheckpointer {
  /** After a request: the due checkpoint of what it appended (null: it appended nothing). */
  readonly afterRequest: () => Promise<CheckpointStep | null>;
  /** At start: the due checkpoint of the store as it is. */
  readonly atStart: () => Promise<CheckpointStep>;
}

export function daemonCheckpointer(home: string, attestorsDir: string, signer: CheckpointSigner): DaemonCheckpointer {
  let tail: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = tail.then(fn);
    tail = next.catch(() => undefined);
    return next;
  };
  return {
    afterRequest: () => serial(() => checkpointAfter({ attestors: attestorsDir } as OutputOptions & { attestors: string }, signer)),
    atStart: () =>
      serial(async () => {
        try {
          const { autoCheckpoint } = await import('../../flows/audit/auto-checkpoint.js');
          const r = await autoCheckpoint({ home, attestorsDir, now: new Date(), signer });
          return { written: r === null ? [] : [r], error: null };
        } catch (e) {
          return { written: [], error: isGovernedError(e) ? e : new GovernedError('internal_error', { cause: e }) };
        }
      }),
  };
}
