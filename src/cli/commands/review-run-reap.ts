// `governed run reap --unit U` (docs/runner.md#the-run-step-by-step step 3): record stale claims of the unit as ABORTED.
import type { RunReapOutput } from '../../core/command-output-areas.js';
import { reapRunsFlow } from '../../flows/run/reap.js';
import { resolveHome } from '../options.js';
import type { CommandResult } from '../output.js';

export async function runReapCommand(opts: { unit: string; home?: string }): Promise<CommandResult> {
  const r = reapRunsFlow({ home: resolveHome(opts.home), unit: opts.unit, clock: () => Math.floor(Date.now() / 1000) });
  return {
    exit: 0,
    json: { ok: true, unit: r.unit, aborted: r.aborted, bundles_removed: r.bundlesRemoved } satisfies RunReapOutput,
    human: r.aborted.length === 0 ? `unit ${r.unit}: no stale claim` : `unit ${r.unit}: recorded ABORTED ${r.aborted.join(' ')}`,
  };
}
