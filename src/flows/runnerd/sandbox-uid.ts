// The policy's sandbox uid as the store pins it NOW (docs/runnerd.md#the-sandbox-host). The daemon
// reads it for every request: a client of that uid is refused, and a run is refused unless the
// sandbox host runs as exactly that uid. null: no policy pinned (or the pins do not load).
// The parsed uid is remembered per pinned policy digest, so a request costs one row read.
import { closeStore, openStore, readPin } from '../../store/index.js';
import { loadPinned } from '../challenge/pinned.js';

let last: { readonly home: string; readonly digest: string; readonly uid: number } | null = null;

export function pinnedSandboxUid(home: string): number | null {
  try {
    const store = openStore(home);
    try {
      const digest = readPin(store, 'policy').digest;
      if (last !== null && last.home === home && last.digest === digest) return last.uid;
      const uid = loadPinned(store.db, Math.floor(Date.now() / 1000)).policy.doc.sandbox.uid;
      last = { home, digest, uid };
      return uid;
    } finally {
      closeStore(store);
    }
  } catch {
    return null;
  }
}
