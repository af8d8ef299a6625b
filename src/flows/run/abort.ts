// docs/runner.md#the-run-step-by-step "from here on, the run ends either as a signed receipt or as an ABORTED log entry": any
// failure after the claim is recorded as ABORTED with its error code (a closed code, never text;
// store/runs.ts `abortRunIn`), then the bundle file of the now-ended challenge is deleted. ABORTED
// counts as DIRTY (docs/decision.md#the-rules-in-short). If the claim already ended (a reaper recorded it ABORTED because the
// deadline passed), nothing more is recorded: a run ends exactly once.
import { GovernedError, isGovernedError } from '../../core/errors.js';
import { abortRunIn, getRun, mutate, type Store } from '../../store/index.js';
import { removeBundleFile } from '../challenge/bundle-file.js';

/** The error a run failed with, mapped to the one closed code that is recorded. */
export function abortCodeOf(e: unknown): GovernedError {
  return isGovernedError(e) ? e : new GovernedError('internal_error', { cause: e });
}

/**
 * Record ABORTED for a claimed run. Returns true when this call recorded it, false when the run had
 * already ended (then the existing record stands). Never throws for a run that already ended.
 */
export function recordAborted(store: Store, now: number, runId: string, challengeId: string, code: string): boolean {
  const recorded = mutate(store, now, (tx) => {
    const run = getRun(tx.db, runId);
    if (run === null || run.status !== 'claimed') return false;
    abortRunIn(tx, runId, code);
    return true;
  });
  removeBundleFile(store.bundlesDir, challengeId);
  return recorded;
}
