// `governed review-run` (docs/commands.md#what-each-command-guarantees, docs/runner.md#the-run-step-by-step). Prints ONLY {ok, verdict, run_id, receipt_id}: no digest, path,
// reviewer output or stderr ever reaches stdout/stderr. A run recorded as ABORTED prints
// {ok:false, verdict:"ABORTED", run_id, receipt_id:null, error:{code,exit,message,ids}} and exits with
// its code's exit (9 for review failures); a refusal before the claim is an ordinary coded error.
import { EXIT, type GovernedError } from '../../core/errors.js';
import { reviewRunFlow, RunAborted, type ReviewRunArgs } from '../../flows/run/review-run.js';
import { writeError, type CommandResult } from '../output.js';
import { resolveHome } from '../home.js';
import { progressSink } from '../progress.js';
import type { ReviewRunJson } from '../../core/command-output.js';
import type { ProgressSink } from '../../core/progress.js';

export interface ReviewRunOptions {
  challenge: string;
  repo?: string;
  reviewersDir?: string;
  attestors?: string;
  bwrap?: string;
  policy?: string;
  trust?: string;
  home?: string;
  json?: boolean;
  runner?: string;
  progress?: boolean;
}

/** What the daemon sets instead of options (docs/runnerd.md): its own locations and warm signers. */
export interface ReviewRunDaemon {
  readonly home: string;
  readonly repo: string;
  readonly reviewersDir: string;
  readonly attestorsDir: string;
  readonly separated: NonNullable<ReviewRunArgs['separated']>;
  /** The diagnostic co-located mode writes to stderr beside an ABORTED result goes to the client. */
  readonly diagnostic: (e: GovernedError) => void;
  /** Progress frames to the client when it asked for them (docs/runnerd.md "The socket protocol"). */
  readonly progress?: ProgressSink<'review-run'> | undefined;
}

export async function reviewRunCommand(opts: ReviewRunOptions, daemon?: ReviewRunDaemon): Promise<CommandResult> {
  try {
    const r = await reviewRunFlow(daemon !== undefined ? {
      home: daemon.home,
      challengeId: opts.challenge,
      repo: daemon.repo,
      reviewersDir: daemon.reviewersDir,
      attestorsDir: daemon.attestorsDir,
      separated: daemon.separated,
      clock: () => Math.floor(Date.now() / 1000),
      progress: daemon.progress,
    } : {
      home: resolveHome(opts.home),
      challengeId: opts.challenge,
      repo: opts.repo ?? process.cwd(),
      reviewersDir: opts.reviewersDir,
      attestorsDir: opts.attestors,
      bwrapPath: opts.bwrap,
      policyFile: opts.policy ?? (process.env.GOVERNED_POLICY || undefined),
      trustFile: opts.trust ?? (process.env.GOVERNED_TRUST || undefined),
      clock: () => Math.floor(Date.now() / 1000),
      progress: progressSink('review-run', opts),
    });
    return {
      exit: r.verdict === 'CLEAN' ? EXIT.ok : EXIT.not_clean,
      json: { ok: r.verdict === 'CLEAN', verdict: r.verdict, run_id: r.runId, receipt_id: r.receiptId } satisfies ReviewRunJson,
      human: `verdict ${r.verdict}\nrun_id ${r.runId}\nreceipt_id ${r.receiptId}`,
    };
  } catch (e) {
    if (!(e instanceof RunAborted)) throw e;
    // The diagnostic line on stderr (code, fixed summary, IDs), like every other error.
    if (daemon !== undefined) daemon.diagnostic(e.error);
    else writeError(e.error, { json: false });
    return {
      exit: e.error.exit,
      json: { ok: false, verdict: 'ABORTED', run_id: e.runId, receipt_id: null, error: { ...e.error.toJSON(), ids: [...e.error.ids] } } satisfies ReviewRunJson,
      human: `verdict ABORTED\nrun_id ${e.runId}\nreceipt_id -\nerror ${e.error.code}`,
    };
  }
}
