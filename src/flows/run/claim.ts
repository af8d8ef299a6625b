// docs/runner.md#the-run-step-by-step steps 2–3: reap the unit's stale claims, then claim the challenge in ONE transaction that
// re-checks, under the write lock, that the challenge is still open and unexpired and that no mutation
// lease is active (store/runs.ts `claimRunIn`; UNIQUE(challenge_id) backs it), and records the run id,
// execution id, the policy's reviewer for the slot and its sha256, this runner's own process identity
// (boot id, pid, start time), the claim time and the deadline. From the claim on, the run ends as a
// receipt or as ABORTED — never silently (docs/runner.md#the-run-step-by-step step 3).
import type { Challenge } from '../../store/index.js';
import { claimRunIn, mutate, readProcessIdentity, reapStaleClaimsIn, type Store } from '../../store/index.js';

/**
 * The deadline margin beyond the policy's sandbox timeout (docs/runner.md "Deadline"): sandbox setup
 * (bounded at 30 s by runner/sandbox), the drift re-hash, both attestors (10 s each, in parallel) and
 * the commit. A claim past its deadline may be reaped by any later command, and the runner's own
 * commit refuses it, so the margin is generous: a live, healthy run must never be reaped.
 */
export const RUN_DEADLINE_MARGIN_SECONDS = 300;

/** Record ABORTED for every stale claim of the unit (runner gone, or deadline passed). Logged. */
export function reapUnit(store: Store, now: number, unit: string): string[] {
  return mutate(store, now, (tx) => reapStaleClaimsIn(tx, unit));
}

export interface Claimed {
  readonly runId: string;
  readonly executionId: string;
  readonly claimedAt: number;
  readonly deadline: number;
}

export function claimChallenge(store: Store, now: number, c: Challenge, timeoutSeconds: number): Claimed {
  const deadline = now + timeoutSeconds + RUN_DEADLINE_MARGIN_SECONDS;
  const runner = readProcessIdentity(process.pid);
  const ids = mutate(store, now, (tx) =>
    claimRunIn(tx, {
      challengeId: c.challengeId,
      unit: c.unit,
      stage: c.stage,
      slot: c.slot,
      // The reviewer the policy assigned at issuance (the challenge row, checked against its log entry
      // and against the pinned policy before this point): the caller never picks it.
      reviewerName: c.reviewer.name,
      reviewerSha256: c.reviewer.sha256,
      runner,
      deadline,
    }),
  );
  return { ...ids, claimedAt: now, deadline };
}
