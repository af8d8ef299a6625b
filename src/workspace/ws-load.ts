// Whether to start a hashing helper thread before the workspace listing is done (./hash-pool.ts,
// ./manifest.ts). A performance hint only: nothing here decides what is listed, checked or hashed
// (docs/contract.md#workspace-digest), and a wrong guess costs a helper's startup (~25 ms of CPU) or a later start.
//
// Why before the listing: the helper's startup takes as long as git's two listings (~20-30 ms).
// Started when the jobs are known, it joins late; and the idle measurement that decides a late
// start overlaps our own git children, which make the second CPU look busy (docs/performance.md#workspace-digest).
// So the decision at the start uses two cheap facts that exist before any child runs:
// - how big the job probably is: the size of the git index (lstat only, never opened — the
//   repository is written by the party under review, and `.git/index` could be a FIFO);
// - whether a CPU is free right now: the kernel's count of runnable tasks (/proc/loadavg, 4th
//   field, "running/total"; it includes the reading thread itself). An instantaneous count, unlike
//   the load averages, which lag by a minute and kept helpers off on an idle machine. A helper is
//   started only for a CPU no other task wants right now.
import { lstatSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

/** An index this large lists ~700+ entries (62 bytes + path per entry): enough work to repay a helper. */
export const PRESTART_MIN_INDEX_BYTES = 64 * 1024;
const MAX_PRESTART = 3;

/** Runnable tasks other than the calling thread right now, or null when the kernel does not say. */
export function otherRunnableTasks(): number | null {
  let text: string;
  try {
    text = readFileSync('/proc/loadavg', 'latin1');
  } catch {
    return null;
  }
  const m = /^\S+ \S+ \S+ (\d+)\/\d+ /.exec(text);
  if (m === null) return null;
  return Math.max(0, Number(m[1]) - 1);
}

/** Size of the repository's index file (0 when absent or not a regular file); never opened. */
export function indexBytes(gitDir: string): number {
  try {
    const st = lstatSync(join(gitDir, 'index'));
    return st.isFile() ? st.size : 0;
  } catch {
    return 0;
  }
}

/**
 * Helpers to start before listing: none for a small index or a single CPU; otherwise one per CPU
 * that no other runnable task occupies, beside the calling thread's, capped at MAX_PRESTART.
 * A CPU shared with another task is not counted: with the scheduler's per-session fairness
 * (autogroup) a helper there competes with our own calling thread rather than with the other
 * task — measured with one busy process on 2 CPUs, a helper made the digest 14% slower
 * (375 vs 330 ms; docs/performance.md#workspace-digest).
 */
export function prestartCount(indexSize: number, others: number | null, cpus: number = availableParallelism()): number {
  if (others === null || cpus < 2 || indexSize < PRESTART_MIN_INDEX_BYTES) return 0;
  return Math.max(0, Math.min(MAX_PRESTART, cpus - 1 - others));
}
