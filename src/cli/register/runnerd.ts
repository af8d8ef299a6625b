// `governed runnerd serve | setup | doctor | hello` (docs/runnerd.md): separated trust mode. Each
// action lazily imports its command module.
import { Option, type Command } from 'commander';
import { runAction } from '../run-action.js';
import { jsonOption, runnerOption } from '../options.js';
import type { RunnerdCommandOptions } from '../commands/runnerd.js';

const common = (c: Command): Command =>
  c
    .addOption(new Option('--dir <dir>', 'base directory of the runner (default: /var/lib/governed)'))
    .addOption(new Option('--socket <path>', 'the Unix socket (default: /run/governed/runnerd.sock)'))
    .addOption(new Option('--user <name>', 'the governed user; the attestor users are <name>-reviewer, <name>-runner, <name>-probe and <name>-log (default: governed)'))
    .requiredOption('--writers <group>', "the writers' group: the only group that may reach the socket");

export function register(program: Command): void {
  const r = program
    .command('runnerd')
    .description(
      'Separated trust mode (docs/runnerd.md): the runner, its attestors, keys and store under their own system users, reached by ' +
        'writers only through one Unix socket that takes IDs and content as git objects. `runnerd setup` (root) creates users, ' +
        'directories and keys; `runnerd serve` (root) starts the daemon, which drops to the governed user; `runnerd doctor` checks ' +
        'every owner and mode; `runnerd hello --runner S` shows who the daemon says you are. Example: ' +
        'sudo governed runnerd setup --writers agents && sudo governed runnerd serve --writers agents',
    );
  registerSetup(r);
  registerServe(r);
  registerDoctor(r);
  registerHello(r);
  registerSandboxHost(r);
}

// `runnerd setup` (docs/runnerd.md#layout).
function registerSetup(r: Command): void {
  common(
    r
      .command('setup')
      .description(
        'As root, idempotently: create the writers group, the governed user and one user per attestor; the directories with their ' +
          'owners and modes (docs/runnerd.md#layout); the pinned attestor programs and configs; one key per credential (--key CRED=FILE ' +
          'installs one, else it is generated) readable only by its attestor user (0400), the log key included: the log attestor user\'s, for ' +
          'the pinned tlog-checkpoint attestor that signs the daemon\'s checkpoints (docs/runnerd.md#checkpoints); with --policy and --trust, the store. ' +
          'Prints what it did (nothing on a second run), the key ids and the digests the policy must pin. ' +
          'Example: sudo governed runnerd setup --writers agents --key reviewer=r.pem --key runner=n.pem. Exit 0 done, 2 not root or a user could not be made.',
      ),
  )
    .option('--key <cred=file...>', 'install this private key (PKCS#8 PEM) for reviewer, runner, probe or log instead of generating one')
    .option('--log-origin <name>', "the name of the daemon's log in its checkpoints (default: governed-runnerd/<hostname>)")
    .option('--reviewer <file...>', 'install this reviewer program into <dir>/reviewers (root 0444)')
    .option('--policy <file>', 'initialise the store with this policy (with --trust)')
    .option('--trust <file>', 'initialise the store with this trust root (with --policy)')
    .addOption(jsonOption())
    .action(async (opts: RunnerdCommandOptions) => {
      await runAction(opts, async () => (await import('../commands/runnerd.js')).runnerdSetupCommand(opts));
    });
}

// `runnerd serve` (docs/runnerd.md#processes-and-users).
function registerServe(r: Command): void {
  common(
    r
      .command('serve')
      .description(
        'As root: check the layout, start one warm attestor per credential under its own user, bind the socket (root:<writers> 0660), ' +
          'drop to the governed user for good, reap claims a previous daemon left (ABORTED) and serve. Prints one JSON line when ready. ' +
          'SIGTERM drains: no new requests, running ones finish. Example: sudo governed runnerd serve --writers agents. ' +
          'Exit 0 after a drain, 2 not root / users missing / addon missing, 4 a wrong owner or mode (see runnerd doctor).',
      ),
  )
    .option('--max-runs <n>', 'review runs in parallel (default: 2)')
    .action(async (opts: RunnerdCommandOptions) => {
      const { runnerdServeCommand } = await import('../commands/runnerd.js');
      process.exitCode = await runnerdServeCommand(opts);
    });
}

// `runnerd doctor` (docs/runnerd.md#layout).
function registerDoctor(r: Command): void {
  common(
    r
      .command('doctor')
      .description(
        'Report every path of the runner layout whose owner, group, type or mode is wrong (by name). Exit 0 all right, 4 findings. ' +
          'Example: governed runnerd doctor --writers agents --json',
      ),
  )
    .addOption(jsonOption())
    .action(async (opts: RunnerdCommandOptions) => {
      await runAction(opts, async () => (await import('../commands/runnerd.js')).runnerdDoctorCommand(opts));
    });
}

// `runnerd hello` (docs/runnerd.md#the-client).
function registerHello(r: Command): void {
  r.command('hello')
    .description("Ask the daemon who it is and who it says you are (uid and pid from the kernel). Exit 0 answered, 2 usage (no --runner), else the code of the connection or of the daemon's refusal (docs/errors.md).")
    .addOption(runnerOption())
    .addOption(jsonOption())
    .action(async (opts: { runner?: string; json?: boolean }) => {
      await runAction(opts, async () => (await import('../commands/runnerd.js')).runnerdHelloCommand(opts));
    });
}

// `runnerd sandbox-host` (docs/runnerd.md#the-sandbox-host).
function registerSandboxHost(r: Command): void {
  // Started by `runnerd serve` itself, as root, under the policy's sandbox uid (docs/runnerd.md#the-sandbox-host);
  // run by hand it is a sandbox runner of the caller's own uid and nothing more.
  r.command('sandbox-host', { hidden: true })
    .description(
      'Internal: the sandbox host `runnerd serve` starts under the policy sandbox uid (docs/runnerd.md#the-sandbox-host). ' +
        'Reads one job per line on stdin, answers one line per job on stdout; ends at end of input. Exit 0 input ended, 1 refused to start (root, or a supplementary group).',
    )

    .action(async () => {
      const { serveSandboxHost } = await import('../../flows/runnerd/sandbox-host.js');
      process.stdout.on('error', () => undefined);
      try {
        await serveSandboxHost(process.stdin, process.stdout);
        process.exitCode = 0;
      } catch {
        process.exitCode = 1;
      }
    });
}
