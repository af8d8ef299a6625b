import { dismissFlow } from '../../flows/authority/dismiss.js';
import type { DismissalOperation } from '../../core/authority/dismissal.js';
import { fail } from '../../core/errors.js';
import { resolveHome } from '../options.js';
import type { CommandResult } from '../output.js';
import type { UnitDismissOutput } from '../../core/command-output-records.js';

export async function unitDismissCommand(
  operation: DismissalOperation,
  opts: { unit: string; authority?: string; ids?: string; dryRun?: boolean; home?: string },
): Promise<CommandResult> {
  const dryRun = opts.dryRun === true;
  // Exactly one of: a record to consume, or (--dry-run) the IDs to plan a request for.
  if (dryRun ? opts.ids === undefined || opts.authority !== undefined : opts.authority === undefined || opts.ids !== undefined) {
    fail('usage_error', [dryRun ? '--ids' : '--authority']);
  }
  const r = dismissFlow({
    home: resolveHome(opts.home),
    unit: opts.unit,
    operation,
    recordId: opts.authority,
    ids: opts.ids?.split(',').filter((s) => s !== ''),
    dryRun,
    now: Math.floor(Date.now() / 1000),
  });
  const json = {
    ok: true,
    dry_run: r.dryRun,
    operation: r.operation,
    unit: r.unit,
    record_id: r.recordId,
    ids: r.ids,
    state_before: r.stateBefore,
    state_after: null,
    consumed_seq: r.consumedSeq,
  } satisfies UnitDismissOutput;
  const human = r.dryRun
    ? `${operation} of ${r.ids.length} IDs on ${r.unit} is possible; request it with\n` +
      `  governed authority request --operation ${operation} --unit ${r.unit} --ids ${r.ids.join(',')} --state-before ${r.stateBefore} --out FILE`
    : `consumed ${r.recordId} (${operation}, ${r.ids.length} IDs) for ${r.unit} at log position ${r.consumedSeq}`;
  return { exit: 0, json, human };
}
