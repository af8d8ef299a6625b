// The runnerd layout judged on this machine (docs/runnerd.md "Layout"): the users and group looked
// up, every path lstat'ed, and the pure rules of ./doctor-checks.ts applied. One definition for
// `governed runnerd doctor` and the `runnerd_layout` check of `governed doctor`.
import { findGroup, findUser } from './accounts.js';
import { expectedLayout, runnerdDoctorChecks, type DoctorFinding } from './doctor-checks.js';
import { layoutOf, usersOf, WARM_CREDENTIALS, type WarmCredential } from './layout.js';
import { sealedDirOf } from './sandbox-host-check.js';
import { egressSocketDirOf } from './sandbox-host-egress.js';
import { statFact } from './stat-fact.js';

export interface RunnerdTarget {
  readonly base: string;
  readonly socket: string;
  readonly user: string;
  readonly writers: string;
}

/** The users or group that do not exist (then nothing else is judged), else every finding (empty: all right). */
export function runnerdLayoutFindings(t: RunnerdTarget): { readonly missingUsers: readonly string[]; readonly findings: readonly DoctorFinding[] } {
  const l = layoutOf(t.base, t.socket);
  const u = usersOf(t.user, t.writers);
  const d = findUser(u.daemon);
  const g = findGroup(u.writersGroup);
  const att = WARM_CREDENTIALS.map((c) => [c, findUser(u.attestors[c])] as const);
  const missing = [d === null ? u.daemon : null, g === null ? u.writersGroup : null, ...att.map(([c, x]) => (x === null ? u.attestors[c] : null))].filter(
    (x): x is string => x !== null,
  );
  if (missing.length > 0 || d === null || g === null) return { missingUsers: missing, findings: [] };
  const attestorUids = Object.fromEntries(att.map(([c, x]) => [c, x?.uid ?? -1])) as Record<WarmCredential, number>;
  const findings = runnerdDoctorChecks(
    // The socket, sealed/ and egress/ are judged when they are there (the daemon makes them).
    expectedLayout(
      l,
      { daemonUid: d.uid, daemonGid: d.gid, attestorUids, writersGid: g.gid },
      { socket: statFact(l.socket).exists, sealed: statFact(sealedDirOf(l.base)).exists, egress: statFact(egressSocketDirOf(l.base)).exists },
    ),
    statFact,
  );
  return { missingUsers: [], findings };
}
