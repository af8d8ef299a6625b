// The specialised manifest serializer (src/workspace/manifest-digest.ts) must be byte-for-byte the
// generic JCS of the same entries (docs/threat-model.md#rules-that-hold-everywhere "Canonical digests", docs/contract.md#workspace-digest), on random manifests, and must
// hand everything outside its fixed shape to `digestOf` (same digest or same refusal).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson, digestOf } from '../src/core/canonical.js';
import { GovernedError } from '../src/core/errors.js';
import { manifestOf, sortEntries, type ManifestEntry } from '../src/workspace/manifest.js';
import { manifestDigest, manifestJcsText } from '../src/workspace/manifest-digest.js';

/** Deterministic PRNG (mulberry32) so a failure names a reproducible seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Code points that stress JSON string escaping and UTF-8/UTF-16 ordering: ASCII controls, quote,
// backslash, slash, DEL, C1, U+2028/2029 (escaped by some serializers, not by JCS), BMP private
// use and specials above the surrogate block, astral characters (surrogate pairs), U+FFFD.
const INTERESTING = [
  0x00, 0x01, 0x08, 0x09, 0x0a, 0x0c, 0x0d, 0x1f, 0x20, 0x22, 0x2f, 0x5c, 0x7f, 0x80, 0x9f, 0xa0, 0xe9,
  0x2028, 0x2029, 0xd7ff, 0xe000, 0xff21, 0xfeff, 0xfffd, 0xffff, 0x10000, 0x1f600, 0x10ffff,
];

function randomPath(next: () => number): string {
  const parts: string[] = [];
  const n = 1 + Math.floor(next() * 4);
  for (let p = 0; p < n; p++) {
    let s = '';
    const len = 1 + Math.floor(next() * 8);
    for (let i = 0; i < len; i++) {
      const r = next();
      if (r < 0.6) s += String.fromCharCode(0x61 + Math.floor(next() * 26));
      else if (r < 0.9) s += String.fromCodePoint(INTERESTING[Math.floor(next() * INTERESTING.length)] as number);
      else s += String.fromCodePoint(Math.floor(next() * 0xd000) + 1);
    }
    parts.push(s);
  }
  return parts.join('/');
}

const MODES = ['100644', '100755', '120000'] as const;

function randomManifest(seed: number, size: number): ManifestEntry[] {
  const next = rng(seed);
  return Array.from({ length: size }, () => ({
    path: randomPath(next),
    mode: MODES[Math.floor(next() * 3)] as ManifestEntry['mode'],
    sha256: randomBytes(32).toString('hex'),
  }));
}

function byteSorted(entries: readonly ManifestEntry[]): ManifestEntry[] {
  return [...entries].sort((a, b) => Buffer.compare(Buffer.from(a.path, 'utf8'), Buffer.from(b.path, 'utf8')));
}

describe('manifest serializer', () => {
  it('equals canonicalJson / digestOf byte for byte on 200 random manifests', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const entries = byteSorted(randomManifest(seed, seed % 37));
      const plain = entries.map((e) => ({ path: e.path, mode: e.mode, sha256: e.sha256 }));
      expect(manifestJcsText(plain), `seed ${seed}`).toBe(canonicalJson(plain));
      expect(manifestDigest(plain), `seed ${seed}`).toBe(digestOf(plain));
    }
  });

  it('manifestOf digests exactly digestOf(sorted entries) on a large random manifest', () => {
    const entries = randomManifest(4242, 5000);
    const m = manifestOf(entries);
    expect(m.entries).toEqual(byteSorted(entries));
    expect(m.digest).toBe(digestOf(m.entries));
  });

  it('is the empty array for an empty manifest', () => {
    expect(manifestJcsText([])).toBe('[]');
    expect(manifestDigest([])).toBe(digestOf([]));
  });

  it('hands entries outside the fixed shape to digestOf: same digest', () => {
    const sha = 'a'.repeat(64);
    const cases: unknown[][] = [
      [{ path: 'a', mode: '100600', sha256: sha }], // unknown mode
      [{ path: 'a', mode: '100644', sha256: 'A'.repeat(64) }], // upper-case hex
      [{ path: 'a', mode: '100644', sha256: sha, extra: 'x' }], // extra key
      [{ path: 'a', mode: '100644' }], // missing key
      [{ path: 'a', mode: 100644, sha256: sha }], // number mode
    ];
    for (const c of cases) {
      expect(manifestJcsText(c as never)).toBeNull();
      expect(manifestDigest(c as never)).toBe(digestOf(c));
    }
  });

  it('hands entries outside the fixed shape to digestOf: same refusal', () => {
    const sha = 'b'.repeat(64);
    class Entry {
      constructor(
        readonly path: string,
        readonly mode: string,
        readonly sha256: string,
      ) {}
    }
    for (const bad of [
      [{ path: 'lone\uD800surrogate', mode: '100644', sha256: sha }],
      [new Entry('a', '100644', sha)],
    ]) {
      expect(manifestJcsText(bad as never)).toBeNull();
      let caught: unknown;
      try {
        manifestDigest(bad as never);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(GovernedError);
      expect((caught as GovernedError).code).toBe('value_not_canonicalizable');
      expect(() => digestOf(bad)).toThrow(GovernedError);
    }
  });
});

describe('sortEntries', () => {
  it('orders by UTF-8 bytes on random paths, with and without units above U+D7FF', () => {
    for (let seed = 1; seed <= 100; seed++) {
      const entries = randomManifest(seed * 7919, 60);
      const ascii = entries.map((e, i) => ({ ...e, path: `p${(i * 7) % 60}/${e.path.replace(/[^\x00-\x7f]/g, 'x')}` }));
      for (const set of [entries, ascii]) {
        expect(sortEntries(set).map((e) => e.path), `seed ${seed}`).toEqual(byteSorted(set).map((e) => e.path));
      }
    }
  });

  it('puts U+FF21 before an astral character (UTF-16 order would not)', () => {
    const sorted = sortEntries([{ path: '\u{1F600}' }, { path: '\uFF21' }, { path: 'z' }]).map((e) => e.path);
    expect(sorted).toEqual(['z', '\uFF21', '\u{1F600}']);
  });

  it('is stable for equal paths on both paths of the implementation', () => {
    for (const path of ['same', '\u{1F600}same']) {
      const items = [0, 1, 2, 3].map((tag) => ({ path, tag }));
      expect(sortEntries([{ path: `${path}z`, tag: 9 }, ...items]).map((e) => e.tag)).toEqual([0, 1, 2, 3, 9]);
    }
  });
});
