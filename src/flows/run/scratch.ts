// A private scratch directory per run, inside the state directory: `<home>/runs/<run id>/` (0700).
// The sealed attestor copies of attestor-session.ts live there while the run is going. A runner that
// is killed (SIGKILL, crash) cannot remove them, so every directory whose run has ended — receipt,
// ABORTED, or reaped as ABORTED — is removed by the next `review-run` or `run reap` of the store
// (`sweepScratch`). Nothing in it is evidence: it only holds copies of pinned programs and configs.
import { chmodSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { getRun, type Store } from '../../store/index.js';
import { RUN_ID_RE } from '../../core/ids.js';

const RUN_DIR_RE = RUN_ID_RE;

export function scratchRoot(home: string): string {
  return join(home, 'runs');
}

/** Create `<home>/runs/<run>` (and its parent) with mode 0700. */
export function makeScratch(home: string, runId: string): string {
  const root = scratchRoot(home);
  mkdirSync(root, { recursive: true, mode: 0o700 });
  chmodSync(root, 0o700);
  const dir = join(root, runId);
  mkdirSync(dir, { mode: 0o700 });
  chmodSync(dir, 0o700);
  return dir;
}

export function removeScratch(home: string, runId: string): void {
  if (RUN_DIR_RE.test(runId)) rmSync(join(scratchRoot(home), runId), { recursive: true, force: true });
}

/** Remove the scratch directories of runs that ended (never of a run still claimed). */
export function sweepScratch(store: Store): number {
  let entries: string[];
  try {
    entries = readdirSync(scratchRoot(store.home));
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of entries) {
    if (!RUN_DIR_RE.test(name)) continue;
    const run = getRun(store.db, name);
    if (run !== null && run.status === 'claimed') continue;
    removeScratch(store.home, name);
    removed++;
  }
  return removed;
}
