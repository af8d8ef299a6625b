// `gate --runner SOCKET` (or GOVERNED_RUNNER; docs/runnerd.md#the-deploy-side-gate---runner): the copy
// of the daemon's store the gate judges. Reached through commander only (src/cli/main.ts routes a
// gate with --runner there), so none of the client's modules land in the lean gate bundle.
import { refuseLocalOnly, runnerSocket } from '../runnerd/client.js';
import { remoteStoreCopy } from '../runnerd/remote-commands.js';
import type { GateOptions, StoreCopySource } from './gate.js';
import { fail } from '../../core/errors.js';
import { isoOfSeconds } from '../../core/trust-root.js';
import { MAX_CHECKPOINT_BYTES, newestStoredCheckpoint } from '../../store/checkpoints.js';
import { readInputFile } from '../../flows/read-input.js';
import { writeOnce } from '../../flows/write-once.js';
import { assertCopyExtends, type CheckpointNoteFile } from '../../flows/runnerd/copy-checkpoint.js';

/**
 * The copy against signed heads of the daemon's log (docs/runnerd.md#checkpoints): the daemon's
 * newest checkpoint sent with it and each --runner-checkpoint, under the deploy side's --trust.
 * Without a usable --trust nothing is checked here: the gate refuses that itself.
 */
async function checkCopyCheckpoints(home: string, opts: GateOptions): Promise<void> {
  if (opts.runnerCheckpoint !== undefined && opts.runnerCheckpoint.length > 0 && opts.trust === undefined) fail('usage_error', ['--trust']);
  if (opts.runnerCheckpointOut !== undefined && opts.trust === undefined) fail('usage_error', ['--trust']);
  if (opts.trust === undefined) return;
  const nowIso = isoOfSeconds(Math.floor(Date.now() / 1000));
  const { loadDeployTrust } = await import('../../flows/decide/gate.js');
  let trust;
  try {
    trust = (await loadDeployTrust(opts.trust, nowIso)).trust;
  } catch {
    return;
  }
  const notes: CheckpointNoteFile[] = [];
  const own = newestStoredCheckpoint(home);
  if (own !== null) notes.push({ file: 'runner:' + own.file, bytes: own.bytes });
  for (const f of opts.runnerCheckpoint ?? []) notes.push({ file: 'runner-checkpoint', bytes: readInputFile(f, MAX_CHECKPOINT_BYTES) });
  const newest = assertCopyExtends(home, notes, trust, nowIso);
  // The head to bring next time (--runner-checkpoint): verified, and extended by this copy.
  if (opts.runnerCheckpointOut !== undefined) {
    if (newest === null) fail('usage_error', ['--runner-checkpoint-out']);
    writeOnce(opts.runnerCheckpointOut, newest.bytes.toString('utf8'), { exists: 'audit_checkpoint_output_exists', unwritable: 'audit_checkpoint_output_unwritable' });
  }
}

export function storeCopySource(opts: GateOptions): StoreCopySource | undefined {
  const socket = runnerSocket(opts.runner);
  if (socket === undefined) return undefined;
  const home = opts.home;
  return async (unit) => {
    // --home names the runner machine's store: the daemon's is the one judged.
    if (home !== undefined) refuseLocalOnly({ home }, ['home']);
    const copy = await remoteStoreCopy(socket, unit);
    try {
      await checkCopyCheckpoints(copy.home, opts);
      return copy;
    } catch (e) {
      copy.dispose();
      throw e;
    }
  };
}
