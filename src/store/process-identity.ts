// Host process identity of a writer (docs/state.md#writers-and-leases, docs/commands.md#what-each-command-guarantees `writer register`): boot id, pid
// and start time. A pid alone is recycled; (boot id, pid, start time) names one process for the
// lifetime of the machine, so `isProcessAlive` can tell "that writer is still running" from "some
// other process now has its pid".
import { readFileSync, readlinkSync } from 'node:fs';
import { fail } from '../core/errors.js';
import { parseBootId, parseProcStat, type ProcStat } from '../core/proc-stat.js';
import { PROCESS_ANCESTRY_MAX } from '../core/limits.js';

export interface ProcessIdentity {
  /** /proc/sys/kernel/random/boot_id: changes on every boot. */
  readonly bootId: string;
  readonly pid: number;
  /** Field 22 of /proc/<pid>/stat: clock ticks after boot at which the process started. */
  readonly startTime: number;
}

export function readBootId(): string {
  let text: string;
  try {
    text = readFileSync('/proc/sys/kernel/random/boot_id', 'latin1');
  } catch {
    fail('process_identity_invalid', ['boot_id']);
  }
  return parseBootId(text);
}

function assertPid(pid: number): void {
  if (!Number.isSafeInteger(pid) || pid < 1 || pid > 0x3fffffff) fail('process_identity_invalid', ['pid']);
}

/** /proc/<pid>/stat of a live process, or null when there is no such process. */
function readStat(pid: number): ProcStat | null {
  let raw: Buffer;
  try {
    raw = readFileSync(`/proc/${pid}/stat`);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ESRCH') return null;
    throw e;
  }
  return parseProcStat(raw);
}

/** The identity of running process `pid` (`process_not_found`, exit 2, when there is none). */
export function readProcessIdentity(pid: number): ProcessIdentity {
  assertPid(pid);
  const bootId = readBootId();
  const stat = readStat(pid);
  if (stat === null || stat.state === 'Z' || stat.state === 'X') fail('process_not_found', [`pid:${pid}`]);
  return { bootId, pid, startTime: stat.startTime };
}

/**
 * True only when the very process of `identity` is still running: same boot, the pid exists, its
 * start time matches (else the pid was recycled), and it is not a zombie.
 */
export function isProcessAlive(identity: ProcessIdentity): boolean {
  assertPid(identity.pid);
  if (identity.bootId !== readBootId()) return false;
  const stat = readStat(identity.pid);
  if (stat === null || stat.state === 'Z' || stat.state === 'X') return false;
  return stat.startTime === identity.startTime;
}

/** The namespaces a writer must share with the host that registers it (docs/runner.md "Reviewer independence"). */
export const HOST_NAMESPACES = ['pid', 'user', 'mnt'] as const;

/**
 * The first of `HOST_NAMESPACES` in which process `pid` is not where this process is (`ns.<name>`),
 * `ns.<name>.unreadable` when its link cannot be read (gone, or another uid's process when not
 * root: fail closed), or null when the process shares all three with this host.
 */
export function namespaceOutsideHost(pid: number): string | null {
  assertPid(pid);
  for (const name of HOST_NAMESPACES) {
    let own: string;
    let theirs: string;
    try {
      own = readlinkSync(`/proc/self/ns/${name}`);
      theirs = readlinkSync(`/proc/${pid}/ns/${name}`);
    } catch {
      return `ns.${name}.unreadable`;
    }
    if (own !== theirs) return `ns.${name}`;
  }
  return null;
}

/** How far `ancestry` walks up (src/core/limits.ts). */
const MAX_ANCESTRY = PROCESS_ANCESTRY_MAX;

/**
 * The identities of process `pid` and of each of its ancestors up to (not including) pid 1, from
 * /proc (field 4, the parent pid; field 22, the start time). A process whose parent died was
 * reparented and its former ancestors are not found: callers pair this with `namespaceOutsideHost`.
 */
export function ancestry(pid: number): ProcessIdentity[] {
  assertPid(pid);
  const bootId = readBootId();
  const out: ProcessIdentity[] = [];
  let current = pid;
  for (let i = 0; i < MAX_ANCESTRY && current > 1; i++) {
    const stat = readStat(current);
    if (stat === null) break;
    out.push({ bootId, pid: current, startTime: stat.startTime });
    current = stat.ppid;
  }
  return out;
}
