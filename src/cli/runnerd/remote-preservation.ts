// The writer-side client of preservation in separated mode (docs/runnerd.md#probes-through-the-daemon):
// `preservation set --runner` sends the contract's bytes, `preservation probe --runner` the adapter
// program's bytes and a snapshot of the writer's repository as a commit. The daemon binds, seals,
// runs the allowlisted adapter, signs and records; the client prints its answer as co-located mode
// prints its own. Options naming files of the runner machine (--home, --attestors) are refused.
import { fail } from '../../core/errors.js';
import { CONTRACT_FILE_MAX_BYTES } from '../../core/limits.js';
import { MAX_ADAPTER_BYTES } from '../../flows/preservation/probe.js';
import { readInputFile } from '../../flows/read-input.js';
import type { CommandResult } from '../output.js';
import { refuseLocalOnly, remoteResult, snapshotContent } from './client.js';
import { RECORD_ID_RE } from '../../core/ids.js';

const b64Of = (path: string, max: number, what: string): string => {
  const b64 = readInputFile(path, max).toString('base64');
  // The protocol's base64 has at least one group: an empty file is unreadable as this input.
  return b64 === '' ? fail('input_unreadable', [what]) : b64;
};

export async function remotePreservationSet(
  socket: string,
  o: { unit: string; contract: string; authority?: string[]; incidentHistory?: boolean; home?: string; json?: boolean },
): Promise<CommandResult> {
  refuseLocalOnly(o, ['home']);
  const authority = o.authority ?? [];
  for (const a of authority) if (!RECORD_ID_RE.test(a)) fail('runnerd_request_invalid', ['--authority']);
  const contract = b64Of(o.contract, CONTRACT_FILE_MAX_BYTES, 'contract');
  return remoteResult(socket, { v: 1, op: 'preservation-set', unit: o.unit, contract_b64: contract, authority, incident_history: o.incidentHistory !== false }, o);
}

export async function remotePreservationProbe(
  socket: string,
  o: { unit: string; phase: string; adapter: string; surface?: string; attestors?: string; repo?: string; home?: string; json?: boolean },
): Promise<CommandResult> {
  refuseLocalOnly(o, ['home', 'attestors']);
  if (o.phase !== 'baseline' && o.phase !== 'current') fail('usage_error', ['--phase']);
  const adapter = b64Of(o.adapter, MAX_ADAPTER_BYTES, 'adapter');
  const content = await snapshotContent(o.repo ?? process.cwd());
  return remoteResult(
    socket,
    { v: 1, op: 'preservation-probe', unit: o.unit, phase: o.phase, ...(o.surface === undefined ? {} : { surface: o.surface }), adapter_b64: adapter, content },
    o,
  );
}
