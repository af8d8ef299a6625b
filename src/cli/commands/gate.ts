// `governed gate` (docs/decision.md#8-delivery-state-and-reason-codes): wiring only. The flow never throws; its decision object is printed
// as is (--json: exactly one object, also on failure), and an error is also named on stderr.
import { gateFlow } from '../../flows/decide/gate.js';
import { gateHuman } from '../../flows/decide/gate-output.js';
import type { ExitCode } from '../../core/errors.js';
import { GOVERNED_VERSION } from '../../core/version.js';
import type { CommandResult } from '../output.js';
import { resolveHome } from '../home.js';

export interface GateOptions {
  unit?: string;
  trust?: string;
  policyDigest?: string;
  subject?: string;
  repo?: string;
  attest?: string;
  attestors?: string;
  attestorConfig?: string;
  attestor?: string;
  export?: string;
  home?: string;
  json?: boolean;
  /** Separated mode: judge a copy of the daemon's store (docs/runnerd.md "The deploy side"). */
  runner?: string;
  /** With --runner: checkpoints of the daemon's log the copy must extend (docs/runnerd.md "Checkpoints"). */
  runnerCheckpoint?: string[];
  /** With --runner: write the newest verified checkpoint the copy extends to this new file. */
  runnerCheckpointOut?: string;
}


/** Separated mode: where the copy of the daemon's store comes from (./gate-remote.ts, wired by the commander path only). */
export type StoreCopySource = (unit: string) => Promise<{ home: string; dispose: () => void }>;

export async function gateCommand(opts: GateOptions, storeCopy?: StoreCopySource): Promise<CommandResult> {
  const d = await gateFlow({
    home: resolveHome(opts.home),
    unit: opts.unit,
    trustFile: opts.trust,
    policyDigest: opts.policyDigest,
    subject: opts.subject,
    repo: opts.repo ?? process.cwd(),
    attest: opts.attest,
    attestorsDir: opts.attestors,
    attestor: opts.attestor,
    attestorConfig: opts.attestorConfig,
    export: opts.export,
    version: GOVERNED_VERSION,
    clock: () => Math.floor(Date.now() / 1000),
    storeCopy,
  });
  if (d.error !== null) {
    const ids = d.error.ids.length > 0 ? ` [${d.error.ids.join(', ')}]` : '';
    process.stderr.write(`governed: error ${d.error.code}: ${d.error.message}${ids}\n`);
  }
  // The deploy record (--export) is this command's field of the decision object (docs/gate.md).
  const human = d.export === null ? gateHuman(d) : `${gateHuman(d)}  deploy record     ${d.export.path} (manifest ${d.export.manifestDigest})\n`;
  return { exit: d.exit as ExitCode, json: d as unknown as Record<string, unknown>, human };
}
