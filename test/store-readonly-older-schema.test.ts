// A read-only command must not write the store it judges (docs/decision.md#8-delivery-state-and-reason-codes; docs/audit.md
// "read-only"). Before the fix `openStoreReadOnly` handed a store at an older schema version to
// `openStore`, which migrated it (CREATE INDEX …, user_version bumped, in an IMMEDIATE transaction):
// `audit verify`, `audit export`, `audit checkpoint` and `gate` changed the database file they
// audit. Now: `store_migration_required` (exit 2), the file bytes unchanged; a write command
// (`status`) still migrates it, after which the read-only commands work again.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { isGovernedError } from '../src/core/errors.js';
import { closeStore, initStore, openStore } from '../src/store/index.js';
import { SCHEMA_VERSION } from '../src/store/migrations.js';
import { openStoreReadOnly } from '../src/store/open.js';
import { jsonOut, runCli } from './helpers/cli.js';
import { cleanupDirs, makeKeys, policyDoc, tempDir, trustDoc } from './state-helpers.js';

afterEach(() => cleanupDirs());

/** An initialised store, then set back to the previous schema exactly as a governed of that version
 * left it: no migration-8 Merkle tree table (docs/audit.md "Transparency log"). */
function olderStore(): string {
  const keys = makeKeys();
  const home = join(tempDir('governed-rtc-older-'), 'state');
  closeStore(
    initStore(home, {
      policyBytes: Buffer.from(JSON.stringify(policyDoc(keys))),
      trustBytes: Buffer.from(JSON.stringify(trustDoc(keys))),
      now: 1_780_000_000,
    }),
  );
  const db = new Database(join(home, 'governed.db'));
  expect(db.prepare('SELECT count(*) FROM tlog_hashes').pluck().get()).toBeGreaterThan(0);
  db.exec('DROP TABLE tlog_hashes');
  // Migration 9 (preservation) came after it: a store of two versions ago has neither.
  for (const t of ['preservation_versions', 'incident_corrections', 'surface_inventories', 'vendor_attestations', 'probe_receipts']) db.exec(`DROP TABLE ${t}`);
  // Migration 10 (the receipts' trust_mode column) too: the store of version 7.
  db.exec('ALTER TABLE receipts DROP COLUMN trust_mode');
  db.exec('DROP INDEX log_unit_preservation_set');
  db.pragma(`user_version = ${SCHEMA_VERSION - 3}`);
  db.close(); // checkpoints the WAL into the file: no -wal left
  return home;
}

/**
 * sha256 of the database file, and the size of its -wal. A read connection to a WAL database may
 * create an EMPTY -wal and the -shm index (SQLite's read protocol, no page of the store); a write
 * (the migration) puts frames into the -wal or, once checkpointed, changes the file itself.
 */
function fileBytes(home: string): string {
  const wal = join(home, 'governed.db-wal');
  return `${createHash('sha256').update(readFileSync(join(home, 'governed.db'))).digest('hex')} wal:${existsSync(wal) ? statSync(wal).size : 0}`;
}

describe('read-only commands on an older-schema store', () => {
  it('openStoreReadOnly refuses with store_migration_required and writes nothing', () => {
    const home = olderStore();
    const before = fileBytes(home);
    let code = 'opened';
    try {
      closeStore(openStoreReadOnly(home));
    } catch (e) {
      code = isGovernedError(e) ? `${e.code}/${e.exit}/${e.ids.join(',')}` : 'thrown';
    }
    expect(code).toBe(`store_migration_required/2/schema:${SCHEMA_VERSION - 3}`);
    expect(fileBytes(home)).toBe(before);
  });

  it('audit verify and audit export leave the file bytes unchanged and answer with the code; status migrates, then audit verify passes', () => {
    const home = olderStore();
    const before = fileBytes(home);
    const cwd = tempDir('governed-rtc-older-cwd-');
    const verify = runCli(['audit', 'verify', '--home', home, '--json'], { cwd });
    expect(fileBytes(home)).toBe(before);
    expect(verify.code).toBe(2);
    expect((jsonOut(verify) as { error: { code: string } }).error.code).toBe('store_migration_required');
    expect(verify.stdout.trim().split('\n')).toHaveLength(1);

    const out = join(cwd, 'export');
    const exp = runCli(['audit', 'export', '--home', home, '--out', out, '--json'], { cwd });
    expect(fileBytes(home)).toBe(before);
    expect(exp.code).toBe(2);
    expect((jsonOut(exp) as { error: { code: string } }).error.code).toBe('store_migration_required');
    expect(existsSync(out)).toBe(false);

    // A command that writes migrates it (openStore is unchanged) …
    closeStore(openStore(home));
    const db = new Database(join(home, 'governed.db'), { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    db.close();
    // … and the audit then runs on it.
    const again = runCli(['audit', 'verify', '--home', home, '--json'], { cwd });
    expect(again.code).toBe(0);
  });

  it('governed verify (trust root from the store) answers store_migration_required and writes nothing', () => {
    const home = olderStore();
    const before = fileBytes(home);
    const cwd = tempDir('governed-rtc-older-verify-');
    const receipt = join(cwd, 'receipt.json');
    writeFileSync(receipt, '{}');
    const r = runCli(['verify', receipt, '--home', home, '--json'], { cwd });
    expect(fileBytes(home)).toBe(before);
    expect(r.code).toBe(2);
    expect((jsonOut(r) as { error: { code: string } }).error.code).toBe('store_migration_required');
  });
});
