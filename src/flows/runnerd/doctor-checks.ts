// The owner and mode rules of separated mode (docs/runnerd.md "Layout"), as one pure function over
// facts the caller read with lstat: `governed runnerd doctor` prints them, and `governed doctor`
// may include them. Each finding names the path and what is wrong; nothing else.
import { sealedDirOf } from './sandbox-host-check.js';
import { egressSocketDirOf } from './sandbox-host-egress.js';
import { keyDirOf, keyFileOf, WARM_CREDENTIALS, type RunnerdLayout } from './layout.js';

export interface PathFact {
  readonly exists: boolean;
  readonly type: 'dir' | 'file' | 'socket' | 'symlink' | 'other' | null;
  readonly uid: number;
  readonly gid: number;
  /** Permission bits (mode & 0o7777). */
  readonly mode: number;
}

export interface Expected {
  readonly path: string;
  readonly type: 'dir' | 'file' | 'socket';
  readonly uid: number;
  /** null: any group. */
  readonly gid: number | null;
  /** A group the path must not have (the writers' group on a directory only the sandbox uid may pass through). */
  readonly notGid?: number;
  readonly mode: number;
}

export interface DoctorFinding {
  readonly path: string;
  readonly problem: 'missing' | 'wrong_type' | 'wrong_owner' | 'wrong_group' | 'wrong_mode';
  readonly expected: string;
}

export interface RunnerdIds {
  readonly daemonUid: number;
  readonly daemonGid: number;
  readonly attestorUids: Readonly<Record<(typeof WARM_CREDENTIALS)[number], number>>;
  readonly writersGid: number;
}

/** Every path separated mode depends on, with its owner and mode. */
export function expectedLayout(l: RunnerdLayout, ids: RunnerdIds, opts: { socket: boolean; sealed?: boolean; egress?: boolean }): Expected[] {
  const root = (path: string, type: 'dir' | 'file', mode: number): Expected => ({ path, type, uid: 0, gid: null, mode });
  const out: Expected[] = [
    root(l.base, 'dir', 0o755),
    root(l.attestorsDir, 'dir', 0o755),
    root(l.reviewersDir, 'dir', 0o755),
    root(l.keysDir, 'dir', 0o755),
    { path: l.stateDir, type: 'dir', uid: ids.daemonUid, gid: ids.daemonGid, mode: 0o700 },
    { path: l.socketDir, type: 'dir', uid: 0, gid: ids.writersGid, mode: 0o750 },
  ];
  // Every key is its attestor uid's, the log key too (docs/runnerd.md#checkpoints): none the daemon's.
  for (const c of WARM_CREDENTIALS) {
    out.push({ path: keyDirOf(l, c), type: 'dir', uid: ids.attestorUids[c], gid: null, mode: 0o700 });
    out.push({ path: keyFileOf(l, c), type: 'file', uid: ids.attestorUids[c], gid: null, mode: 0o400 });
    out.push(root(`${l.attestorsDir}/${c}.mjs`, 'file', 0o444));
    out.push(root(`${l.attestorsDir}/${c}.json`, 'file', 0o444));
  }
  if (opts.socket) out.push({ path: l.socket, type: 'socket', uid: 0, gid: ids.writersGid, mode: 0o660 });
  // The two directories the sandbox host reaches (docs/runnerd.md#the-sandbox-host), made by the
  // daemon at start, so judged when they are there: the daemon's, mode 0710, group the pinned
  // sandbox uid's (which the doctor does not read from the store), never the writers' group.
  const hostDir = (path: string): Expected => ({ path, type: 'dir', uid: ids.daemonUid, gid: null, notGid: ids.writersGid, mode: 0o710 });
  if (opts.sealed === true) out.push(hostDir(sealedDirOf(l.base)));
  if (opts.egress === true) out.push(hostDir(egressSocketDirOf(l.base)));
  return out;
}

const oct = (m: number): string => `0${m.toString(8)}`;

/** The findings for one expected path and what lstat saw there (pure). */
export function checkPath(e: Expected, f: PathFact): DoctorFinding[] {
  if (!f.exists) return [{ path: e.path, problem: 'missing', expected: e.type }];
  if (f.type !== e.type) return [{ path: e.path, problem: 'wrong_type', expected: e.type }];
  const out: DoctorFinding[] = [];
  if (f.uid !== e.uid) out.push({ path: e.path, problem: 'wrong_owner', expected: `uid ${e.uid}` });
  if (e.gid !== null && f.gid !== e.gid) out.push({ path: e.path, problem: 'wrong_group', expected: `gid ${e.gid}` });
  if (e.notGid !== undefined && f.gid === e.notGid) out.push({ path: e.path, problem: 'wrong_group', expected: `not gid ${e.notGid}` });
  if (f.mode !== e.mode) out.push({ path: e.path, problem: 'wrong_mode', expected: oct(e.mode) });
  return out;
}

/** All findings of the layout (empty: every owner and mode is right). */
export function runnerdDoctorChecks(expected: readonly Expected[], facts: (path: string) => PathFact): DoctorFinding[] {
  return expected.flatMap((e) => checkPath(e, facts(e.path)));
}
