// `governed contract init` (docs/contract-init.md). The action lazily imports its command module.
import { Option, type Command } from 'commander';
import { runAction } from '../run-action.js';
import { jsonOption } from '../options.js';

export function register(program: Command): void {
  const contract = program.command('contract').description('Request contracts (docs/contract.md): make a skeleton to fill in.');
  contract
    .command('init')
    .description(
      'Write a request-contract skeleton for the given request files (docs/contract-init.md): atoms that tile each source ' +
        'byte for byte (UTF-8 safe), one directive per obligation atom with its statement copied verbatim, and placeholders ' +
        '(values starting with <<FILL-IN) for the title, target, criterion, implementation and evidence that `unit create` ' +
        'refuses until filled in (contract_fill_in_left, naming each field path). Reads only the sources; writes only ' +
        '--out (never overwritten), else prints the skeleton. ' +
        'Exit 0 written, 2 usage, a source that is not a normalized repository-relative path of a readable UTF-8 file, or an ' +
        'output that exists or cannot be written.',
    )
    .requiredOption('--source <path...>', 'request files, relative to --repo (each becomes one directive-class source)')
    .addOption(new Option('--atoms <mode>', 'how atoms split a source').choices(['line', 'paragraph', 'sentence']).default('paragraph'))
    .option('--title <text>', 'the contract title (else a placeholder)')
    .option('--out <file>', 'write the skeleton here (exclusive create) instead of stdout')
    .option('--repo <dir>', 'repository top level the source paths are relative to (default: the current directory)')
    .addOption(jsonOption())
    .action(async (opts: { source: string[]; atoms: string; title?: string; out?: string; repo?: string; json?: boolean }) => {
      await runAction(opts, async () => (await import('../commands/contract-init.js')).contractInitCommand(opts));
    });
}
