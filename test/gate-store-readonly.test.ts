// The gate opens its store read-only (src/store/open.ts `openStoreReadOnly`; docs/decision.md#8-delivery-state-and-reason-codes: the gate
// never writes): on an initialised, current store the connection is read-only and nothing on disk
// changes — not the tables, not the file; every other case is decided by `openStore`, with its
// exact codes (missing, unsafe permissions, not SQLite, newer schema).
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isGovernedError } from '../src/core/errors.js';
import { closeStore, initStore, openStore, tablesDigest } from '../src/store/index.js';
import { openStoreReadOnly } from '../src/store/open.js';
import { cleanupDirs, makeKeys, policyDoc, tempDir, trustDoc } from './state-helpers.js';

afterEach(() => cleanupDirs());

function freshStore(): string {
  const keys = makeKeys();
  const home = join(tempDir(), 'state');
  const store = initStore(home, {
    policyBytes: Buffer.from(JSON.stringify(policyDoc(keys))),
    trustBytes: Buffer.from(JSON.stringify(trustDoc(keys))),
    now: 1_780_000_000,
  });
  closeStore(store);
  return home;
}

function codeOf(fn: () => unknown): string {
  try {
    const s = fn() as { db: { close(): void } };
    s.db.close();
    return 'opened';
  } catch (e) {
    return isGovernedError(e) ? e.code : 'thrown';
  }
}

describe('openStoreReadOnly', () => {
  it('opens an initialised store read-only and changes nothing', () => {
    const home = freshStore();
    const before = readFileSync(join(home, 'governed.db'));
    const rw = openStore(home);
    const digest = tablesDigest(rw);
    closeStore(rw);
    const again = readFileSync(join(home, 'governed.db'));
    const ro = openStoreReadOnly(home);
    try {
      expect(ro.db.readonly).toBe(true);
      expect(tablesDigest(ro)).toBe(digest);
      expect(() => ro.db.exec("INSERT INTO pins VALUES ('policy', 'x', x'00', 0)")).toThrow();
      expect(ro.db.pragma('trusted_schema', { simple: true })).toBe(0);
    } finally {
      closeStore(ro);
    }
    expect(readFileSync(join(home, 'governed.db')).equals(again)).toBe(true);
    expect(before.length).toBeGreaterThan(0);
  });

  it('refuses exactly as openStore does', () => {
    const missing = join(tempDir(), 'none');
    expect(codeOf(() => openStoreReadOnly(missing))).toBe(codeOf(() => openStore(missing)));
    expect(codeOf(() => openStoreReadOnly(missing))).toBe('store_missing');

    const open = freshStore();
    chmodSync(open, 0o755);
    expect(codeOf(() => openStoreReadOnly(open))).toBe('store_permissions_unsafe');
    expect(codeOf(() => openStore(open))).toBe('store_permissions_unsafe');

    const noBundles = freshStore();
    rmSync(join(noBundles, 'bundles'), { recursive: true });
    expect(codeOf(() => openStoreReadOnly(noBundles))).toBe(codeOf(() => openStore(noBundles)));

    const notSqlite = freshStore();
    writeFileSync(join(notSqlite, 'governed.db'), 'not a database at all, padded '.repeat(200));
    rmSync(join(notSqlite, 'governed.db-wal'), { force: true });
    rmSync(join(notSqlite, 'governed.db-shm'), { force: true });
    const c = codeOf(() => openStoreReadOnly(notSqlite));
    expect(c).toBe(codeOf(() => openStore(notSqlite)));
    expect(c).toBe('internal_error');

    const newer = freshStore();
    const s = openStore(newer);
    s.db.pragma('user_version = 999');
    closeStore(s);
    expect(codeOf(() => openStoreReadOnly(newer))).toBe('store_version_unsupported');
  });
});
