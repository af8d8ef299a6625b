// `governed review-pass` (docs/commands.md#what-each-command-guarantees, docs/review-pass.md#review-protocols). The action lazily imports its command module.
import { Option, type Command } from 'commander';
import { STAGES } from '../../core/review-vocabulary.js';
import { runAction } from '../run-action.js';
import { homeOption, jsonOption } from '../options.js';
import { progressOption } from '../progress.js';

export function register(program: Command): void {
  program
    .command('review-pass')
    .description(
      'Run a review protocol (review-pass, two-pass, weave or simple; docs/review-pass.md#review-protocols) over several reviewers and ' +
        'rounds, and write result.json and report.md (and, non-governed, executions.json) to the output directory. ' +
        'Non-governed mode (no --unit): reviewers are the commands of review-pass.yaml (--config FILE, else ' +
        '<repo>/review-pass.yaml, else <repo>/.review-pass.yaml, else the built-in claude/gemini/codex/opencode ' +
        'presets), each run in a read-only bubblewrap view of the repository with no network unless its entry ' +
        'says network: true; prompts go through stdin or a file, never argv. Built-in real-tool reviewers: tsc ' +
        'and eslint. Governed mode (--unit U --writer-session S): review-pass and weave only; the slots, their ' +
        'reviewers and the CLEAN streak come from the pinned policy only (--config and --light refused); each ' +
        'round runs one fresh review-challenge + review-run per slot (receipts recorded in the store), stopping at ' +
        'the streak of CLEAN rounds, the first round with a DIRTY or ABORTED run, or the policy run budget; ' +
        'the receipts\' findings are adjudicated by code and refs by the same protocol engines, and result.json / ' +
        'report.md have the same seed shapes as non-governed mode plus a governed section (each run\'s challenge, ' +
        'run, receipt digest and verdict); --files only adds focus (the bundle is the scope floor); the ' +
        'result is advisory, the delivery state is decided by governed status / gate (docs/decision.md#the-rules-in-short). The ' +
        'orchestrator never edits code (auto-fix is out of scope). Stdout carries counts and paths, never ' +
        'reviewer output. Exit codes: 0 CLEAN (converged clean), 9 NOT_CLEAN (findings, escalations, vetoes, ' +
        'degraded or incomplete review, budget exhausted), 2 usage or configuration (bad config, unknown ' +
        'tool, prompt in argv, bwrap unavailable, output directory already holds a result, a policy streak over ' +
        'the 8-round budget guard in governed review-pass), 8 governed mode ' +
        'without --writer-session or refused by state (unregistered writer, active lease), other review-challenge ' +
        'refusals with their own codes (4 pin/receipt verification, 5 stale trust root, 7 unknown unit), 1 internal ' +
        'error. See docs/review-pass.md.',
    )
    .addOption(
      new Option('--protocol <protocol>', 'review protocol').choices(['review-pass', 'two-pass', 'weave', 'simple']).default('review-pass'),
    )
    .addOption(new Option('--stage <stage>', 'review stage').choices([...STAGES]).makeOptionMandatory())
    .option('--files <paths...>', 'repository-relative files to review (space- or comma-separated; default: the workspace file set)')
    .option('--config <file>', 'review-pass.yaml to use (default: <repo>/review-pass.yaml, <repo>/.review-pass.yaml, built-in defaults)')
    .option('--out <dir>', 'output directory (created 0700; default: a new temporary directory); never overwritten')
    .option('--repo <dir>', 'repository directory to review (default: the current directory)')
    .option('--tool-log <dir>', "non-governed: keep each reviewer attempt's stderr in DIR/<execution id>-<attempt>.stderr (0600; DIR created 0700), never in stdout or the results")
    .option('--light', 'light mode: 1 clean round, first lens only (development/test, non-governed only)')
    .option('--unit <id>', 'governed mode: the unit under review (UNIT-<32 hex>)')
    .option('--writer-session <session>', 'governed mode: the registered writer session the challenges are issued for')
    .option('--reviewers-dir <dir>', 'governed mode: where the policy reviewers live (as review-run --reviewers-dir)')
    .option('--attestors <dir>', 'governed mode: attestor configs (as review-run --attestors)')
    .option('--bwrap <path>', 'governed mode: bubblewrap path (as review-run --bwrap)')
    .option('--policy <file>', 'governed mode: the policy the deployment holds now (default: $GOVERNED_POLICY)')
    .option('--trust <file>', 'governed mode: the trust root the deployment holds now (default: $GOVERNED_TRUST)')
    .addOption(homeOption())
    .option('--req-ids <ids>', 'comma-separated REQ-IDs to validate coverage against (review-pass protocol)')
    .option('--deferred-req-ids <ids>', 'comma-separated REQ-IDs intentionally deferred')
    .addOption(jsonOption())
    .addOption(progressOption())
    .action(async (opts: ReviewPassCliOptions) => {
      await runAction(opts, async () => (await import('../commands/review-pass.js')).reviewPassCommand(opts));
    });
}

export interface ReviewPassCliOptions {
  readonly protocol: 'review-pass' | 'two-pass' | 'weave' | 'simple';
  readonly stage: (typeof STAGES)[number];
  readonly files?: string[];
  readonly config?: string;
  readonly out?: string;
  readonly repo?: string;
  readonly light?: boolean;
  readonly unit?: string;
  readonly reqIds?: string;
  readonly deferredReqIds?: string;
  readonly toolLog?: string;
  readonly writerSession?: string;
  readonly reviewersDir?: string;
  readonly attestors?: string;
  readonly bwrap?: string;
  readonly policy?: string;
  readonly trust?: string;
  readonly home?: string;
  readonly json?: boolean;
  readonly progress?: boolean;
}
