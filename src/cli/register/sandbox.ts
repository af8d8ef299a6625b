// Commands of the sandbox group (docs/commands.md#what-each-command-guarantees). Each action lazily imports its command module.
import type { Command } from 'commander';
import { runAction } from '../output.js';
import { jsonOption } from '../options.js';

export function register(program: Command): void {
  const sandbox = program
    .command('sandbox')
    .description('Inspect the bubblewrap sandbox that reviewers run in (docs/runner.md#the-run-step-by-step, docs/sandbox.md).');

  sandbox
    .command('profile')
    .description(
      'Print what a policy must allowlist to let reviewers run: the bubblewrap path, version and sha256 ' +
        '(sandbox.bwrap_sha256), the static sandbox profile and its digest (sandbox.profile_sha256), and the ' +
        'seccomp blob digest (sandbox.seccomp_sha256). Reads no state; runs only `bwrap --version`. ' +
        'Refuses a missing, non-executable, setuid or group/other-writable bwrap, one older than 0.8.0, ' +
        'and any architecture but x86_64. ' +
        'Exit 0 ok, 2 bwrap missing/not executable/too old/unusable or unsupported architecture, ' +
        '4 bwrap changed while hashed, 6 bwrap setuid or writable by others, 1 internal.',
    )
    .option('--bwrap <path>', 'absolute path of the bubblewrap binary', '/usr/bin/bwrap')
    .addOption(jsonOption())
    .action(async (opts: { bwrap?: string; json?: boolean }) => {
      await runAction(opts, async () => (await import('../commands/sandbox-profile.js')).sandboxProfileCommand(opts));
    });
}
