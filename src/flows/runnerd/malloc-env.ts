// glibc's malloc in the daemon and its sandbox host (docs/performance.md#the-daemons-memory-over-many-runs).
// Over 1,000 runs most of the daemon's growth was outside V8: glibc's main arena and its per-thread
// arenas (libuv's and V8's worker threads each get one, up to eight per core) kept freed memory
// resident, and a freed large block raised the mmap and trim thresholds for good. A process cannot
// set these for itself from JavaScript (mallopt is not reachable); glibc reads them from the
// environment at start. So the daemon starts its sandbox host with them, and the daemon's systemd
// unit (docs/deploy/governed-runnerd.service) sets the same for the daemon (test/runnerd-malloc-env
// keeps the two equal). The sandbox host never passes its environment on: bwrap gets an empty one.
import { RUNNERD_MALLOC_ARENA_MAX, RUNNERD_MALLOC_MMAP_THRESHOLD_BYTES } from '../../core/limits.js';

/** The environment variables, as glibc's mallopt(3) names them. */
export const RUNNERD_MALLOC_ENV: Readonly<Record<string, string>> = Object.freeze({
  MALLOC_ARENA_MAX: String(RUNNERD_MALLOC_ARENA_MAX),
  MALLOC_MMAP_THRESHOLD_: String(RUNNERD_MALLOC_MMAP_THRESHOLD_BYTES),
});
