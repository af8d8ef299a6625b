// `governed setup` and `governed doctor` (docs/setup.md). Each action lazily imports its command module.
import { Option, type Command } from 'commander';
import { runAction } from '../run-action.js';
import { homeOption, jsonOption } from '../options.js';
import type { DoctorOptions } from '../commands/doctor.js';

export function register(program: Command): void {
  program
    .command('setup')
    .description(
      'Set up governed on this machine in one command (docs/setup.md): an Ed25519 key per credential (reviewer, runner, ' +
        'gate, log, authority, probe; DIR/keys, private keys 0600, never overwritten), the trust root (DIR/trust.json, each key for ' +
        'its one role, valid one year), an attestor configuration per signing credential (DIR/attestors), and a policy from ' +
        'the chosen template with this machine\'s real digests (DIR/policy.yaml: bwrap, sandbox profiles, seccomp blob, the ' +
        'shipped reviewers and attestor, the configurations, the key ids); then `init` of the state directory. Prints the ' +
        'policy digest and the exact `gate` line the deploy side runs. A file already there is kept when it is exactly what ' +
        'setup would make and refused otherwise, so running it again on a finished DIR changes nothing and says so. ' +
        'Exit 0 set up (or already set up), 2 usage, bwrap missing or unusable, a file in the way or not writable, 4 a key ' +
        'file readable by others, 5 trust root expired, 6 bwrap setuid or writable by others, 8 the state directory pins ' +
        'other documents.',
    )
    .requiredOption('--out <dir>', 'the setup directory (created if missing)')
    .addOption(new Option('--policy-template <name>', 'the shipped policy template').choices(['default', 'strict']).default('default'))
    .option('--no-init', 'make the files only; do not initialise the state directory')
    .option('--waive-preservation <reason>', 'write `preservation: { waived: REASON }` into the policy (shown in every decision; docs/preservation.md)')
    .option('--bwrap <path>', 'absolute path of the bubblewrap binary', '/usr/bin/bwrap')
    .option('--reviewers-dir <dir>', 'where the reviewer programs are (default: $GOVERNED_REVIEWERS_DIR, else the shipped ones)')
    .addOption(homeOption())
    .addOption(jsonOption())
    .action(async (opts: { out: string; policyTemplate: string; init: boolean; waivePreservation?: string; bwrap?: string; reviewersDir?: string; home?: string; json?: boolean }) => {
      await runAction(opts, async () => (await import('../commands/setup.js')).setupCommand(opts));
    });

  program
    .command('doctor')
    .description(
      'Check a finished setup (docs/setup.md "doctor") and name each problem by its code: a file missing, a private key ' +
        'not 0600 or not owned by you, the trust root expired, a key that the trust root, an attestor configuration and ' +
        'the policy do not all name, a reviewer or attestor program or configuration whose sha256 changed, bwrap ' +
        'missing or changed, user namespaces unusable, a state directory that pins other documents. Read-only. ' +
        'Exit 0 no problem, else the exit code of the most severe problem (docs/errors.md precedence). ' +
        'With --runnerd DIR --writers GROUP (separated mode, docs/runnerd.md#layout; as root or any user that can stat the layout) ' +
        'the runnerd_layout check names every missing account and every path whose owner, group, type or mode is wrong ' +
        '(runnerd_state_unsafe [path:problem]); --dir and --runnerd may be given together, one of them is required.',
    )
    .option('--dir <dir>', 'the setup directory made by `governed setup --out` (co-located checks)')
    .option('--runnerd <dir>', 'the runnerd base directory (separated-mode checks, with --writers)')
    .option('--writers <group>', 'with --runnerd: the writers\' group given to `governed runnerd setup`')
    .option('--runnerd-user <name>', 'with --runnerd: the daemon user (default: governed)')
    .option('--socket <path>', 'with --runnerd: the daemon socket (default: /run/governed/runnerd.sock)')
    .option('--bwrap <path>', 'absolute path of the bubblewrap binary', '/usr/bin/bwrap')
    .option('--reviewers-dir <dir>', 'where the reviewer programs are (default: $GOVERNED_REVIEWERS_DIR, else the shipped ones)')
    .addOption(homeOption())
    .addOption(jsonOption())
    .action(async (opts: DoctorOptions & { json?: boolean }) => {
      await runAction(opts, async () => (await import('../commands/doctor.js')).doctorCommand(opts));
    });
}
