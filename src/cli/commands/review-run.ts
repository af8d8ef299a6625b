// `governed review-run` (docs/commands.md#what-each-command-guarantees, docs/runner.md#the-run-step-by-step). Prints ONLY {verdict, run_id, receipt_id}: no digest, path,
// reviewer output or stderr ever reaches stdout/stderr. A run recorded as ABORTED prints
// {ok:false, verdict:"ABORTED", run_id, receipt_id:null, error:{code,exit,message,ids}} and exits with
// its code's exit (9 for review failures); a refusal before the claim is an ordinary coded error.
import { EXIT } from '../../core/errors.js';
import { reviewRunFlow, RunAborted } from '../../flows/run/review-run.js';
import { writeError, type CommandResult } from '../output.js';
import { resolveHome } from '../home.js';

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
}

export async function reviewRunCommand(opts: ReviewRunOptions): Promise<CommandResult> {
  try {
    const r = await reviewRunFlow({
      home: resolveHome(opts.home),
      challengeId: opts.challenge,
      repo: opts.repo ?? process.cwd(),
      reviewersDir: opts.reviewersDir,
      attestorsDir: opts.attestors,
      bwrapPath: opts.bwrap,
      policyFile: opts.policy ?? (process.env.GOVERNED_POLICY || undefined),
      trustFile: opts.trust ?? (process.env.GOVERNED_TRUST || undefined),
      clock: () => Math.floor(Date.now() / 1000),
    });
    return {
      exit: r.verdict === 'CLEAN' ? EXIT.ok : EXIT.not_clean,
      json: { verdict: r.verdict, run_id: r.runId, receipt_id: r.receiptId },
      human: `verdict ${r.verdict}\nrun_id ${r.runId}\nreceipt_id ${r.receiptId}`,
    };
  } catch (e) {
    if (!(e instanceof RunAborted)) throw e;
    // The diagnostic line on stderr (code, fixed summary, IDs), like every other error.
    writeError(e.error, { json: false });
    return {
      exit: e.error.exit,
      json: { ok: false, verdict: 'ABORTED', run_id: e.runId, receipt_id: null, error: e.error.toJSON() },
      human: `verdict ABORTED\nrun_id ${e.runId}\nreceipt_id -\nerror ${e.error.code}`,
    };
  }
}
