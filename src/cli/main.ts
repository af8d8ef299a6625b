#!/usr/bin/env node
// The `governed` command line (docs/commands.md#common-behaviour). Wiring only: every action lazily imports its flow so the
// cold start of one command does not pay for another's modules (docs/gate.md#6-the-cold-gate-path).
//
// `governed gate` is the deploy gate, run cold on every release (docs/decision.md#8-delivery-state-and-reason-codes, bench/gate): it is
// routed to its commander-free parser (./commands/gate-argv.ts, kept equal to the commander
// declaration in ./register/decide.ts by test/gate-argv.test.ts) BEFORE commander and the command
// groups load, so its cold start pays for neither. `gate --help` / `-h` stays with commander, which
// prints the one help text. Every other command loads commander and the groups (dynamic imports:
// a static import here would put them on the gate's path; so would the error tables, which the
// gate bundle carries itself). `governed review-run` (run once per review, bench/runner) takes the
// same kind of early route when its argv is one its own parser owns.
import { GOVERNED_VERSION } from '../core/version.js';

const argv = process.argv.slice(2);
// A reader that closes the pipe early (`governed … --help | head`) ends the output, not the command:
// the exit code stays the command's own (docs/commands.md#exit-codes) and later writes are dropped.
for (const s of [process.stdout, process.stderr]) {
  s.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
  });
}

async function main(): Promise<void> {
  const [{ Command, CommanderError }, { EXIT }] = await Promise.all([import('commander'), import('../core/errors.js')]);
  // One register module per command group (parallel work never edits one shared file).
  const groups = await Promise.all([
    import('./register/keys.js'),
    import('./register/store.js'),
    import('./register/unit.js'),
    import('./register/authority.js'),
    import('./register/challenge.js'),
    import('./register/run.js'),
    import('./register/sandbox.js'),
    import('./register/decide.js'),
    import('./register/audit.js'),
    import('./register/review-pass.js'),
    import('./register/preservation.js'),
    import('./register/runnerd.js'),
    import('./register/setup.js'),
    import('./register/contract.js'),
    import('./register/completion.js'),
  ]);
  const program = await buildProgram(Command, groups);
  // A usage error names only what the command tree declares (./usage-error.ts): the refused
  // option or argument, else the command reached, and points to that command's --help.
  const usage = async (message: string): Promise<void> => {
    const { GovernedError } = await import('../core/errors.js');
    const { writeError } = await import('./output.js');
    const { commandReached, declaredNamesIn, suggestionIn } = await import('./usage-error.js');
    const { node, path } = commandReached(program, argv);
    const where = ['governed', ...path].join(' ');
    const names = declaredNamesIn(message, node, program);
    writeError(new GovernedError('usage_error', { ids: names.length > 0 ? names : [where] }), { json: argv.includes('--json') });
    const hint = suggestionIn(message, node, program);
    process.stderr.write(`governed: ${hint === null ? '' : `did you mean ${hint}? `}see \`${where} --help\`\n`);
    process.exitCode = EXIT.usage;
  };
  // An unknown command word is a usage error whatever follows it: commander would otherwise take
  // `governed <unknown> --help` as help of the enclosing group and exit 0.
  if (unknownCommandIn(program, argv)) {
    await usage('');
    return;
  }
  try {
    await program.parseAsync(process.argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version are successes. Help shown because a group was named without its
      // subcommand (`governed unit`) carries exit code 1 from commander: that is a usage error too.
      const ok = e.exitCode === 0 && (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help');
      if (ok) {
        process.exitCode = EXIT.ok;
        return;
      }
      // Every other commander error is a usage error (docs/commands.md#exit-codes: exit 2), reported like every
      // coded error: one JSON object under --json, the code on stderr, never the rejected word.
      // Its ids are the declared flags or arguments that are missing or refused (our text, not the input).
      await usage(e.message);
      return;
    }
    throw e;
  }
}

/** The command tree (docs/commands.md#common-behaviour): every group registered, help examples added. */
async function buildProgram(Command: typeof import('commander').Command, groups: readonly { register(program: import('commander').Command): void }[]) {
  const program = new Command();
  program
    .name('governed')
    .description(
      'Make code-review evidence trustworthy enough to gate a release: one-time challenges, sandboxed ' +
        'allowlisted reviewers, two-signature DSSE/in-toto receipts, a hash-chained log and a fail-closed gate. ' +
        'Exit codes: 0 ok, 1 internal, 2 usage, 3 REVIEW_ONLY, 4 verification, 5 stale/replayed, ' +
        '6 untrusted, 7 no evidence, 8 refused by state, 9 review not clean (see docs/errors.md).',
    )
    .version(GOVERNED_VERSION)
    .exitOverride()
    .showHelpAfterError(false)
    .configureOutput({
      writeErr: (s) => process.stderr.write(s),
      // Commander's own error messages quote the offending word (an unknown option or command, an
      // excess argument, a rejected choice): that word is input and is never echoed (docs/threat-model.md#rules-that-hold-everywhere). The
      // coded usage_error below replaces them — one JSON object on stdout under --json (docs/commands.md#common-behaviour).
      outputError: () => undefined,
    });
  for (const group of groups) group.register(program);
  (await import('./help-examples.js')).addHelpExamples(program);
  return program;
}

interface CommandNode {
  readonly commands: readonly CommandNode[];
  name(): string;
  aliases(): string[];
}

/**
 * Whether the command words of `args` leave the declared command tree: walking from the program,
 * each word that is not an option must name a subcommand of the group reached so far (or `help`
 * at the top). The walk stops at the first leaf command (its own words are its arguments).
 */
function unknownCommandIn(program: CommandNode, args: readonly string[]): boolean {
  let node = program;
  for (const word of args) {
    if (node.commands.length === 0) return false;
    if (word.startsWith('-')) continue;
    if (node === program && word === 'help') return false;
    const next = node.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (next === undefined) return true;
    node = next;
  }
  return false;
}

/**
 * End the process with `code` as soon as everything written to stdout and stderr has left it. The
 * gate has answered by then: its git child is reaped, its store closed, its files written (every
 * step is awaited). Letting the event loop run dry instead made Node wait for V8's background
 * work (optimising compiles, concurrent GC) and free the whole heap before exiting: 20–50 ms of
 * wall time per cold gate doing nothing (bench/house-compare, docs/performance.md#exiting-once-the-answer-is-written).
 * A stream that never drains (its reader went away) leaves the exit to the event loop, with the
 * same code.
 */
function exitOnceWritten(code: number): void {
  process.exitCode = code;
  const pending = [process.stdout, process.stderr].filter((s) => s.writableLength > 0);
  let left = pending.length;
  if (left === 0) process.exit(code);
  for (const s of pending) s.once('drain', () => --left === 0 && process.exit(code));
}

// `gate --runner` (separated mode) takes the commander path: its client code stays out of the lean
// gate bundle (test/gate-cold-imports.test.ts).
const gateRemote = (words: readonly string[]): boolean => words.some((a) => a === '--runner' || a.startsWith('--runner=')) || Boolean(process.env.GOVERNED_RUNNER);
if (argv[0] === 'gate' && !argv.slice(1).some((a) => a === '--help' || a === '-h') && !gateRemote(argv.slice(1))) {
  const { gateMain } = await import('./commands/gate-argv.js');
  exitOnceWritten(await gateMain(argv.slice(1)));
} else if (argv[0] === 'review-run' && (await (await import('./commands/review-run-argv.js')).reviewRunMain(argv.slice(1)))) {
  // Handled without commander: review-run-argv.ts takes only argument lists it parses exactly as
  // commander would (test/runner-perf-argv.test.ts) and leaves help, unknown options and stray
  // words to commander below, so messages and exit codes do not change.
} else {
  // The daemon and its sandbox host bound their young generation before their modules load: loading
  // them had already grown it to 8 MiB when the daemon set the bound itself
  // (docs/performance.md#the-daemons-memory-over-many-runs).
  if (argv[0] === 'runnerd' && (argv[1] === 'serve' || argv[1] === 'sandbox-host')) (await import('../flows/runnerd/young-generation.js')).boundYoungGeneration();
  await main();
}

export {};
