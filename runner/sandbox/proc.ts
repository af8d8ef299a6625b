// What governed reads about a sandboxed process from OUTSIDE, through the host's /proc (docs/runner.md#the-run-step-by-step
// step 6; docs/sandbox.md#identity-and-uid-separation): namespace inodes, uid/gid, the syscall it is blocked in, and
// which processes still live in a PID namespace. Nothing the reviewer says about itself is used.
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { fail } from '../../src/core/errors.js';

export const NAMESPACES = ['cgroup', 'ipc', 'mnt', 'net', 'pid', 'user', 'uts'] as const;
export type NamespaceName = (typeof NAMESPACES)[number];
export type NamespaceIds = Record<NamespaceName, number>;

const NS_LINK_RE = /^([a-z_]+):\[(\d{1,20})\]$/;

/** The inode of /proc/<pid>/ns/<name>, or null when the process is gone or unreadable. */
export function readNamespace(pid: number | 'self', name: NamespaceName): number | null {
  let link: string;
  try {
    link = readlinkSync(`/proc/${pid}/ns/${name}`);
  } catch {
    return null;
  }
  const m = NS_LINK_RE.exec(link);
  if (m === null || m[1] !== name) return null;
  const n = Number(m[2]);
  return Number.isSafeInteger(n) ? n : null;
}

/** All seven namespace inodes of a process (sandbox_identity_mismatch when any is unreadable). */
export function readNamespaces(pid: number | 'self'): NamespaceIds {
  const out = {} as NamespaceIds;
  for (const name of NAMESPACES) {
    const n = readNamespace(pid, name);
    if (n === null) fail('sandbox_identity_mismatch', [`ns.${name}`]);
    out[name] = n;
  }
  return out;
}

/**
 * `/proc/<pid>/syscall` (proc(5)): "<nr> <arg0> ..." while blocked in a syscall, "running", or
 * null when unreadable/gone. Used to know that bwrap's child has finished setting up the sandbox
 * and is waiting on --block-fd: read(2) (nr 0 on x86_64) on exactly that descriptor.
 */
export function isBlockedReading(pid: number, fd: number): boolean | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/syscall`, 'latin1');
  } catch {
    return null;
  }
  const parts = text.trim().split(' ');
  return parts[0] === '0' && parts[1] === `0x${fd.toString(16)}`;
}

/** Field 4 of /proc/<pid>/stat (counted after the last ')', since comm may contain anything). */
export function readPpid(pid: number): number | null {
  let raw: Buffer;
  try {
    raw = readFileSync(`/proc/${pid}/stat`);
  } catch {
    return null;
  }
  const close = raw.lastIndexOf(0x29);
  if (close < 0) return null;
  const fields = raw.subarray(close + 2).toString('latin1').split(' ');
  const ppid = Number(fields[1]);
  return Number.isSafeInteger(ppid) ? ppid : null;
}

/** Process state (field 3 of /proc/<pid>/stat), or null when gone. */
function procState(pid: number): string | null {
  try {
    const raw = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return raw.slice(raw.lastIndexOf(')') + 2, raw.lastIndexOf(')') + 3) || null;
  } catch {
    return null;
  }
}

/** Host pids of every LIVE process whose PID namespace inode is `pidNs` (zombies run nothing and
 * are skipped, as are processes that are gone or unreadable). */
export function namespaceMembers(pidNs: number): number[] {
  const members: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    fail('sandbox_identity_mismatch', ['proc']);
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    if (readNamespace(Number(e), 'pid') !== pidNs) continue;
    const state = procState(Number(e));
    if (state !== null && state !== 'Z' && state !== 'X') members.push(Number(e));
  }
  return members;
}
