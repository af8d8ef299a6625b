// `governed review-challenge` (docs/commands.md#what-each-command-guarantees, docs/bundle.md#the-review-bundle, docs/decision.md#the-rules-in-short). The action lazily imports its command module.
import type { Command } from 'commander';
import { STAGES } from '../../core/review-vocabulary.js';
import { runAction } from '../run-action.js';
import { homeOption, jsonOption, runnerOption } from '../options.js';
import { progressOption } from '../progress.js';

export function register(program: Command): void {
  program
    .command('review-challenge')
    .description(
      'Issue a one-time, expiring review challenge for one slot of a stage. The policy fixes the reviewer of the slot. ' +
        'Sweeps expired leases and challenges (logged), re-hashes the whole workspace, re-validates the bound contract, ' +
        'checks change coverage, builds the private bundle (planning: from the baseline tree only) or the role view, writes it ' +
        'once with mode 0600 to <home>/bundles/<challenge>.json and records the challenge with every bound digest. Prints only ' +
        '{ok, challenge_id, stage, slot, expires_at}. With --policy/--trust (or GOVERNED_POLICY/GOVERNED_TRUST) the files the ' +
        'deployment holds must equal the pinned ones. ' +
        'Exit 0 issued, 2 unknown stage/slot or invalid input, 4 policy/trust/scope drift or a file changed while hashing, ' +
        '5 trust root expired, 7 unknown unit, 8 an active lease, an unregistered writer, uncovered changes, an exhausted run ' +
        'budget, an empty view or a bundle over max_bundle.',
    )
    .requiredOption('--unit <id>', 'unit id (UNIT-…)')
    .requiredOption('--writer-session <id>', 'registered writer session asking for the review')
    .requiredOption('--stage <stage>', STAGES.join(' | '))
    .requiredOption('--slot <slot>', 'slot of the stage in the policy (a role for planning/integration)')
    .option('--repo <dir>', 'repository top level (default: the current directory)')
    .option('--policy <file>', 'the policy the deployment holds now; must equal the pinned one (default: $GOVERNED_POLICY)')
    .option('--trust <file>', 'the trust root the deployment holds now; must equal the pinned one (default: $GOVERNED_TRUST)')
    .addOption(runnerOption())
    .addOption(homeOption())
    .addOption(jsonOption())
    .addOption(progressOption())
    .action(
      async (opts: {
        unit: string;
        writerSession: string;
        stage: string;
        slot: string;
        repo?: string;
        policy?: string;
        trust?: string;
        home?: string;
        json?: boolean;
        runner?: string;
        progress?: boolean;
      }) => {
        await runAction(opts, async () => {
          const s = (await import('../runnerd/client.js')).runnerSocket(opts.runner);
          if (s !== undefined) return (await import('../runnerd/remote-commands.js')).remoteReviewChallenge(s, opts);
          return (await import('../commands/challenge.js')).reviewChallengeCommand(opts);
        });
      },
    );
}
