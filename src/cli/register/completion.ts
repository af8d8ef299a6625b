// `governed completion bash` (docs/commands.md#shell-completion): print the completion script
// generated from this very command tree (../completion.ts). Reads nothing, writes only stdout.
import type { Command } from 'commander';
import { runAction } from '../run-action.js';
import { jsonOption } from '../options.js';

export function register(program: Command): void {
  const completion = program
    .command('completion')
    .description('Shell completion generated from the command tree (docs/commands.md#shell-completion).');
  completion
    .command('bash')
    .description(
      'Print the bash completion script on stdout (with --json: inside {ok, shell, script}): command words, each ' +
        'command\'s options, the declared choices of an option, and file names for other option values. It reads no ' +
        'state directory, and completing runs nothing but the script. Exit 0 printed, 2 usage.',
    )
    .addOption(jsonOption())
    .action(async (opts: { json?: boolean }) => {
      await runAction(opts, async () => {
        const { bashCompletionScript } = await import('../completion.js');
        const script = bashCompletionScript(program);
        return { exit: 0, json: { ok: true, shell: 'bash', script } satisfies import('../../core/command-output-records.js').CompletionOutput, human: script };
      });
    });
  completion
    .command('zsh')
    .description(
      'Print the zsh completion script on stdout (with --json: inside {ok, shell, script}): a compsys function over the same ' +
        'generated tables as bash (command words, options, declared choices, file names). Install it as _governed in a directory ' +
        'of $fpath, or source it after compinit. It reads no state directory. Exit 0 printed, 2 usage.',
    )
    .addOption(jsonOption())
    .action(async (opts: { json?: boolean }) => {
      await runAction(opts, async () => {
        const { zshCompletionScript } = await import('../completion.js');
        const script = zshCompletionScript(program);
        return { exit: 0, json: { ok: true, shell: 'zsh', script } satisfies import('../../core/command-output-records.js').CompletionOutput, human: script };
      });
    });
}
