// Paths changed relative to a unit's baseline (docs/contract.md#validation-rules `contract_change_uncovered`): every path
// whose (mode, sha256) differs between the baseline commit's manifest and the current workspace
// manifest, covering tracked edits, untracked-not-ignored files, staged changes and deletions.
// Both sides are full manifests (git objects vs working-tree bytes), so the index is never trusted.
import { computeCommitManifest } from './commit.js';
import { computeWorkspaceManifest, sortEntries, type ManifestEntry } from './manifest.js';
import type { ScopeOptions } from './scope.js';

export interface ChangedPath {
  readonly path: string;
  /** sha256 hex at the baseline; null when the path did not exist there. */
  readonly baseline: string | null;
  /** sha256 hex in the workspace; null when the path was deleted. */
  readonly current: string | null;
}

export async function changedPaths(root: string, baselineCommit: string, options: ScopeOptions): Promise<ChangedPath[]> {
  const [base, work] = await Promise.all([
    computeCommitManifest(root, baselineCommit, options),
    computeWorkspaceManifest(root, options),
  ]);
  return diffManifests(base.entries, work.entries);
}

/** Pure diff of two manifests; a mode-only change (e.g. chmod +x) is a change. */
export function diffManifests(baseline: readonly ManifestEntry[], current: readonly ManifestEntry[]): ChangedPath[] {
  const before = new Map(baseline.map((e) => [e.path, e]));
  const after = new Map(current.map((e) => [e.path, e]));
  const changed: ChangedPath[] = [];
  for (const path of new Set([...before.keys(), ...after.keys()])) {
    const b = before.get(path);
    const a = after.get(path);
    if (b !== undefined && a !== undefined && b.mode === a.mode && b.sha256 === a.sha256) continue;
    changed.push({ path, baseline: b?.sha256 ?? null, current: a?.sha256 ?? null });
  }
  return sortEntries(changed);
}
