// `governed gate` (SPEC §10.3): wiring only. The flow never throws; its decision object is printed
// as is (--json: exactly one object, also on failure), and an error is also named on stderr.
import { dirname, join, resolve } from 'node:path';
import { gateFlow } from '../../flows/decide/gate.js';
import { gateHuman } from '../../flows/decide/gate-output.js';
import type { ExitCode } from '../../core/errors.js';
import { resolveHome } from '../options.js';
import type { CommandResult } from '../output.js';
import type { GateOptions } from '../register/decide.js';

/** governed's version, carried into the VSA's verifier (kept equal to main.ts `.version`). */
export const GOVERNED_VERSION = '0.1.0';

/** The attestor shipped with governed, next to dist/ (`attestors/ed25519-file.mjs`). */
function defaultAttestor(): string {
  const cli = process.argv[1] ?? '';
  return join(dirname(resolve(cli)), '..', 'attestors', 'ed25519-file.mjs');
}

export async function gateCommand(opts: GateOptions): Promise<CommandResult> {
  const d = await gateFlow({
    home: resolveHome(opts.home),
    unit: opts.unit,
    trustFile: opts.trust,
    policyDigest: opts.policyDigest,
    subject: opts.subject,
    repo: opts.repo ?? process.cwd(),
    attest: opts.attest,
    attestor: opts.attest === undefined ? undefined : (opts.attestor ?? defaultAttestor()),
    attestorConfig: opts.attestorConfig,
    version: GOVERNED_VERSION,
    clock: () => Math.floor(Date.now() / 1000),
  });
  if (d.error !== null) {
    const ids = d.error.ids.length > 0 ? ` [${d.error.ids.join(', ')}]` : '';
    process.stderr.write(`governed: error ${d.error.code}: ${d.error.message}${ids}\n`);
  }
  return { exit: d.exit as ExitCode, json: d as unknown as Record<string, unknown>, human: gateHuman(d) };
}
