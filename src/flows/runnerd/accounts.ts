// System users and groups by name, read from /etc/passwd and /etc/group (the files useradd writes;
// the daemon runs before any NSS module could matter and refuses a name it cannot find there).
import { readFileSync } from 'node:fs';
import { fail } from '../../core/errors.js';

export interface Account {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

function rows(path: string): string[][] {
  try {
    return readFileSync(path, 'utf8').split('\n').filter((l) => l !== '' && !l.startsWith('#')).map((l) => l.split(':'));
  } catch {
    return [];
  }
}

export function findUser(name: string): Account | null {
  const r = rows('/etc/passwd').find((f) => f[0] === name);
  return r === undefined ? null : { name, uid: Number(r[2]), gid: Number(r[3]) };
}

export function findGroup(name: string): { name: string; gid: number; members: string[] } | null {
  const r = rows('/etc/group').find((f) => f[0] === name);
  return r === undefined ? null : { name, gid: Number(r[2]), members: (r[3] ?? '').split(',').filter((m) => m !== '') };
}

export function requireUser(name: string): Account {
  return findUser(name) ?? fail('runnerd_user_missing', [name]);
}

export function requireGroup(name: string): { name: string; gid: number; members: string[] } {
  return findGroup(name) ?? fail('runnerd_user_missing', [name]);
}

/** The real uid of a live process (the `Uid:` line of /proc/<pid>/status), or null. */
export function processUid(pid: number): number | null {
  try {
    const m = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null ? null : Number(m[1]);
  } catch {
    return null;
  }
}

/** The parent pid of a live process (field 4 of /proc/<pid>/stat), or null. */
export function parentPid(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const p = Number(f[1]);
    return Number.isInteger(p) && p > 0 ? p : null;
  } catch {
    return null;
  }
}
