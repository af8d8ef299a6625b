// The policy's sandbox uid as the store pins it NOW (docs/runnerd.md#the-sandbox-host). The daemon
// reads it for every request: a client of that uid is refused, and a run is refused unless the
// sandbox host runs as exactly that uid. null: no policy pinned (or the pins do not load).
import { closeStore, openStore } from '../../store/index.js';
import { loadPinned } from '../challenge/pinned.js';

export function pinnedSandboxUid(home: string): number | null {
  try {
    const store = openStore(home);
    try {
      return loadPinned(store.db, Math.floor(Date.now() / 1000)).policy.doc.sandbox.uid;
    } finally {
      closeStore(store);
    }
  } catch {
    return null;
  }
}
