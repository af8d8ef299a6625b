#!/usr/bin/env node
// The `governed` command line (SPEC §4). Wiring only: every action lazily imports its flow so the
// cold start of one command does not pay for another's modules (research/perf.md §3.5).
import { Command, CommanderError } from 'commander';
import * as keys from './register/keys.js';
import * as store from './register/store.js';
import * as unit from './register/unit.js';
import * as authority from './register/authority.js';
import * as challenge from './register/challenge.js';
import * as run from './register/run.js';
import * as sandbox from './register/sandbox.js';
import * as decide from './register/decide.js';
import * as audit from './register/audit.js';
import * as reviewPass from './register/review-pass.js';
import { EXIT } from '../core/errors.js';

const program = new Command();
program
  .name('governed')
  .description(
    'Make code-review evidence trustworthy enough to gate a release: one-time challenges, sandboxed ' +
      'allowlisted reviewers, two-signature DSSE/in-toto receipts, a hash-chained log and a fail-closed gate. ' +
      'Exit codes: 0 ok, 1 internal, 2 usage, 3 REVIEW_ONLY, 4 verification, 5 stale/replayed, ' +
      '6 untrusted, 7 no evidence, 8 refused by state, 9 review not clean (see docs/errors.md).',
  )
  .version('0.1.0')
  .exitOverride()
  .showHelpAfterError(false)
  .configureOutput({ writeErr: (s) => process.stderr.write(s) });

// One register module per command group (parallel work never edits one shared file).
for (const group of [keys, store, unit, authority, challenge, run, sandbox, decide, audit, reviewPass]) group.register(program);

async function main(): Promise<void> {
  try {
    await program.parseAsync(process.argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version are successes; every other commander error is a usage error (exit 2).
      const ok = e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help';
      process.exitCode = ok ? EXIT.ok : EXIT.usage;
      return;
    }
    throw e;
  }
}

await main();
