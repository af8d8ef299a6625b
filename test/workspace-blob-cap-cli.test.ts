// Through the built CLI (GOVERNED_CLI for a private build): a baseline evidence file larger than the
// policy's max_bundle is bundle_too_large (8) — refused before its blob is buffered (unit level:
// test/workspace-blob-cap-read.test.ts) — with the store unchanged, no bundle file and no secret printed.
// And orphan bundle files (an issuer killed between writing its bundle and recording it): removed
// by the next review-challenge under the write lock once older than the grace period; a file whose
// row exists, a fresh orphan and a foreign name are kept; an issuer whose file a cleanup removed
// before it recorded fails closed (bundle_write_failed semantics: nothing recorded).
import { existsSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GovernedError } from '../src/core/errors.js';
import { mutate, openStore, closeStore, tablesDigest } from '../src/store/index.js';
import { assertBundleFileWritten, writeBundleFile } from '../src/flows/challenge/bundle-file.js';
import { ORPHAN_GRACE_SECONDS, removeOrphanBundlesIn } from '../src/flows/challenge/orphan-bundles.js';
import { cleanupDirs, expectRefused, FILE_CANARY, govOk, makeKeys, makeWorld, policyDoc, setupUnit } from './state-helpers.js';

afterEach(cleanupDirs);

const MiB = 1024 * 1024;
const EXPORT_TS = `export const csv = '${FILE_CANARY}';\n`;

function challenge(unit: string, stage: string, slot: string): string[] {
  return ['review-challenge', '--unit', unit, '--writer-session', 'agent-1', '--stage', stage, '--slot', slot];
}

const orphanId = (n: number): string => `CHL-${n.toString(16).padStart(32, '0')}`;

describe('review-challenge: an over-cap baseline blob', () => {
  it('is bundle_too_large (8), store unchanged, no bundle written, no file bytes printed', () => {
    const keys = makeKeys();
    const policy = policyDoc(keys, { sandbox: { ...(policyDoc(keys).sandbox as object), max_bundle: '1MiB' } });
    // The baseline src/export.ts is 2 MiB (canary inside); the workspace version is small, so only
    // the baseline read can exceed the cap.
    const big = `// ${FILE_CANARY}\n${'x'.repeat(2 * MiB)}\n`;
    const w = makeWorld({ keys, policy, baselineFiles: { 'src/export.ts': big } });
    const unit = setupUnit(w);
    w.repo.write('src/export.ts', EXPORT_TS);
    w.repo.write('test/export.test.ts', 'test("csv", () => {});\n');
    const { ids } = expectRefused(w, challenge(unit, 'development', 'coverage'), 'bundle_too_large', 8);
    // Named by the contract item owning the path, never the path or its bytes.
    expect(ids).toEqual(['TGT-1']);
    expect(readdirSync(join(w.home, 'bundles'))).toEqual([]);
  });
});

describe('review-challenge: orphan bundle files', () => {
  it('removes an old orphan; keeps a file whose row exists, a fresh orphan and a foreign name', () => {
    const w = makeWorld({ baselineFiles: { 'src/export.ts': 'export const csv = "baseline";\n' } });
    const unit = setupUnit(w);
    w.repo.write('src/export.ts', EXPORT_TS);
    w.repo.write('test/export.test.ts', 'test("csv", () => {});\n');
    const bundles = join(w.home, 'bundles');
    const first = govOk(w, challenge(unit, 'development', 'coverage')).challenge_id as string;
    const old = Date.now() / 1000 - ORPHAN_GRACE_SECONDS - 120;
    // The issued challenge's file, made old: its row exists, so it stays.
    utimesSync(join(bundles, `${first}.json`), old, old);
    writeFileSync(join(bundles, `${orphanId(1)}.json`), '{"planted":"old"}', { mode: 0o600 });
    utimesSync(join(bundles, `${orphanId(1)}.json`), old, old);
    writeFileSync(join(bundles, `${orphanId(2)}.json`), '{"planted":"fresh"}', { mode: 0o600 });
    writeFileSync(join(bundles, 'notes.txt'), 'not a bundle', { mode: 0o600 });
    utimesSync(join(bundles, 'notes.txt'), old, old);
    const second = govOk(w, challenge(unit, 'development', 'coverage')).challenge_id as string;
    expect(readdirSync(bundles).sort()).toEqual([`${first}.json`, `${second}.json`, `${orphanId(2)}.json`, 'notes.txt'].sort());
  });

  it('the cleanup changes no table, and an issuer whose file it removed before recording fails closed', () => {
    const w = makeWorld();
    setupUnit(w);
    const store = openStore(w.home);
    try {
      const before = tablesDigest(store.db);
      const id = orphanId(3);
      const bytes = Buffer.from('{"bundle":"being issued"}');
      writeBundleFile(store.bundlesDir, id, bytes);
      assertBundleFileWritten(store.bundlesDir, id, bytes.length);
      const now = Math.floor(Date.now() / 1000);
      // Within the grace period: a live issuer's file is left alone.
      expect(mutate(store, now, (tx) => removeOrphanBundlesIn(tx, store.bundlesDir, now))).toEqual([]);
      // The issuer stalls past the grace period; the cleanup (under the write lock) removes it ...
      const later = now + ORPHAN_GRACE_SECONDS + 1;
      expect(mutate(store, later, (tx) => removeOrphanBundlesIn(tx, store.bundlesDir, later))).toEqual([id]);
      expect(existsSync(join(store.bundlesDir, `${id}.json`))).toBe(false);
      expect(tablesDigest(store.db)).toBe(before);
      // ... and the issuer's recording transaction re-checks its file and refuses.
      let code = '';
      try {
        mutate(store, later, () => assertBundleFileWritten(store.bundlesDir, id, bytes.length));
      } catch (e) {
        code = e instanceof GovernedError ? e.code : 'other';
      }
      expect(code).toBe('bundle_write_failed');
      // A file of another size (truncated or replaced) is refused the same way.
      writeBundleFile(store.bundlesDir, orphanId(4), bytes);
      expect(() => assertBundleFileWritten(store.bundlesDir, orphanId(4), bytes.length + 1)).toThrow(GovernedError);
      expect(tablesDigest(store.db)).toBe(before);
    } finally {
      closeStore(store);
    }
  });
});
