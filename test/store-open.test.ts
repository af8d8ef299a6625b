// docs/state.md#the-store, docs/commands.md#what-each-command-guarantees init: state directory and database file modes, pragmas, numbered migrations,
// pinning, and every refusal of opening and initialising a store.
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { digestOf } from '../src/core/canonical.js';
import { parseYamlStrict } from '../src/core/strict-parse.js';
import { SCHEMA_VERSION } from '../src/store/migrations.js';
import { closeStore, openStore } from '../src/store/open.js';
import { initStore, pinDigestOf, readPin } from '../src/store/pins.js';
import { readLog, verifyChain } from '../src/store/log.js';
import { tablesDigest } from '../src/store/state-digest.js';
import { cleanupDirs, codeOf, newStore, POLICY_YAML, rawConnection, T0, tempDir, TRUST_JSON } from './store-helpers.js';

afterEach(cleanupDirs);

const pins = { policyBytes: Buffer.from(POLICY_YAML), trustBytes: Buffer.from(TRUST_JSON), now: T0 };
const mode = (p: string): number => statSync(p).mode & 0o777;

describe('openStore / initStore', () => {
  it('creates a 0700 state directory, 0700 bundles/ and a 0600 database with the docs/state.md#the-store pragmas', () => {
    const store = newStore();
    try {
      expect(mode(store.home)).toBe(0o700);
      expect(mode(store.bundlesDir)).toBe(0o700);
      expect(mode(store.dbPath)).toBe(0o600);
      expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(store.db.pragma('synchronous', { simple: true })).toBe(2); // FULL
      expect(store.db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(store.db.pragma('busy_timeout', { simple: true })).toBeGreaterThanOrEqual(5000);
      expect(store.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      // The WAL file SQLite creates inherits the database file's mode.
      for (const f of readdirSync(store.home).filter((n) => n.startsWith('governed.db'))) {
        expect(mode(join(store.home, f)), f).toBe(0o600);
      }
    } finally {
      closeStore(store);
    }
  });

  it('pins the canonical digests and the exact bytes of policy and trust root as log entry 1', () => {
    const store = newStore();
    try {
      const policy = readPin(store, 'policy');
      expect(policy.bytes.equals(Buffer.from(POLICY_YAML))).toBe(true);
      expect(policy.digest).toBe(digestOf(parseYamlStrict(POLICY_YAML)));
      expect(readPin(store, 'trust').bytes.equals(Buffer.from(TRUST_JSON))).toBe(true);
      const log = readLog(store);
      expect(log.map((e) => [e.seq, e.type, e.unit, e.time])).toEqual([[1, 'store_init', null, T0]]);
      expect(verifyChain(store).entries).toBe(1);
    } finally {
      closeStore(store);
    }
  });

  it('gives the same pin digest to the same document in YAML and in JSON (digest of meaning)', () => {
    const yaml = pinDigestOf(Buffer.from('a: 1\nb: [x, y]\n'), 'policy');
    const json = pinDigestOf(Buffer.from('{"b":["x","y"],"a":1}'), 'policy');
    expect(yaml).toBe(json);
  });

  it('migrations are idempotent: reopening applies nothing and changes nothing', () => {
    const store = newStore();
    const before = tablesDigest(store);
    closeStore(store);
    for (let i = 0; i < 3; i++) {
      const again = openStore(store.home);
      expect(again.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(tablesDigest(again)).toBe(before);
      closeStore(again);
    }
  });

  it('refuses re-init with store_already_initialized and leaves the store unchanged', () => {
    const store = newStore();
    const before = tablesDigest(store);
    closeStore(store);
    expect(codeOf(() => initStore(store.home, { ...pins, now: T0 + 5 }))).toBe('store_already_initialized');
    const again = openStore(store.home);
    expect(tablesDigest(again)).toBe(before);
    closeStore(again);
  });

  it('refuses a missing state directory, database or an uninitialised one with store_missing', () => {
    const home = join(tempDir(), 'state');
    expect(codeOf(() => openStore(home))).toBe('store_missing');
    expect(existsSync(home)).toBe(false);
    // Created and migrated but never initialised (e.g. an init that crashed before pinning).
    closeStore(openStore(home, { create: true }));
    expect(codeOf(() => openStore(home))).toBe('store_missing');
    // ...and init can then still complete.
    closeStore(initStore(home, pins));
    closeStore(openStore(home));
  });

  it('refuses a store with the database file removed (store_missing)', () => {
    const home = join(tempDir(), 'state');
    mkdirSync(home, { mode: 0o700 });
    mkdirSync(join(home, 'bundles'), { mode: 0o700 });
    expect(codeOf(() => openStore(home))).toBe('store_missing');
  });

  it('refuses unparseable policy bytes before creating anything', () => {
    const home = join(tempDir(), 'state');
    expect(codeOf(() => initStore(home, { ...pins, policyBytes: Buffer.from('{"a":1,"a":2}') }))).toBe(
      'json_duplicate_key',
    );
    expect(codeOf(() => initStore(home, { ...pins, trustBytes: Buffer.from([0xff, 0xfe]) }))).toBe('input_unreadable');
    expect(existsSync(home)).toBe(false);
  });

  it('refuses a state directory accessible to group or others (store_permissions_unsafe)', () => {
    const store = newStore();
    closeStore(store);
    chmodSync(store.home, 0o750);
    expect(codeOf(() => openStore(store.home))).toBe('store_permissions_unsafe');
    expect(codeOf(() => initStore(store.home, pins))).toBe('store_permissions_unsafe');
    chmodSync(store.home, 0o700);
    chmodSync(store.bundlesDir, 0o705);
    expect(codeOf(() => openStore(store.home))).toBe('store_permissions_unsafe');
    chmodSync(store.bundlesDir, 0o700);
    chmodSync(store.dbPath, 0o640);
    expect(codeOf(() => openStore(store.home))).toBe('store_permissions_unsafe');
    chmodSync(store.dbPath, 0o600);
    closeStore(openStore(store.home));
  });

  it('refuses an existing directory with loose permissions at init instead of chmod-ing it', () => {
    const home = join(tempDir(), 'state');
    mkdirSync(home, { mode: 0o755 });
    chmodSync(home, 0o755);
    expect(codeOf(() => initStore(home, pins))).toBe('store_permissions_unsafe');
    expect(mode(home)).toBe(0o755);
  });

  it('refuses a state directory that is a symlink (store_permissions_unsafe)', () => {
    const store = newStore();
    closeStore(store);
    const link = join(tempDir(), 'link');
    symlinkSync(store.home, link);
    expect(codeOf(() => openStore(link))).toBe('store_permissions_unsafe');
  });

  it('refuses a database whose schema is newer than the code (store_version_unsupported)', () => {
    const store = newStore();
    closeStore(store);
    const raw = rawConnection(store);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    expect(codeOf(() => openStore(store.home))).toBe('store_version_unsupported');
  });
});
