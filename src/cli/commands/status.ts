// `governed status` (docs/commands.md#what-each-command-guarantees, docs/decision.md#the-rules-in-short): wiring only. Exit 0 whenever the state could be reported.
import { statusFlow } from '../../flows/decide/status.js';
import { statusHuman } from '../../flows/decide/status-output.js';
import { resolveHome } from '../options.js';
import type { CommandResult } from '../output.js';

export async function statusCommand(opts: { unit: string; repo?: string; home?: string }): Promise<CommandResult> {
  const s = await statusFlow({ home: resolveHome(opts.home), unit: opts.unit, repo: opts.repo ?? process.cwd(), clock: () => Math.floor(Date.now() / 1000) });
  return { exit: 0, json: s as unknown as Record<string, unknown>, human: statusHuman(s) };
}
