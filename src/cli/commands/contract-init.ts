import { contractInitFlow } from '../../flows/contract-init.js';
import type { AtomMode } from '../../core/contract/skeleton.js';
import type { CommandResult } from '../output.js';
import type { ContractInitOutput } from '../../core/command-output-records.js';

export async function contractInitCommand(opts: { source: string[]; atoms: string; title?: string; out?: string; repo?: string }): Promise<CommandResult> {
  const r = contractInitFlow({ repo: opts.repo ?? process.cwd(), sources: opts.source, mode: opts.atoms as AtomMode, title: opts.title, out: opts.out });
  const summary = {
    ok: true,
    command: 'contract init',
    out: r.out,
    sources: r.sources,
    atoms: r.atoms,
    directives: r.directives,
    placeholders: r.placeholders,
    ...(r.out === null ? { contract: r.yaml } : {}),
  } satisfies ContractInitOutput;
  const human =
    r.out === null
      ? r.yaml
      : `wrote ${r.out}: ${r.sources} source(s), ${r.atoms} atom(s), ${r.directives} directive(s); ${r.placeholders.length} placeholder(s) to fill:\n` +
        r.placeholders.map((p) => `  ${p}`).join('\n');
  return { exit: 0, json: summary, human };
}
