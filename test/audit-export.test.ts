// `governed audit export` (docs/commands.md#what-each-command-guarantees, docs/threat-model.md#rules-that-hold-everywhere item 6) through the built CLI on a real store: the export
// alone is enough to re-check everything offline — the chain recomputed from log.jsonl, every
// receipt verified by `governed verify` with the exported trust root, every file listed with its
// sha256 — and the export is all-or-nothing, read-only on the store, never over an existing path.
import { readdirSync, readFileSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { digestOf, sha256Hex } from '../src/core/canonical.js';
import { entryHashOf, GENESIS_HASH } from '../src/store/index.js';
import { jsonOut } from './helpers/cli.js';
import { tempDir } from './helpers/receipts.js';
import { edit } from './audit-helpers.js';
import { cloneHome, eligibleStory, storeDigestAt, type Story } from './gate-world.js';
import { errorOf, gov } from './state-helpers.js';

let story: Story;

beforeAll(() => {
  story = eligibleStory();
}, 240_000);

function exportTo(out: string, home = story.w.home, extra: string[] = []) {
  return gov({ ...story.w, home }, ['audit', 'export', '--out', out, ...extra, '--json']);
}

describe('governed audit export', () => {
  it('writes the log, the receipts, the pins and the keys; verifiable anywhere; the store is not written', () => {
    const before = storeDigestAt(story.w.home);
    const out = join(tempDir('governed-export-'), 'audit');
    const r = exportTo(out);
    expect(r.code, r.stderr).toBe(0);
    expect(storeDigestAt(story.w.home)).toBe(before);
    const j = jsonOut(r) as { receipts: number; log_entries: number; log_head: string; keys: number };
    expect(j.receipts).toBe(story.receipts.length);
    // The manifest lists every file with its sha256.
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { log: { entries: number; head: string }; files: { path: string; sha256: string }[] };
    for (const f of manifest.files) expect(sha256Hex(readFileSync(join(out, f.path))), f.path).toBe(f.sha256);
    const listed = new Set(manifest.files.map((f) => f.path));
    for (const sub of ['receipts', 'keys']) for (const name of readdirSync(join(out, sub))) expect(listed.has(`${sub}/${name}`)).toBe(true);
    expect(readdirSync(join(out, 'receipts'))).toHaveLength(story.receipts.length);
    expect(readdirSync(join(out, 'keys')).length).toBe(j.keys);
    // The chain, recomputed from log.jsonl alone.
    const entries = readFileSync(join(out, 'log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { seq: number; time: number; type: string; unit: string | null; payload: never; payload_digest: string; prev_hash: string; entry_hash: string });
    let prev = GENESIS_HASH;
    entries.forEach((e, i) => {
      expect(e.seq).toBe(i + 1);
      expect(digestOf(e.payload)).toBe(e.payload_digest);
      expect(e.prev_hash).toBe(prev);
      expect(entryHashOf(e)).toBe(e.entry_hash);
      prev = e.entry_hash;
    });
    expect(manifest.log).toEqual({ entries: entries.length, head: prev });
    // Every receipt, verified offline with the exported trust root.
    const trust = readdirSync(out).find((f) => f.startsWith('trust.pinned.')) as string;
    const receipts = readdirSync(join(out, 'receipts')).map((f) => join(out, 'receipts', f));
    const v = gov(story.w, ['verify', ...receipts, '--trust', join(out, trust), '--json']);
    expect(v.code, v.stdout).toBe(0);
    // Each receipt file is named by its receipt id (the payload digest).
    for (const rec of story.receipts) expect(existsSync(join(out, 'receipts', `${rec.receiptId.slice('sha256:'.length)}.json`))).toBe(true);
  });

  it('never writes into an existing path (audit_export_output_exists, 2)', () => {
    const out = join(tempDir('governed-export-'), 'audit');
    mkdirSync(out);
    const before = storeDigestAt(story.w.home);
    const r = exportTo(out);
    expect(storeDigestAt(story.w.home)).toBe(before);
    expect(r.code).toBe(2);
    expect(errorOf(r).code).toBe('audit_export_output_exists');
    expect(readdirSync(out)).toEqual([]);
  });

  it('an unknown --unit is unit_unknown (7); nothing is written', () => {
    const out = join(tempDir('governed-export-'), 'audit');
    const before = storeDigestAt(story.w.home);
    const r = exportTo(out, story.w.home, ['--unit', `UNIT-${'0'.repeat(32)}`]);
    expect(storeDigestAt(story.w.home)).toBe(before);
    expect(r.code).toBe(7);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dirname(out))).toEqual([]);
  });

  it('a broken chain is refused (4): no export and no leftover staging directory', () => {
    const home = cloneHome(story);
    edit(home, (db) => db.prepare('UPDATE log SET time = time + 1 WHERE seq = 3').run());
    const out = join(tempDir('governed-export-'), 'audit');
    const before = storeDigestAt(home);
    const r = exportTo(out, home);
    expect(storeDigestAt(home)).toBe(before);
    expect(r.code).toBe(4);
    expect(readdirSync(dirname(out))).toEqual([]);
  });
});
