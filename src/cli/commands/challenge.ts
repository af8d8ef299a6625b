import { isoSecondsOf } from '../../core/trust-root.js';
import { issueChallengeFlow } from '../../flows/challenge.js';
import { uncoveredPathsOf } from '../../flows/uncovered-changes.js';
import { resolveHome } from '../options.js';
import type { CommandResult } from '../output.js';
import type { ReviewChallengeJson } from '../../core/command-output.js';
import type { ProgressSink } from '../../core/progress.js';
import { progressSink } from '../progress.js';

/**
 * Prints ONLY {ok, challenge_id, stage, slot, expires_at} (docs/commands.md#what-each-command-guarantees): the bundle path, digests and
 * reviewer stay in the store, and no source byte ever reaches stdout, stderr or argv.
 */
export async function reviewChallengeCommand(opts: {
  unit: string;
  writerSession: string;
  stage: string;
  slot: string;
  repo?: string;
  policy?: string;
  trust?: string;
  home?: string;
  json?: boolean;
  progress?: boolean;
}, progressTo: ProgressSink<'review-challenge'> | undefined = progressSink('review-challenge', opts)): Promise<CommandResult> {
  const r = await issueChallengeFlow({
    home: resolveHome(opts.home),
    unit: opts.unit,
    writerSession: opts.writerSession,
    stage: opts.stage,
    slot: opts.slot,
    repo: opts.repo ?? process.cwd(),
    policyFile: opts.policy ?? (process.env.GOVERNED_POLICY || undefined),
    trustFile: opts.trust ?? (process.env.GOVERNED_TRUST || undefined),
    clock: () => Math.floor(Date.now() / 1000),
    progress: progressTo,
  }).catch((e: unknown) => {
    // Writer-side: name each uncovered changed path (what the writer must cover in the contract) on
    // stderr; the coded error itself still carries only the count (docs/contract-init.md).
    for (const p of uncoveredPathsOf(e)) process.stderr.write(`governed: uncovered change: ${p}\n`);
    throw e;
  });
  const expiresAt = isoSecondsOf(new Date(r.expiresAt * 1000));
  return {
    exit: 0,
    json: { ok: true, challenge_id: r.challengeId, stage: r.stage, slot: r.slot, expires_at: expiresAt } satisfies ReviewChallengeJson,
    human: `challenge_id ${r.challengeId}\nstage ${r.stage}\nslot ${r.slot}\nexpires_at ${expiresAt}`,
  };
}
