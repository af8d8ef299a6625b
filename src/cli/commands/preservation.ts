import { checkPreservationFlow, parseOrigins, vendorAttestFlow } from '../../flows/preservation/check.js';
import type { PreservationCheckOutput, PreservationCorrectOutput, PreservationProbeOutput, PreservationSetOutput, PreservationVendorAttestOutput } from '../../core/command-output-areas.js';
import { correctIncidentFlow } from '../../flows/preservation/correct.js';
import { setPreservationFlow } from '../../flows/preservation/set.js';
import { probePreservationFlow, type ProbeSandbox, type ProbeSigner } from '../../flows/preservation/probe.js';
import { fail } from '../../core/errors.js';
import { resolveHome } from '../options.js';
import type { CommandResult } from '../output.js';
import type { Separation } from '../../core/receipt-predicate.js';

/** The contract's dispositions and the rules' codes are typed as strings upstream; the schema names them (test/schemas-command-output-areas.test.ts judges real output). */
type Check = PreservationCheckOutput;

const now = (): number => Math.floor(Date.now() / 1000);

export async function preservationSetCommand(opts: { unit: string; contract: string; authority?: string[]; incidentHistory?: boolean; home?: string }): Promise<CommandResult> {
  const r = setPreservationFlow({
    home: resolveHome(opts.home),
    unit: opts.unit,
    contractFile: opts.contract,
    authorities: opts.authority ?? [],
    noIncidentHistory: opts.incidentHistory === false,
    now: now(),
  });
  return {
    exit: 0,
    json: {
      ok: true,
      unit: r.unit,
      version: r.version,
      contract_digest: r.contractDigest,
      incident_history: r.incidentHistory,
      additions: r.additions,
      narrowing: r.narrowing,
      authorities: r.authorities,
    } satisfies PreservationSetOutput,
    human: [
      `bound preservation contract version ${r.version} of ${r.unit}`,
      `  contract digest  ${r.contractDigest}`,
      `  incident history ${r.incidentHistory}`,
      `  authorities (${r.authorities.length})${r.authorities.length > 0 ? `: ${r.authorities.join(' ')}` : ''}`,
    ].join('\n'),
  };
}

export async function preservationCorrectCommand(opts: { unit: string; file: string; home?: string }): Promise<CommandResult> {
  const r = correctIncidentFlow({ home: resolveHome(opts.home), unit: opts.unit, file: opts.file, now: now() });
  return {
    exit: 0,
    json: { ok: true, unit: r.unit, correction: r.correctionDigest, version: r.version, incident_history: r.incidentHistory } satisfies PreservationCorrectOutput,
    human: `recorded correction ${r.correctionDigest} for ${r.unit}; incident history ${r.incidentHistory}`,
  };
}

export async function preservationCheckCommand(opts: { unit: string; origin?: string[]; repo?: string; home?: string }): Promise<CommandResult> {
  const r = await checkPreservationFlow({
    home: resolveHome(opts.home),
    unit: opts.unit,
    repo: opts.repo ?? process.cwd(),
    origins: parseOrigins(opts.origin ?? []),
    now: now(),
  });
  const violations = r.report === null ? [{ code: 'preservation_contract_missing', ids: [] as readonly string[] }] : r.report.violations;
  const satisfied = violations.length === 0;
  const lines = [
    `${r.unit}: preservation ${satisfied ? 'satisfied' : 'NOT satisfied'}${r.required ? '' : ` (waived by the policy: ${r.waiver ?? ''})`}`,
    ...(r.report?.surfaces ?? []).map(
      (s) => `  ${s.id} ${s.disposition} diff ${s.diffDigest} baseline ${s.baselineProbe ?? '-'} current ${s.currentProbe ?? '-'}${s.violations.length > 0 ? ` ${s.violations.join(',')}` : ''}`,
    ),
    ...violations.map((v) => `  reason ${v.code}${v.ids.length > 0 ? ` [${v.ids.join(', ')}]` : ''}`),
    // Writer-side: the repository-relative paths the writer must cover with a surface.
    ...r.uncoveredPaths.map((p) => `  uncovered ${p}`),
  ];
  return {
    exit: satisfied ? 0 : 3,
    json: {
      ok: satisfied,
      unit: r.unit,
      required: r.required,
      waiver: r.waiver,
      binding: r.binding === null ? null : { version: r.binding.version, contract_digest: r.binding.contractDigest, incident_history: r.binding.incidentHistory },
      surfaces: (r.report?.surfaces ?? []).map((s) => ({
        id: s.id,
        disposition: s.disposition as Check['surfaces'][number]['disposition'],
        diff_digest: s.diffDigest,
        baseline_probe: s.baselineProbe,
        current_probe: s.currentProbe,
        violations: s.violations as Check['reasons'][number]['code'][],
      })),
      reasons: violations.map((v) => ({ code: v.code as Check['reasons'][number]['code'], ids: v.ids })),
    } satisfies PreservationCheckOutput,
    human: lines.join('\n'),
  };
}

export async function preservationProbeCommand(
  opts: { unit: string; phase: string; adapter: string; surface?: string; attestors?: string; repo?: string; home?: string },
  /** Separated mode only (the daemon, docs/runnerd.md#probes-through-the-daemon): the adapter's bytes and who asked. */
  separated?: { adapterBytes: Buffer; separation: Separation; sandbox?: ProbeSandbox; signer: ProbeSigner },
): Promise<CommandResult> {
  if (opts.phase !== 'baseline' && opts.phase !== 'current') fail('usage_error', ['--phase']);
  const r = await probePreservationFlow({
    home: resolveHome(opts.home),
    unit: opts.unit,
    repo: opts.repo ?? process.cwd(),
    phase: opts.phase,
    surface: opts.surface ?? null,
    adapter: opts.adapter,
    ...(opts.attestors !== undefined ? { attestorsDir: opts.attestors } : {}),
    ...(separated === undefined ? {} : separated),
    now: now(),
  });
  return {
    exit: 0,
    json: {
      ok: true,
      unit: r.unit,
      phase: r.phase,
      snapshot_digest: r.snapshotDigest,
      inventory: r.inventory,
      probes: r.probes.map((p) => ({ surface: p.surface, receipt: p.receipt, exit_code: p.exitCode, capabilities: p.capabilities })),
    } satisfies PreservationProbeOutput,
    human: [
      `probed ${r.probes.length} surface(s) of ${r.unit} on the ${r.phase} snapshot ${r.snapshotDigest}`,
      ...(r.inventory !== null ? [`  inventory: ${r.inventory} surface(s) discovered`] : []),
      ...r.probes.map((p) => `  ${p.surface} exit ${p.exitCode} capabilities ${p.capabilities.length} receipt ${p.receipt}`),
    ].join('\n'),
  };
}

export async function preservationVendorAttestCommand(opts: { unit: string; origin: string[]; repo?: string; home?: string }): Promise<CommandResult> {
  const r = await vendorAttestFlow({ home: resolveHome(opts.home), unit: opts.unit, repo: opts.repo ?? process.cwd(), origins: parseOrigins(opts.origin), now: now() });
  return { exit: 0, json: { ok: true, unit: r.unit, vendors: r.vendors } satisfies PreservationVendorAttestOutput, human: `attested vendor origin(s) of ${r.unit}: ${r.vendors.join(' ')}` };
}
