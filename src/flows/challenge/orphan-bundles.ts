// Orphan bundle files (docs/state.md#the-store "nothing half-recorded", docs/bundle.md#views). `review-challenge` writes
// `<home>/bundles/<id>.json` (fsync'ed) BEFORE the transaction that records its challenge row; a
// process killed between the two leaves a file no row names, and nothing else would remove it.
//
// The race (docs/state.md "Orphan bundle files"): a concurrent issuer may have written its file
// and be waiting for the write lock to record it. Two rules close it:
// 1. The cleanup runs INSIDE a write transaction (the caller's `mutate`), so no issuer commits
//    while it decides: a file without a row at that moment belongs to an issuer that has not
//    committed — dead, or still waiting for the lock.
// 2. The issuer re-checks its file (`assertBundleFileWritten`) inside ITS recording transaction:
//    if a cleanup removed it first, the issuance is refused (`bundle_write_failed`) and nothing is
//    recorded; a row never names a file that is gone because of the cleanup.
// The grace period only spares a live issuer that work: its file is written after the whole bundle
// is built, so its write → lock wait is bounded by busy_timeout (10 s); a file older than
// ORPHAN_GRACE_SECONDS without a row is an orphan in every honest run.
import { lstatSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { CHALLENGE_ID_RE, type Tx } from '../../store/index.js';

export const ORPHAN_GRACE_SECONDS = 600;

/**
 * Remove bundle files older than the grace period whose challenge id has no row. Call inside a
 * `mutate` (the write lock). Only regular files named `<challenge id>.json` are considered; a file
 * that cannot be examined or removed is left alone (never throws: a cleanup must not refuse the
 * command it runs in). Returns the ids removed.
 */
export function removeOrphanBundlesIn(tx: Tx, bundlesDir: string, nowSeconds: number): string[] {
  let names: string[];
  try {
    names = readdirSync(bundlesDir);
  } catch {
    return [];
  }
  const candidates = names.filter((n) => n.endsWith('.json') && CHALLENGE_ID_RE.test(n.slice(0, -'.json'.length)));
  if (candidates.length === 0) return [];
  const known = tx.db.prepare('SELECT 1 FROM challenges WHERE id = ?').pluck();
  const removed: string[] = [];
  for (const name of candidates) {
    const id = name.slice(0, -'.json'.length);
    if (known.get(id) !== undefined) continue;
    const path = join(bundlesDir, name);
    try {
      const st = lstatSync(path);
      // mtime in the future (clock skew) or within the grace period: possibly a live issuer's.
      if (!st.isFile() || nowSeconds - Math.floor(st.mtimeMs / 1000) < ORPHAN_GRACE_SECONDS) continue;
      unlinkSync(path);
      removed.push(id);
    } catch {
      // Gone already, or not ours to remove: leave it.
    }
  }
  return removed;
}
