// Guards the sandbox's lifetime across the whole suite (docs/sandbox.md "Lifetime"): after every test file has run, no live process of a sandbox uid the suites use, started during this run, is left behind.
//
// vitest globalSetup: `setup` notes when the run started, `teardown` runs once after all workers
// ended. Sandboxes run as a uid of their own only when the tests run as root (the runner then
// switches to the policy's sandbox.uid); otherwise they run as the test's own uid and cannot be
// told apart, so the check prints that it is skipped. The machine may be shared, and a run must
// not judge another's: a process counts only if it started during this run and its session is this
// run's own or one whose leader is gone (the sandbox's own session, once its bwrap died); another
// run's live sandboxes, and leftovers in another live session, are not this run's. A process is
// given 10 s to finish dying (a bound on a hang, not on speed). A leftover fails the run; under CI
// (alone on its machine) it is also killed, elsewhere it is only named: only its owner ends it.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';

/** Every uid a suite gives a sandbox or its unprivileged driver (64500 … 64599). */
export const SANDBOX_UIDS = { first: 64500, last: 64599 } as const;

/** Kernel clock ticks per second (USER_HZ), the unit of /proc/<pid>/stat start times. */
const TICKS = 100;
let startedTicks = 0;

const uptimeTicks = (): number => Math.floor(Number(readFileSync('/proc/uptime', 'latin1').split(' ')[0]) * TICKS);

interface Leftover {
  readonly pid: number;
  readonly uid: number;
  readonly ppid: number;
  readonly what: string;
}

function liveSandboxProcesses(): Leftover[] {
  const out: Leftover[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const uid = statSync(`/proc/${e}`).uid;
      if (uid < SANDBOX_UIDS.first || uid > SANDBOX_UIDS.last) continue;
      const stat = readFileSync(`/proc/${e}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const state = fields[0];
      if (state === 'Z' || state === 'X') continue; // a zombie runs nothing; init reaps it
      if (Number(fields[19]) < startedTicks) continue; // started before this run
      const sid = Number(fields[3]);
      if (sid !== ownSession() && existsSync(`/proc/${sid}`)) continue; // another live session's
      out.push({ pid: Number(e), uid, ppid: Number(fields[1]), what: readFileSync(`/proc/${e}/cmdline`, 'latin1').split('\0')[0] ?? '?' });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Field 6 of /proc/self/stat: the session this run (and every process it starts without setsid) is in. */
function ownSession(): number {
  const stat = readFileSync('/proc/self/stat', 'latin1');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
}

export function setup(): void {
  startedTicks = uptimeTicks();
}

export async function teardown(): Promise<void> {
  if (process.geteuid?.() !== 0) {
    process.stdout.write('\n[sandbox leftovers] SKIPPED: not root, so sandboxes ran as the test uid and cannot be told apart\n');
    return;
  }
  let left = liveSandboxProcesses();
  for (let i = 0; i < 100 && left.length > 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    left = liveSandboxProcesses();
  }
  if (left.length === 0) {
    process.stdout.write(`\n[sandbox leftovers] none: no live process of uid ${SANDBOX_UIDS.first}–${SANDBOX_UIDS.last} left by this run\n`);
    return;
  }
  const killed = process.env.CI === 'true';
  if (killed) {
    for (const p of left) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  }
  // vitest reports an error thrown here but still exits 0: the exit code is set explicitly.
  process.exitCode = 1;
  const list = left.map((p) => `${p.pid} uid=${p.uid} ppid=${p.ppid} ${p.what}`).join('; ');
  throw new Error(`[sandbox leftovers] ${left.length} live process(es) of a sandbox uid left behind${killed ? ' (killed)' : ''}: ${list}`);
}
