// lstat → the fact doctor-checks.ts judges (never follows a symlink).
import { lstatSync } from 'node:fs';
import type { PathFact } from './doctor-checks.js';

export function statFact(path: string): PathFact {
  try {
    const st = lstatSync(path);
    const type = st.isDirectory() ? 'dir' : st.isFile() ? 'file' : st.isSocket() ? 'socket' : st.isSymbolicLink() ? 'symlink' : 'other';
    return { exists: true, type, uid: st.uid, gid: st.gid, mode: st.mode & 0o7777 };
  } catch {
    return { exists: false, type: null, uid: -1, gid: -1, mode: 0 };
  }
}
