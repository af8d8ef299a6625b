// The young generation of the daemon and of its sandbox host (docs/performance.md#the-daemons-memory-over-many-runs).
// V8 starts each semi-space of the young generation small and doubles it (up to 16 MiB each, 32 MiB
// in all on 64-bit) whenever enough objects survive a scavenge; it shrinks it again only when the
// process looks idle. A long-lived process that handles requests back to back therefore keeps most of
// that reservation resident although the live heap stays flat (measured there: the live heap about
// 14 MiB after a full collection while the young generation went to 16 MiB). Both processes keep
// nothing young between requests, so from the call on the young generation does not grow (it keeps
// the size start-up gave it): more scavenges, each of a small space, instead of resident memory. V8 reads the semi-spaces' maximum only when it
// starts, but the growth factor at every growth step, so setting it first thing still holds.
import { setFlagsFromString } from 'node:v8';
import { RUNNERD_SEMI_SPACE_GROWTH_FACTOR } from '../../core/limits.js';

/** Stop this process's young generation from growing (call once, as early as possible). */
export function boundYoungGeneration(): void {
  setFlagsFromString(`--semi-space-growth-factor=${RUNNERD_SEMI_SPACE_GROWTH_FACTOR}`);
}
