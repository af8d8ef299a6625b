// The deploy side's read in separated mode (docs/runnerd.md "The deploy side: gate --runner"): a
// consistent copy of the daemon's store — the database as one sqlite3_serialize image, taken on a
// read-only connection, and the newest stored checkpoint note — for the client to judge with the
// very gate of co-located mode under its own --trust, --policy-digest and --subject. The daemon is
// trusted for availability only: nothing of the decision is computed here.
//
// The checkpoint is read before the database, so its size never exceeds the copy's log (a note of
// a later append would otherwise name a tree the copy does not hold).
import { gunzipSync, gzipSync } from 'node:zlib';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fail } from '../../core/errors.js';
import { RUNNERD_STORE_COPY_MAX_BYTES } from '../../core/limits.js';
import { checkpointName, CHECKPOINTS_DIR, newestStoredCheckpoint } from '../../store/checkpoints.js';
import { BUNDLES_DIR, closeStore, DB_FILE, openStoreReadOnly } from '../../store/open.js';

export interface StoreCopy {
  readonly dbGz: Buffer;
  readonly checkpoint: { readonly size: number; readonly note: Buffer } | null;
}

/** Daemon side: the copy of the store at `home` (refused past the cap: runnerd_store_copy_too_large). */
export function takeStoreCopy(home: string): StoreCopy {
  const cp = newestStoredCheckpoint(home);
  const store = openStoreReadOnly(home);
  let db: Buffer;
  try {
    db = store.db.serialize();
  } finally {
    closeStore(store);
  }
  if (db.length > RUNNERD_STORE_COPY_MAX_BYTES) fail('runnerd_store_copy_too_large', [`bytes:${db.length}`]);
  return { dbGz: gzipSync(db, { level: 1 }), checkpoint: cp === null ? null : { size: cp.size, note: cp.bytes } };
}

/**
 * Client side: the copy laid out as a private state directory (0700 / 0600, as openStore checks)
 * under `parent`; `dispose` removes it. Inflation is capped (a gzip bomb is
 * runnerd_store_copy_invalid); what the copy holds is judged by the gate like any store.
 */
export function materializeStoreCopy(parent: string, copy: StoreCopy): { home: string; dispose: () => void } {
  let db: Buffer;
  try {
    db = gunzipSync(copy.dbGz, { maxOutputLength: RUNNERD_STORE_COPY_MAX_BYTES });
  } catch {
    return fail('runnerd_store_copy_invalid', []);
  }
  const home = mkdtempSync(join(parent, 'governed-store-copy-'));
  const dispose = (): void => rmSync(home, { recursive: true, force: true });
  try {
    chmodSync(home, 0o700);
    mkdirSync(join(home, BUNDLES_DIR), { mode: 0o700 });
    writeFileSync(join(home, DB_FILE), db, { mode: 0o600, flag: 'wx' });
    if (copy.checkpoint !== null) {
      mkdirSync(join(home, CHECKPOINTS_DIR), { mode: 0o700 });
      writeFileSync(join(home, CHECKPOINTS_DIR, checkpointName(copy.checkpoint.size)), copy.checkpoint.note, { mode: 0o600, flag: 'wx' });
    }
    return { home, dispose };
  } catch (e) {
    dispose();
    throw e;
  }
}
