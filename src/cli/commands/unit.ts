import { bindUnitFlow } from '../../flows/unit-bind.js';
import { createUnitFlow } from '../../flows/unit-create.js';
import { resolveHome } from '../options.js';
import type { CommandResult } from '../output.js';
import type { UnitBindOutput, UnitCreateOutput } from '../../core/command-output-records.js';

const now = (): number => Math.floor(Date.now() / 1000);

export async function unitCreateCommand(opts: { contract: string; baseline: string; repo?: string; home?: string }): Promise<CommandResult> {
  const r = await createUnitFlow({
    home: resolveHome(opts.home),
    contractFile: opts.contract,
    baseline: opts.baseline,
    repo: opts.repo ?? process.cwd(),
    now: now(),
  });
  return {
    exit: 0,
    json: {
      ok: true,
      unit: r.unitId,
      baseline: { commit: r.baselineCommit, tree: r.baselineTree },
      scope_version: r.scopeVersion,
      scope_epoch: r.scopeEpoch,
      work_revision: r.workRevision,
      contract_digest: r.contractDigest,
      sources_digest: r.sourcesDigest,
    } satisfies UnitCreateOutput,
    human: r.unitId,
  };
}

export async function unitBindCommand(opts: {
  unit: string;
  contract: string;
  authority?: string[];
  dryRun?: boolean;
  repo?: string;
  home?: string;
}): Promise<CommandResult> {
  const r = await bindUnitFlow({
    home: resolveHome(opts.home),
    unit: opts.unit,
    contractFile: opts.contract,
    repo: opts.repo ?? process.cwd(),
    authorities: opts.authority ?? [],
    dryRun: opts.dryRun === true,
    now: now(),
  });
  const list = (name: string, ids: readonly string[]): string => `  ${name} (${ids.length})${ids.length > 0 ? `: ${ids.join(' ')}` : ''}`;
  return {
    exit: 0,
    json: {
      ok: true,
      dry_run: r.dryRun,
      unit: r.unit,
      scope_version: r.scopeVersion,
      scope_epoch: r.scopeEpoch,
      work_revision: r.workRevision,
      scope_changed: r.scopeChanged,
      additions: r.additions,
      narrowing: r.narrowing,
      progress: r.progress,
      authorities: r.authorities,
      contract_digest: r.contractDigest,
      state_before: r.stateBefore,
      state_after: r.stateAfter,
      ...(r.dryRun ? { validation: r.validation === null ? { ok: true } : { ok: false, code: r.validation.code, ids: r.validation.ids } } : {}),
      ...(r.dryRun ? { uncovered_changes: r.uncoveredChanges ?? [] } : {}),
    } satisfies UnitBindOutput,
    human: [
      `${r.dryRun ? 'would bind' : 'bound'} scope version ${r.scopeVersion} of ${r.unit} (scope epoch ${r.scopeEpoch}, work revision ${r.workRevision})`,
      list('additions', r.additions),
      list('narrowing', r.narrowing),
      list('progress', r.progress),
      list('authorities', r.authorities),
      `  state before ${r.stateBefore}`,
      `  state after  ${r.stateAfter}`,
      ...(r.dryRun ? [`  validation ${r.validation === null ? 'ok' : `${r.validation.code} [${r.validation.ids.join(', ')}]`}`] : []),
      ...(r.dryRun ? uncoveredLines(r.uncoveredChanges ?? []) : []),
    ].join('\n'),
  };
}

/** Writer-side lines naming each changed path no live directive covers (docs/contract-init.md). */
export function uncoveredLines(paths: readonly string[]): string[] {
  if (paths.length === 0) return ['  uncovered changes: none'];
  return [`  uncovered changes (${paths.length}): review-challenge refuses them (contract_change_uncovered) until a target, implementation or evidence path covers each`, ...paths.map((p) => `    ${p}`)];
}
