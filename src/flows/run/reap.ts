// docs/runner.md#the-run-step-by-step step 3: "a claim whose runner process is gone (boot id, pid and start time no longer match a
// live process) or whose deadline passed is recorded as ABORTED by the next command that touches the
// unit". `review-run` does it for the unit of its challenge before claiming; `governed run reap --unit
// U` does it on demand (e.g. after a crash, before `status`/`gate`). A live run within its deadline is
// never touched. Reaping is a logged change (docs/threat-model.md#rules-that-hold-everywhere allows logged sweeps even when a command is then
// refused). Bundle files of challenges that ended are deleted afterwards (docs/state.md#the-store).
import { closeStore, getRun, getUnit, listChallenges, openStore, type Store } from '../../store/index.js';
import { removeBundleFile } from '../challenge/bundle-file.js';
import { reapUnit } from './claim.js';
import { sweepScratch } from './scratch.js';

/** Reap the unit's stale claims (logged) and delete the bundles of its ended challenges. */
export function reapAndClean(store: Store, now: number, unit: string): string[] {
  const reaped = reapUnit(store, now, unit);
  for (const runId of reaped) {
    const run = getRun(store.db, runId);
    if (run !== null) removeBundleFile(store.bundlesDir, run.challengeId);
  }
  return reaped;
}

export interface ReapResult {
  readonly unit: string;
  /** Runs recorded ABORTED by this call. */
  readonly aborted: readonly string[];
  /** Bundle files of ended challenges that were still on disk and are now removed. */
  readonly bundlesRemoved: number;
}

export function reapRunsFlow(args: { home: string; unit: string; clock: () => number }): ReapResult {
  const store = openStore(args.home);
  try {
    getUnit(store.db, args.unit);
    const aborted = reapAndClean(store, args.clock(), args.unit);
    sweepScratch(store);
    let bundlesRemoved = 0;
    for (const c of listChallenges(store.db, { unit: args.unit })) {
      if (c.status === 'consumed' || c.status === 'aborted' || c.status === 'expired') {
        if (removeBundleFile(store.bundlesDir, c.challengeId)) bundlesRemoved++;
      }
    }
    return { unit: args.unit, aborted, bundlesRemoved };
  } finally {
    closeStore(store);
  }
}
