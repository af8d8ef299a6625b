// Inherited descriptors (docs/runner.md#the-run-step-by-step step 5; docs/sandbox.md#the-reviewer-sandbox). Node
// creates every descriptor of its own with O_CLOEXEC and `spawn` passes only the stdio array it is
// given, but a descriptor governed INHERITED without O_CLOEXEC (e.g. `exec 50<secret` in the shell
// that started it) survives exec into bwrap and, bwrap passing descriptors through, into the
// reviewer. So before spawning bwrap, every descriptor ≥ 3 whose /proc/self/fdinfo flags lack
// O_CLOEXEC is closed. Node's own IPC channel (child_process.fork) is O_CLOEXEC and is kept.
import { closeSync, openSync, readSync, readdirSync } from 'node:fs';
import { fail } from '../../src/core/errors.js';

const O_CLOEXEC = 0o2000000;

/** One buffer for every fdinfo read (a few dozen descriptors per run, each read whole, to EOF):
 * cheaper than readFileSync's stat and allocations per descriptor (bench/runner), same bytes. */
const FDINFO_CHUNK = 4096;
const fdinfoBuf = Buffer.alloc(FDINFO_CHUNK);

/** The whole text of /proc/self/fdinfo/<fd>; throws when it cannot be opened (descriptor gone). */
function readFdinfo(fd: number): string {
  const f = openSync(`/proc/self/fdinfo/${fd}`, 'r');
  try {
    let text = '';
    for (;;) {
      const n = readSync(f, fdinfoBuf, 0, FDINFO_CHUNK, null);
      if (n === 0) return text;
      text += fdinfoBuf.toString('latin1', 0, n);
    }
  } finally {
    closeSync(f);
  }
}

/** Close every inherited non-CLOEXEC descriptor ≥ 3 of this process; returns the numbers closed. */
export function closeInheritedFds(): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc/self/fd');
  } catch {
    fail('sandbox_fd_scan_failed');
  }
  const closed: number[] = [];
  for (const e of entries) {
    const fd = Number(e);
    if (!Number.isSafeInteger(fd) || fd < 3) continue;
    let info: string;
    try {
      info = readFdinfo(fd);
    } catch {
      continue; // the directory handle of readdirSync itself, already closed
    }
    const m = /^flags:\s*([0-7]+)$/m.exec(info);
    if (m === null) fail('sandbox_fd_scan_failed');
    if ((parseInt(m[1] as string, 8) & O_CLOEXEC) !== 0) continue;
    try {
      closeSync(fd);
      closed.push(fd);
    } catch {
      fail('sandbox_fd_scan_failed');
    }
  }
  return closed;
}
