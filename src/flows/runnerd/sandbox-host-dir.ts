// A directory of the daemon that its sandbox host's uid can reach (docs/runnerd.md#the-sandbox-host):
// made (or reset) by the daemon at start, while still root — a real directory (never a symlink),
// owner the daemon's uid, group the sandbox gid, mode 0710: the daemon can list and write it, the
// sandbox uid can only pass through it to a name it is given, a writer cannot enter it at all.
// What a previous daemon left inside is removed (its runs were reaped at start). One definition for
// the brokers' socket directory (sandbox-host-egress.ts) and the sealed trees of check slots
// (sandbox-host-check.ts).
import { chmodSync, chownSync, lstatSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fail } from '../../core/errors.js';

export function prepareHostReachableDir(dir: string, daemonUid: number, sandboxGid: number): string {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const st = lstatSync(dir);
  if (!st.isDirectory() || st.isSymbolicLink()) fail('runnerd_state_unsafe', [`${dir}:type`]);
  // As root: a sealed tree's read-only directories (0555) are removed without a chmod (root needs
  // none), and nothing is followed — never a chmod through a name a previous daemon could have
  // turned into a symlink.
  for (const name of readdirSync(dir)) rmSync(join(dir, name), { recursive: true, force: true });
  chownSync(dir, daemonUid, sandboxGid);
  chmodSync(dir, 0o710);
  return dir;
}
