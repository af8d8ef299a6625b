// docs/runner.md#the-run-step-by-step step 8: after the reviewer exited, recompute EVERYTHING bound at issuance by re-hashing it,
// exactly the way issuance computed it (docs/state.md "Recomputing what a challenge binds";
// src/flows/challenge.ts `prepare` — the same functions, reused), and compare with the challenge:
//
//   policy, trust root  pinned bytes and digests equal to the ones step 1 verified (`reloadPinned`;
//                      any difference → the full `loadPinned` and its digests)
//   scope              the unit's scope version, scope epoch, work revision and baseline
//   contract           the bound contract bytes → strict parse → `contractDigest` (bound-contract.ts)
//   sources            source bytes re-read from the baseline tree (git objects) → `sourcesDigest`
//   workspace          a FULL re-hash of every byte under the product roots (never a stat cache)
//   states             planning-state, content and work-state digests recomputed from the above
//   bundle             the bundle file's bytes re-hashed
//   leases             none active anywhere (docs/overview.md#words; the commit re-checks under the write lock)
//
// Any difference is `review_post_launch_drift` (the IDs name what moved, never a value). A failure to
// recompute (a file became a FIFO, git objects are corrupt, a pin fails its integrity check) keeps its
// own code. Either way the run is recorded as ABORTED by the caller. The preservation inputs (the bound
// preservation contract and the incident history, docs/preservation.md) are part of the planning
// state and are recomputed with it.
import { resolve } from 'node:path';
import { sha256Digest } from '../../core/canonical.js';
import { fail } from '../../core/errors.js';
import { contentDigest, contractDigest, planningStateDigest, workStateDigest } from '../../core/contract/digests.js';
import { sourcesDigest } from '../../core/bundle/sources-digest.js';
import { activeLeaseAt, getScopeVersion, getUnit, type Challenge, type Db } from '../../store/index.js';
import { computeWorkspaceManifest } from '../../workspace/index.js';
import { readBaselineSources } from '../challenge/baseline-sources.js';
import { reloadPinned, type Pinned } from '../challenge/pinned.js';
import { parseBoundContract } from './bound-contract.js';
import { preservationPlanningInput } from '../../store/preservation-state.js';
import { readBundleFile } from './load-challenge.js';

export interface DriftArgs {
  readonly db: Db;
  readonly bundlesDir: string;
  readonly challenge: Challenge;
  /** The repository top level the workspace digest is computed in. */
  readonly repo: string;
  readonly now: number;
  /** The pins step 1 loaded and verified (compared byte for byte now, re-parsed only if they differ). */
  readonly pinned: Pinned;
}

/** Resolve after every recomputation; throws `review_post_launch_drift` naming what moved. */
export async function assertNoDrift(a: DriftArgs): Promise<void> {
  const c = a.challenge;
  const moved: string[] = [];
  const lease = activeLeaseAt(a.db, a.now);
  if (lease !== null) fail('review_lease_taken', [lease]);

  const pinned = reloadPinned(a.db, a.pinned, a.now);
  if (pinned.policyDigest !== c.policyDigest) moved.push('policy');
  if (pinned.trustDigest !== c.trustDigest) moved.push('trust');

  const unit = getUnit(a.db, c.unit);
  if (unit.scopeEpoch !== c.scopeEpoch) moved.push('scope_epoch');
  if (unit.workRevision !== c.workRevision) moved.push('work_revision');
  if (unit.baselineCommit !== c.baseline.commit || unit.baselineTree !== c.baseline.tree) moved.push('baseline');
  const latest = getScopeVersion(a.db, c.unit);
  if (latest.version !== c.scopeVersion) moved.push('scope_version');

  // The contract the challenge bound (its scope version), re-parsed from the stored exact bytes.
  const scope = getScopeVersion(a.db, c.unit, c.scopeVersion);
  const contract = await parseBoundContract(scope.contractBytes);
  if (contractDigest(contract) !== c.contractDigest || latest.contractDigest !== c.contractDigest) moved.push('contract');

  const root = resolve(a.repo);
  const policy = pinned.policy.doc;
  const [sources, work] = await Promise.all([
    readBaselineSources(root, c.baseline.commit, contract),
    computeWorkspaceManifest(root, { productRoots: policy.product_roots, exclude: policy.exclude }),
  ]);
  const srcDigest = sourcesDigest(sources.digests);
  if (srcDigest !== c.sourcesDigest) moved.push('sources');
  if (work.digest !== c.workspaceDigest) moved.push('workspace');

  const planning = planningStateDigest({
    sourceDigests: new Map(sources.digests.map((s) => [s.id, s.digest])),
    contract,
    baseline: { commit: c.baseline.commit, tree: c.baseline.tree },
    ...preservationPlanningInput(a.db, c.unit),
  });
  const content = contentDigest({ planningStateDigest: planning, contract, workspaceDigest: work.digest });
  const workState = workStateDigest({ contentDigest: content, workRevision: unit.workRevision });
  if (planning !== c.planningStateDigest) moved.push('planning_state');
  if (content !== c.contentDigest) moved.push('content');
  if (workState !== c.workStateDigest) moved.push('work_state');

  let bundle: Buffer | null;
  try {
    // The same reader as step 1 (O_NOFOLLOW | O_NONBLOCK, private regular file, exactly the bound
    // size): a bundle swapped for a FIFO, a symlink or a huge file during the run is drift, never a
    // runner blocked on open(2) while it holds the claim (docs/runner.md#the-run-step-by-step step 8, docs/threat-model.md#rules-that-hold-everywhere fail closed).
    bundle = readBundleFile(a.bundlesDir, c, pinned.policy.maxBundleBytes);
  } catch {
    bundle = null;
  }
  if (bundle === null || sha256Digest(bundle) !== c.bundleDigest) moved.push('bundle');

  if (moved.length > 0) fail('review_post_launch_drift', moved);
}
