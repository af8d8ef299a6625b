// The manifest value (docs/contract.md#workspace-digest): entries sorted by UTF-8 path bytes and their JCS digest. Kept
// apart from the working-tree hashing (./manifest.ts, with its hash pool and worker threads) so the
// commit manifest (./commit.ts), and with it the gate's cold start, loads none of that.
import type { GitMode } from './hash-file.js';
import { manifestDigest } from './manifest-digest.js';

export interface ManifestEntry {
  readonly path: string;
  readonly mode: GitMode;
  /** 64 lowercase hex: SHA-256 of the file bytes (of the target text for a symlink). */
  readonly sha256: string;
}

export interface Manifest {
  readonly entries: readonly ManifestEntry[];
  /** `sha256:<hex>` = digestOf(entries). */
  readonly digest: string;
}

/**
 * Sort by UTF-8 bytes (not UTF-16 code units, which order some non-BMP text differently). Below
 * U+D800 a UTF-16 code unit is its code point and UTF-8 preserves code point order, so when no path
 * holds a unit >= U+D800 the native string order is the byte order and no key is encoded. Stable,
 * like the keyed sort it falls back to.
 */
export function sortEntries<T extends { readonly path: string }>(items: readonly T[]): T[] {
  if (items.every((item) => !HIGH_UNIT.test(item.path))) {
    return [...items].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
  const keyed = items.map((item) => ({ item, key: Buffer.from(item.path, 'utf8') }));
  keyed.sort((a, b) => Buffer.compare(a.key, b.key));
  return keyed.map((k) => k.item);
}

const HIGH_UNIT = /[\uD800-\uFFFF]/;

/** Build the manifest from entries in any order; the digest covers exactly these fields. */
export function manifestOf(entries: readonly ManifestEntry[]): Manifest {
  const sorted = sortEntries(entries).map((e) => ({ path: e.path, mode: e.mode, sha256: e.sha256 }));
  return { entries: sorted, digest: manifestDigest(sorted) };
}

