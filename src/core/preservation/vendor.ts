// The tree digest of a vendor source's origin (docs/preservation.md#vendor-sources): the manifest
// (path, mode, sha256) of the vendored directory of the origin repository at the named commit, paths
// relative to that directory. Computed at check time from the origin's own git objects; the contract's
// `tree_digest` must equal it. Pure.
import { digestOf } from '../canonical.js';
import { compareUtf8 } from '../contract/ids.js';

export interface OriginEntry {
  readonly path: string;
  readonly mode: string;
  readonly sha256: string;
}

/** Entries below `dir` ('.' = all), re-rooted at it, sorted; then digested with their own kind. */
export function originTreeDigest(entries: readonly OriginEntry[], dir: string): string {
  const prefix = dir === '.' ? '' : `${dir}/`;
  const rel = entries
    .filter((e) => prefix === '' || e.path.startsWith(prefix))
    .map((e) => ({ path: e.path.slice(prefix.length), mode: e.mode, sha256: e.sha256 }))
    .sort((a, b) => compareUtf8(a.path, b.path));
  return digestOf({ kind: 'governed/vendor-origin-tree', version: 1, entries: rel });
}
