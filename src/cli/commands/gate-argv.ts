// The lean entry of `governed gate` (docs/gate.md#6-the-cold-gate-path: node:util parseArgs
// instead of commander; bench/gate). It parses exactly the options `register/decide.ts` declares for
// `gate` — same names, same arity, nothing else — so an entry point may route `governed gate ...`
// here without loading commander and every other command group. `--help` stays with commander
// (the entry routes it there). A usage error exits 2 (docs/commands.md#exit-codes) with the one decision object on
// stdout under --json, like every other gate failure.
import { parseArgs } from 'node:util';
import { GovernedError } from '../../core/errors.js';
import { errorJson, gateHuman, GATE_SCHEMA_VERSION } from '../../flows/decide/gate-output.js';
import { writeResult } from '../output.js';
import { gateCommand, type GateOptions } from './gate.js';
import type { GateResultJson } from '../../flows/decide/gate.js';
import { withSnakeTwins } from '../../core/json-style.js';
import type { GateCamelJson } from '../../core/command-output.js';

/** The `gate` options of register/decide.ts, as parseArgs declarations (kept equal by test/gate-argv.test.ts). */
export const GATE_ARGV_OPTIONS = {
  unit: { type: 'string' },
  trust: { type: 'string' },
  'policy-digest': { type: 'string' },
  subject: { type: 'string' },
  repo: { type: 'string' },
  attest: { type: 'string' },
  attestors: { type: 'string' },
  'attestor-config': { type: 'string' },
  attestor: { type: 'string' },
  export: { type: 'string' },
  runner: { type: 'string' },
  // Meaningful with --runner only (commander's path): here they are refused, never ignored.
  'runner-checkpoint': { type: 'string' },
  'runner-checkpoint-out': { type: 'string' },
  home: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** True when `argv` (after `gate`) asks for help: commander prints it. */
export function wantsHelp(argv: readonly string[]): boolean {
  return argv.some((a) => a === '--help' || a === '-h');
}

function usageDecision(ids: readonly string[] = []): GateResultJson {
  const e = new GovernedError('usage_error', { ids: [...ids] });
  return withSnakeTwins({
    ok: false,
    schemaVersion: GATE_SCHEMA_VERSION,
    command: 'gate',
    decision: 'DENY',
    exit: e.exit,
    state: null,
    unit: null,
    trustMode: 'co-located',
    subject: { commit: null, manifestDigest: null },
    policyDigest: null,
    trustDigest: null,
    gateTrustDigest: null,
    evaluatedAt: new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    reasons: [],
    preservationWaiver: null,
    current: null,
    reliedOn: null,
    attestation: null,
    export: null,
    error: errorJson(e),
  } satisfies GateCamelJson);
}

/** Run `gate` from its argv (the words after `gate`); returns the exit code. Never throws. */
export async function gateMain(argv: readonly string[]): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  const json = argv.includes('--json');
  try {
    values = parseArgs({ args: [...argv], options: GATE_ARGV_OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (e) {
    // The offending word is input: it is never echoed (docs/threat-model.md#rules-that-hold-everywhere).
    // The ids name a declared option whose value is missing, else the command (docs/commands.md#usage-errors).
    const flag = /^Option '--([a-z][a-z-]*)[ ']/.exec((e as Error)?.message ?? '')?.[1];
    const d = usageDecision([flag !== undefined && Object.prototype.hasOwnProperty.call(GATE_ARGV_OPTIONS, flag) ? `--${flag}` : 'governed gate']);
    process.stderr.write(`governed: error usage_error: ${d.error?.message ?? ''} [${d.error?.ids.join(', ') ?? ''}]\ngoverned: see \`governed gate --help\`\n`);
    writeResult({ exit: 2, json: d as unknown as Record<string, unknown>, human: gateHuman(d) }, { json });
    return 2;
  }
  // --runner is routed to commander by src/cli/main.ts; here it would be ignored, so it is refused,
  // and so are the options that only mean something with it.
  const runnerOnly = values['runner-checkpoint'] !== undefined ? '--runner-checkpoint' : values['runner-checkpoint-out'] !== undefined ? '--runner-checkpoint-out' : null;
  if (values.runner !== undefined || process.env.GOVERNED_RUNNER || runnerOnly !== null) {
    const d = usageDecision(runnerOnly === null ? [] : [runnerOnly]);
    process.stderr.write(`governed: error usage_error: ${d.error?.message ?? ''}\n`);
    writeResult({ exit: 2, json: d as unknown as Record<string, unknown>, human: gateHuman(d) }, { json });
    return 2;
  }
  const opts: GateOptions = {
    unit: values.unit as string | undefined,
    trust: values.trust as string | undefined,
    policyDigest: values['policy-digest'] as string | undefined,
    subject: values.subject as string | undefined,
    repo: values.repo as string | undefined,
    attest: values.attest as string | undefined,
    attestors: values.attestors as string | undefined,
    attestorConfig: values['attestor-config'] as string | undefined,
    attestor: values.attestor as string | undefined,
    export: values.export as string | undefined,
    home: values.home as string | undefined,
    json: values.json === true,
  };
  try {
    const result = await gateCommand(opts);
    writeResult(result, { json: opts.json });
    return result.exit;
  } catch {
    // gateFlow never throws; anything here is a bug: deny with exit 1, never 0.
    process.stderr.write('governed: error internal_error\n');
    return 1;
  }
}
