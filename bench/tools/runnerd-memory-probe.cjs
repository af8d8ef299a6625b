// bench/runnerd's memory probe (docs/performance.md "The daemon's memory over many runs"), loaded
// into the daemon ONLY by the bench (BENCH_RUNNERD_MEMORY_PROBE=1 adds `--expose-gc --require` of
// this file to the daemon's node): never part of the product, nothing reachable from the socket.
// On SIGUSR2 it runs a full garbage collection and appends one JSON line to the file named by
// GOVERNED_BENCH_PROBE_OUT (opened here, at load, before the daemon drops its privileges; node opens
// it close-on-exec, so no child inherits it): the young generation's committed size before the
// collection, process.memoryUsage() after it and V8's heap spaces (committed / used bytes).
'use strict';
const fs = require('node:fs');
const v8 = require('node:v8');

const out = process.env.GOVERNED_BENCH_PROBE_OUT;
if (out !== undefined && typeof global.gc === 'function') {
  const fd = fs.openSync(out, 'a', 0o600);
  process.on('SIGUSR2', () => {
    const before = process.memoryUsage().rss;
    // The young generation as the daemon left it (a full collection shrinks it).
    const youngBefore = v8.getHeapSpaceStatistics().find((x) => x.space_name === 'new_space')?.space_size ?? 0;
    global.gc();
    const m = process.memoryUsage();
    const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, [s.space_size, s.space_used_size]]));
    fs.writeSync(fd, `${JSON.stringify({ rss_before_gc: before, young_before_gc: youngBefore, ...m, spaces })}\n`);
  });
}
