// `gate --runner SOCKET` (or GOVERNED_RUNNER; docs/runnerd.md#the-deploy-side-gate---runner): the copy
// of the daemon's store the gate judges. Reached through commander only (src/cli/main.ts routes a
// gate with --runner there), so none of the client's modules land in the lean gate bundle.
import { refuseLocalOnly, runnerSocket } from '../runnerd/client.js';
import { remoteStoreCopy } from '../runnerd/remote-commands.js';
import type { GateOptions, StoreCopySource } from './gate.js';

export function storeCopySource(opts: GateOptions): StoreCopySource | undefined {
  const socket = runnerSocket(opts.runner);
  if (socket === undefined) return undefined;
  const home = opts.home;
  return async (unit) => {
    // --home names the runner machine's store: the daemon's is the one judged.
    if (home !== undefined) refuseLocalOnly({ home }, ['home']);
    return remoteStoreCopy(socket, unit);
  };
}
