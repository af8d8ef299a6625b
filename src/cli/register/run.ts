// Commands of the run group (docs/commands.md#what-each-command-guarantees, docs/runner.md#the-run-step-by-step): `review-run`, `run reap`, `receipt show`. Each action
// lazily imports its command module.
import type { Command } from 'commander';
import type { ReviewRunOptions } from '../commands/review-run.js';
import { runAction } from '../run-action.js';
import { homeOption, jsonOption, runnerOption } from '../options.js';
import { progressOption } from '../progress.js';

export function register(program: Command): void {
  program
    .command('review-run')
    .description(
      'The trusted runner (docs/runner.md#the-run-step-by-step): claim the challenge, run the reviewer the POLICY assigns to its slot inside bubblewrap, ' +
        'check its output strictly, re-hash everything the challenge bound, have the reviewer and runner attestors sign the ' +
        'receipt and record it — or record the run as ABORTED. In order: (1) refuse an unknown, expired, consumed, claimed, ' +
        'tampered or stale challenge (nothing recorded); (2–3) claim it in one transaction, refused while any mutation lease ' +
        'is active; (4) pin <reviewers-dir>/<reviewer>.mjs and the attestors <attestors>/<credential>.json|.mjs by sha256 ' +
        'against the policy allowlist (nothing runs on a mismatch); (5–6) bwrap, profile and seccomp allowlisted, the ' +
        "reviewer's identity read from outside before it is released; (7) stdout must be the canonical governed.review-output/v1 " +
        'object echoing the bundle coverage; (8) contract, sources, workspace, policy, trust root, scope and bundle re-hashed; ' +
        '(9) both signatures made in parallel, verified, committed in one transaction. Prints only {ok, verdict, run_id, receipt_id} ' +
        '(an aborted run: verdict ABORTED with the error code). There is no --reviewer option: the caller never picks what runs. ' +
        'Exit 0 CLEAN receipt; 9 DIRTY receipt or run ABORTED (bad output, non-zero exit, timeout, drift, a lease taken meanwhile); ' +
        '5 unknown, expired, consumed, claimed or stale challenge; 4 tampered challenge row or bundle file, or a failed verification; ' +
        '6 reviewer, bwrap, profile, seccomp or attestor not allowlisted (recorded ABORTED after the claim); 8 a lease is active; ' +
        '2 usage or missing programs; 1 internal error.',
    )
    .requiredOption('--challenge <id>', 'challenge id (CHL-…) printed by review-challenge')
    .option('--repo <dir>', 'repository top level the workspace is re-hashed in (default: the current directory)')
    .option('--reviewers-dir <dir>', 'where <reviewer>.mjs lives (default: $GOVERNED_REVIEWERS_DIR, else <install>/runner/reviewers); only its sha256 is trusted')
    .option('--attestors <dir>', 'where reviewer.json/runner.json (and optional reviewer.mjs/runner.mjs) live (default: $GOVERNED_ATTESTORS_DIR, else <home>/attestors)')
    .option('--bwrap <path>', 'absolute path of bubblewrap (default: /usr/bin/bwrap); its sha256 must be on the policy allowlist')
    .option('--policy <file>', 'the policy the deployment holds now; must equal the pinned one (default: $GOVERNED_POLICY)')
    .option('--trust <file>', 'the trust root the deployment holds now; must equal the pinned one (default: $GOVERNED_TRUST)')
    .addOption(runnerOption())
    .addOption(homeOption())
    .addOption(jsonOption())
    .addOption(progressOption())
    .action(
      async (opts: ReviewRunOptions) => {
        // zod's one-shot setting first (commands/review-run-jitless.ts), then the command.
        await import('../commands/review-run-jitless.js');
        await runAction(opts, async () => {
          const s = (await import('../runnerd/client.js')).runnerSocket(opts.runner);
          if (s !== undefined) return (await import('../runnerd/remote-commands.js')).remoteReviewRun(s, opts);
          return (await import('../commands/review-run.js')).reviewRunCommand(opts);
        });
      },
    );

  const run = program.command('run').description('Review runs (docs/runner.md#the-run-step-by-step): reap stale claims.');
  run
    .command('reap')
    .description(
      'Record as ABORTED every claimed run of the unit whose runner process is gone (boot id, pid and start time no longer ' +
        'match a live process) or whose deadline passed (docs/runner.md#the-run-step-by-step step 3); a live run within its deadline is never touched. ' +
        'Logged. Also deletes the bundle files of the unit\'s ended challenges. Prints {unit, aborted[]}. ' +
        'Exit 0 done (also when nothing was stale), 7 unknown unit, 4 unsafe state directory.',
    )
    .requiredOption('--unit <id>', 'unit id (UNIT-…)')
    .addOption(homeOption())
    .addOption(jsonOption())
    .action(async (opts: { unit: string; home?: string; json?: boolean }) => {
      await runAction(opts, async () => (await import('../commands/review-run-reap.js')).runReapCommand(opts));
    });

  const receipt = program.command('receipt').description('Stored receipts (docs/state.md#the-store, docs/formats.md#receipt).');
  receipt
    .command('show')
    .description(
      'Print the exact stored DSSE envelope bytes of one receipt (for governed verify, openssl or any DSSE tool), after ' +
        'checking them against the receipt id. With --out FILE the bytes go to a new file (never overwritten) and a summary ' +
        'is printed; with --json one object {receipt_id, run_id, unit, stage, slot, verdict, envelope_b64}. ' +
        'Exit 0 shown, 7 unknown receipt, 4 stored bytes do not match the id, 2 --out exists.',
    )
    .requiredOption('--receipt <id>', 'receipt id (sha256:…) printed by review-run')
    .option('--out <file>', 'write the envelope bytes to this new file')
    .addOption(runnerOption())
    .addOption(homeOption())
    .addOption(jsonOption())
    .action(async (opts: { receipt: string; out?: string; home?: string; json?: boolean; runner?: string }) => {
      await runAction(opts, async () => {
        const s = (await import('../runnerd/client.js')).runnerSocket(opts.runner);
        if (s !== undefined) return (await import('../runnerd/remote-commands.js')).remoteReceiptShow(s, opts);
        return (await import('../commands/review-run-receipt.js')).receiptShowCommand(opts);
      });
    });
}
