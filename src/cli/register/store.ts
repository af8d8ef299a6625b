// `governed init` (docs/commands.md#what-each-command-guarantees, docs/state.md#the-store). Each action lazily imports its command module.
import type { Command } from 'commander';
import { runAction } from '../output.js';
import { homeOption, jsonOption } from '../options.js';

export function register(program: Command): void {
  program
    .command('init')
    .description(
      'Create the state directory (0700) with its SQLite store (WAL, synchronous=FULL, foreign keys) and bundles/ (0700), ' +
        'and pin the policy and the trust root (canonical digests and exact bytes, first log entry). Both files are required: ' +
        'the policy must pass its strict schema, the trust root must be valid and unexpired, and every policy credential must ' +
        'name a key the trust root holds for that role. Refuses to run twice. ' +
        'Exit 0 initialised, 2 invalid or unreadable input, 5 trust root expired, 6 a policy credential not in the trust root, ' +
        '8 already initialised, 4 unsafe state directory permissions.',
    )
    .requiredOption('--policy <file>', 'policy (YAML or JSON, docs/policy.md#policy-and-trust-root), e.g. policies/default.yaml')
    .requiredOption('--trust <file>', 'trust root (YAML or JSON, docs/policy.md#policy-and-trust-root), e.g. keys.example/trust.yaml')
    .addOption(homeOption())
    .addOption(jsonOption())
    .action(async (opts: { policy: string; trust: string; home?: string; json?: boolean }) => {
      await runAction(opts, async () => (await import('../commands/init.js')).initCommand(opts));
    });
}
