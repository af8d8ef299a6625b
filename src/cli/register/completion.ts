// `governed completion bash` (docs/commands.md#shell-completion): print the completion script
// generated from this very command tree (../completion.ts). Reads nothing, writes only stdout.
import type { Command } from 'commander';

export function register(program: Command): void {
  const completion = program
    .command('completion')
    .description('Shell completion generated from the command tree (docs/commands.md#shell-completion).');
  completion
    .command('bash')
    .description(
      'Print the bash completion script on stdout: command words, each command\'s options, the declared choices of an ' +
        'option, and file names for other option values. It reads no state directory and runs nothing when you complete. ' +
        'Exit 0 printed, 2 usage.',
    )
    .action(async () => {
      const { bashCompletionScript } = await import('../completion.js');
      process.stdout.write(bashCompletionScript(program));
    });
}
