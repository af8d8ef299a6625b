// Check slots on the sandbox host (docs/runnerd.md#check-slots-on-the-sandbox-host). The daemon keeps
// everything a check receipt rests on — the claim, the sealing of the workspace and the dependency
// root from the very bytes it hashes, the full re-walk of both trees after the run
// (`snapshot_altered`), drift and the signatures — and moves only the checking tool: the host opens
// the sealed trees itself and runs bwrap with the check profile, so the tool runs under the policy's
// sandbox uid with no groups and the receipt says `uid_separated: true`.
//
// Where the trees live: `<dir>/sealed`, made at daemon start while still root (sandbox-host-dir.ts):
// owner the daemon's uid, group the sandbox gid, mode 0710. Each run's seal root inside it is the
// daemon's (0711), its trees as in co-located mode (owner the daemon's uid; files 0444, 0555 when
// executable; directories 0555). So the sandbox uid can traverse to a tree whose full name it is
// given and read it, but can neither list the directory nor write, rename, chmod or remove anything
// in a tree (it owns nothing there); a writer cannot even enter `<dir>/sealed`.
import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { fail } from '../../core/errors.js';
import { RUN_ID_RE } from '../../core/ids.js';
import type { SandboxHostJob } from '../../core/sandbox-host-protocol.js';
import type { SandboxRequest } from '../../../runner/sandbox/index.js';
import { prepareHostReachableDir } from './sandbox-host-dir.js';

/** The hosted sealed-tree directory of a daemon whose layout base is `base`. */
export const sealedDirOf = (base: string): string => join(base, 'sealed');

/** As root, before the drop: make (or reset) `<base>/sealed` (daemon uid, sandbox gid, 0710). */
export function prepareSealedDir(base: string, daemonUid: number, sandboxGid: number): string {
  return prepareHostReachableDir(sealedDirOf(base), daemonUid, sandboxGid);
}

/** A run's seal root (a check run's, or a probe's) and the trees in it. */
const TREE_RE = new RegExp(`^governed-sealed-(${RUN_ID_RE.source.slice(1, -1)}|probe)-[A-Za-z0-9]{6}/(snapshot|dependencies|deps)$`);

/** The sealed trees of one run, by path (the host opens them itself). */
export interface SealedDirs {
  readonly snapshot: string;
  readonly dependencies: string | null;
}

/** The seal root of `path` when it is a tree directly inside a run's seal root of `dir`, else null. */
function sealRootIn(dir: string, path: string): string | null {
  if (!path.startsWith(`${dir}/`)) return null;
  const rest = path.slice(dir.length + 1);
  return TREE_RE.test(rest) ? rest.slice(0, rest.indexOf('/')) : null;
}

/** Do these sealed trees lie in `dir` (both in one run's seal root), so the host can open them? */
export function hostsCheck(dir: string | null, dirs: SealedDirs | undefined): dirs is SealedDirs {
  if (dir === null || dirs === undefined) return false;
  const root = sealRootIn(dir, dirs.snapshot);
  if (root === null || !dirs.snapshot.endsWith('/snapshot')) return false;
  return dirs.dependencies === null || (sealRootIn(dir, dirs.dependencies) === root && !dirs.dependencies.endsWith('/snapshot'));
}

/** The check part of a host job: the trees' paths (never the daemon's descriptors). */
export function checkJobPart(req: SandboxRequest, dirs: SealedDirs | undefined): Pick<SandboxHostJob, 'check'> {
  if (req.check === undefined || dirs === undefined) return {};
  return { check: { snapshot: dirs.snapshot, dependencies: dirs.dependencies, dependency_root: req.check.dependencyRoot } };
}

/**
 * The host's side: open the job's sealed trees read-only (O_DIRECTORY | O_NOFOLLOW) for the check
 * profile's descriptors. Refused (`sandbox_argument_invalid` [check]) unless each is a directory this
 * uid does not own and nobody but its owner could write — a tree the tool could change is never used.
 * `close` releases the descriptors (idempotent).
 */
export function openCheckTrees(job: SandboxHostJob): { part: Pick<SandboxRequest, 'check'>; close: () => void } {
  const c = job.check;
  if (c === undefined) return { part: {}, close: () => undefined };
  if ((c.dependencies === null) !== (c.dependency_root === null)) fail('sandbox_argument_invalid', ['check']);
  const fds: number[] = [];
  const close = (): void => {
    for (const fd of fds.splice(0)) {
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
    }
  };
  const me = process.geteuid?.() ?? -1;
  const open = (p: string): number => {
    let fd: number;
    try {
      fd = openSync(p, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    } catch {
      return fail('sandbox_argument_invalid', ['check']);
    }
    fds.push(fd);
    const st = fstatSync(fd);
    if (!st.isDirectory() || st.uid === me || (st.mode & 0o022) !== 0) fail('sandbox_argument_invalid', ['check']);
    return fd;
  };
  try {
    const snapshotFd = open(c.snapshot);
    const dependencyFd = c.dependencies === null ? null : open(c.dependencies);
    return { part: { check: { snapshotFd, dependencyFd, dependencyRoot: c.dependency_root } }, close };
  } catch (e) {
    close();
    throw e;
  }
}
