// The changed paths no live directive covers (docs/contract-init.md#uncovered-changes, `contract_change_uncovered`),
// named for the WRITER (docs/contract-init.md "Uncovered changes"): `status` and `unit bind
// --dry-run` list them before issuance refuses, and `review-challenge` names them on stderr when it
// does. They are repository-relative paths of the writer's own workspace — what the writer must fix
// — and never go into an error's ids, a receipt, the log or anything a reviewer sees.
import type { Contract } from '../core/contract/schema.js';
import { checkChangeCoverage } from '../core/contract/coverage.js';
import { isGovernedError, type GovernedError } from '../core/errors.js';
import { computeCommitManifest, computeWorkspaceManifest, diffManifests } from '../workspace/index.js';
import type { ManifestEntry } from '../workspace/manifest-entries.js';

export interface ScopeOptions {
  readonly productRoots: readonly string[];
  readonly exclude: readonly string[];
}

/** Uncovered changed paths of the workspace at `root` against `baselineCommit` (sorted by UTF-8 bytes). */
export async function uncoveredChanges(
  root: string,
  baselineCommit: string,
  contract: Contract,
  scope: ScopeOptions,
  workspace?: readonly ManifestEntry[],
): Promise<string[]> {
  const [work, base] = await Promise.all([
    workspace === undefined ? computeWorkspaceManifest(root, scope).then((m) => m.entries) : Promise.resolve(workspace),
    computeCommitManifest(root, baselineCommit, scope),
  ]);
  return checkChangeCoverage(contract, diffManifests(base.entries, work).map((c) => c.path)).uncoveredPaths;
}

/** The paths a `contract_change_uncovered` refusal carries for the writer's terminal (never its ids). */
export function uncoveredPathsOf(e: unknown): readonly string[] {
  if (!isGovernedError(e) || e.code !== 'contract_change_uncovered') return [];
  const cause = (e as GovernedError).cause as { uncoveredPaths?: unknown } | undefined;
  return Array.isArray(cause?.uncoveredPaths) ? (cause.uncoveredPaths as string[]) : [];
}
