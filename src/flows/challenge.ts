// `governed review-challenge --unit U --writer-session S --stage STAGE --slot SLOT [--repo DIR]`
// (docs/bundle.md#the-review-bundle, docs/decision.md#the-rules-in-short; docs/state.md#review-challenge): issue one one-time, expiring challenge for one slot.
//
// Order (each refusal leaves the store as it was, apart from the logged sweep of step 1):
//  1. sweep expired leases and challenges (logged; swept bundle files removed);
//  2. preflight, every independent check evaluated and the docs/commands.md#exit-codes precedence applied among the
//     failures: unknown unit (7), unregistered writer (8), an active lease anywhere (8), a pinned
//     policy/trust root that fails its integrity check (4) or differs from the current files given
//     (4), an expired trust root (5), a stage the policy does not list (2), an unknown slot (2);
//     the slot's reviewer is fixed by the policy, never by the caller;
//  3. the stored scope: exact bytes → contract, digests re-checked, source bytes re-read from the
//     baseline tree and re-digested, every docs/contract.md#validation-rules rule re-applied (an invalid contract is refused);
//  4. full re-hash of the workspace and of the baseline commit under the policy's product roots;
//     changed paths; change coverage (`contract_change_uncovered`);
//  5. planning-state, content and work-state digests (docs/contract.md#the-states-a-receipt-is-judged-against); the run budget of (unit, stage,
//     slot, content digest) (`max_runs_per_content`, counting issued challenges);
//  6. the bundle from the very bytes that were hashed (planning: baseline tree only), the slot's
//     view, coverage, view digest; an empty view or one over `max_bundle` is refused;
//  7. the bundle file written once (exclusive create, 0600), then the challenge recorded in one
//     transaction that re-checks lease, unit state, pins and budget under the write lock; if
//     recording fails the file is removed.
import { resolve } from 'node:path';
import type { ProgressSink } from '../core/progress.js';
import { fail, GovernedError, highestPrecedence, isGovernedError } from '../core/errors.js';
import { contractDigest, contentDigest, planningStateDigest, workStateDigest } from '../core/contract/digests.js';
import { checkChangeCoverage } from '../core/contract/coverage.js';
import { validateContract } from '../core/contract/validate.js';
import { reviewerForSlot, type CheckConfig, type Stage } from '../core/policy.js';
import { checkInputsAtIssue } from './challenge/check-inputs.js';
import { STAGES } from '../core/receipt-predicate.js';
import { buildBundle, evidencePaths, sourcesDigest, type BuiltBundle } from '../core/bundle/index.js';
import {
  closeStore,
  countChallenges,
  getScopeVersion,
  getUnit,
  getWriter,
  hasActiveLease,
  issueChallengeIn,
  listScopeVersions,
  mutate,
  newChallengeId,
  openStore,
  readPin,
  sweepExpiredChallengesIn,
  sweepExpiredIn,
  type Store,
  type Unit,
} from '../store/index.js';
import { computeCommitManifest, computeWorkspaceManifest, diffManifests } from '../workspace/index.js';
import { assertBundleFileWritten, removeBundleFile, writeBundleFile } from './challenge/bundle-file.js';
import { removeOrphanBundlesIn } from './challenge/orphan-bundles.js';
import { ByteBudget, pathOwners, readBaselineEvidence, readWorkspaceEvidence } from './challenge/evidence-files.js';
import { assertCurrentIsPinned, loadPinned, type Pinned } from './challenge/pinned.js';
import { loadPriorReceipts } from './challenge/prior-receipts.js';
import { readBaselineSources } from './challenge/baseline-sources.js';
import { assertStateDirOutsideWorkspace } from './challenge/state-dir.js';
import { consumedAuthorityValidator, parseContractBytes } from './unit-contract.js';
import { preservationPlanningInput } from '../store/preservation-state.js';
import { unreviewableSurfaces } from '../core/bundle/preservation.js';
import { preservationEvidenceOf } from './challenge/preservation-evidence.js';
import { NAME_RE } from '../core/ids.js';

/** A slot is an identifier of the policy (docs/policy.md#policy-and-trust-root names); anything else is never echoed. */
const SLOT_RE = NAME_RE;

export interface ChallengeArgs {
  readonly home: string;
  readonly unit: string;
  readonly writerSession: string;
  readonly stage: string;
  readonly slot: string;
  /** The repository top level (default: the current directory). */
  readonly repo: string;
  /** The policy / trust-root files the deployment holds now; compared with the pinned ones. */
  readonly policyFile?: string | undefined;
  readonly trustFile?: string | undefined;
  /** Runner clock, whole seconds: read at the sweep and again when the challenge is recorded. */
  readonly clock: () => number;
  /** One call as each phase starts (docs/commands.md#progress-on-stderr); fixed words and counts only. */
  readonly progress?: ProgressSink<'review-challenge'> | undefined;
}

export interface ChallengeResult {
  readonly challengeId: string;
  readonly unit: string;
  readonly stage: Stage;
  readonly slot: string;
  readonly issuedAt: number;
  readonly expiresAt: number;
  readonly bundlePath: string;
  readonly bundleDigest: string;
  readonly viewDigest: string;
  readonly view: string;
  readonly reviewer: string;
  readonly sweptChallenges: readonly string[];
  readonly sweptLeases: readonly string[];
}

interface Preflight {
  readonly unit: Unit;
  readonly stage: Stage;
  readonly pinned: Pinned;
  readonly reviewer: { name: string; sha256: string; interpreter: string };
  /** The slot's reviewer is a check reviewer (docs/reviewers.md#check-reviewers). */
  readonly check: CheckConfig | undefined;
}

/** Step 1: record expired leases and challenges, then delete the swept challenges' bundle files. */
function sweep(store: Store, now: number): { leases: string[]; challenges: string[] } {
  const swept = mutate(store, now, (tx) => {
    // Orphans (a bundle file no row names: an issuer killed before recording) go under the same
    // write lock; see challenge/orphan-bundles.ts for why this cannot race a live issuer.
    removeOrphanBundlesIn(tx, store.bundlesDir, now);
    return { leases: sweepExpiredIn(tx), challenges: sweepExpiredChallengesIn(tx) };
  });
  for (const id of swept.challenges) removeBundleFile(store.bundlesDir, id);
  return swept;
}

/** Step 2: the cheap, independent checks, with the docs/commands.md#exit-codes precedence among their failures. */
function preflight(store: Store, args: ChallengeArgs, now: number): Preflight {
  const errors: GovernedError[] = [];
  const attempt = <T>(fn: () => T): T | undefined => {
    try {
      return fn();
    } catch (e) {
      if (!isGovernedError(e)) throw e;
      errors.push(e);
      return undefined;
    }
  };
  const unit = attempt(() => getUnit(store.db, args.unit));
  if (unit !== undefined) attempt(() => getWriter(store.db, unit.unitId, args.writerSession));
  attempt(() => {
    if (hasActiveLease(store.db, { now })) fail('challenge_lease_active');
  });
  const pinned = attempt(() => {
    const p = loadPinned(store.db, now);
    assertCurrentIsPinned(p, { policyFile: args.policyFile, trustFile: args.trustFile });
    return p;
  });
  const stage = (STAGES as readonly string[]).includes(args.stage) ? (args.stage as Stage) : undefined;
  if (stage === undefined) attempt(() => fail('stage_not_in_policy'));
  if (!SLOT_RE.test(args.slot)) attempt(() => fail('slot_unknown'));
  const reviewer =
    pinned !== undefined && stage !== undefined && SLOT_RE.test(args.slot)
      ? attempt(() => reviewerForSlot(pinned.policy, stage, args.slot))
      : undefined;
  if (errors.length > 0) {
    const exit = highestPrecedence(errors.map((e) => e.exit));
    throw errors.find((e) => e.exit === exit) ?? errors[0];
  }
  if (unit === undefined || stage === undefined || pinned === undefined || reviewer === undefined) fail('internal_error', ['preflight']);
  return { unit, stage, pinned, reviewer: { name: reviewer.name, sha256: reviewer.sha256, interpreter: reviewer.interpreter }, check: reviewer.check };
}

interface Prepared {
  readonly built: BuiltBundle;
  readonly challengeId: string;
  readonly record: {
    readonly planningStateDigest: string;
    readonly contentDigest: string;
    readonly workStateDigest: string;
    readonly contractDigest: string;
    readonly sourcesDigest: string;
    readonly workspaceDigest: string;
    readonly scopeVersion: number;
  };
}

type ScopeOptions = { readonly productRoots: readonly string[]; readonly exclude: readonly string[] };

/** Step 3 (docs/contract.md#validation-rules): the bound scope, re-checked and re-validated. */
async function recheckScope(store: Store, args: ChallengeArgs, pre: Preflight, root: string, scopeOptions: ScopeOptions) {
  const { unit, pinned } = pre;
  const db = store.db;
  args.progress?.('scope');
  const scope = getScopeVersion(db, unit.unitId);
  const contract = parseContractBytes(scope.contractBytes);
  if (contractDigest(contract) !== scope.contractDigest) fail('scope_integrity_failed', [`scope:${scope.version}`]);
  assertStateDirOutsideWorkspace(store.home, root, scopeOptions.productRoots, scopeOptions.exclude);
  const sources = await readBaselineSources(root, unit.baselineCommit, contract);
  const srcDigest = sourcesDigest(sources.digests);
  if (srcDigest !== scope.sourcesDigest) fail('scope_integrity_failed', ['sources']);
  validateContract(contract, {
    sourceBytes: sources.bytes,
    productRoots: pinned.policy.doc.product_roots,
    isValidAuthority: consumedAuthorityValidator(db, unit.unitId),
  });
  return { scope, contract, sources, srcDigest };
}

type Rechecked = Awaited<ReturnType<typeof recheckScope>>;

/** Step 4 (docs/contract.md#workspace-digest): full re-hash of the workspace and the baseline; change coverage (docs/contract.md#validation-rules last rule). */
async function rehashAndCover(args: ChallengeArgs, unit: Unit, root: string, scopeOptions: ScopeOptions, contract: Rechecked['contract']) {
  args.progress?.('hash');
  const [work, base] = await Promise.all([
    computeWorkspaceManifest(root, scopeOptions),
    computeCommitManifest(root, unit.baselineCommit, scopeOptions),
  ]);
  const changes = diffManifests(base.entries, work.entries);
  const coverage = checkChangeCoverage(contract, changes.map((c) => c.path));
  if (coverage.error !== null) throw coverage.error;
  return { work, base, changes };
}

type Rehashed = Awaited<ReturnType<typeof rehashAndCover>>;

/** Step 5 (docs/contract.md#the-states-a-receipt-is-judged-against): the states this challenge is judged against, and the run budget (docs/reviewers.md#reviewer-output). */
function judgedStates(store: Store, args: ChallengeArgs, pre: Preflight, scoped: Rechecked, work: Rehashed['work']) {
  const { unit, stage, pinned } = pre;
  const db = store.db;
  const planning = planningStateDigest({
    sourceDigests: new Map(scoped.sources.digests.map((s) => [s.id, s.digest])),
    contract: scoped.contract,
    baseline: { commit: unit.baselineCommit, tree: unit.baselineTree },
    ...preservationPlanningInput(db, unit.unitId),
  });
  const content = contentDigest({ planningStateDigest: planning, contract: scoped.contract, workspaceDigest: work.digest });
  const workState = workStateDigest({ contentDigest: content, workRevision: unit.workRevision });
  const used = countChallenges(db, { unit: unit.unitId, stage, slot: args.slot, contentDigest: content });
  if (used >= pinned.policy.doc.max_runs_per_content) fail('challenge_budget_exhausted', [unit.unitId, `${stage}.${args.slot}`]);
  return { planning, content, workState };
}

/** Step 6 (docs/bundle.md#the-review-bundle): the bundle, from the bytes hashed above (planning: the baseline tree only, docs/contract.md#the-states-a-receipt-is-judged-against). */
async function buildChallengeBundle(
  store: Store,
  args: ChallengeArgs,
  pre: Preflight,
  root: string,
  scopeOptions: ScopeOptions,
  scoped: Rechecked,
  hashed: Rehashed,
): Promise<{ built: BuiltBundle; challengeId: string }> {
  const { unit, stage, pinned } = pre;
  const policy = pinned.policy;
  const db = store.db;
  const { contract, sources } = scoped;
  const { work, base, changes } = hashed;
  args.progress?.('bundle', work.entries.length);
  const paths = evidencePaths(contract, stage);
  const owners = pathOwners(contract);
  const budget = new ByteBudget(policy.maxBundleBytes);
  const baselineFiles = await readBaselineEvidence({
    root,
    commit: unit.baselineCommit,
    manifest: base.entries,
    paths,
    owners,
    exclude: scopeOptions.exclude,
    budget,
  });
  const currentFiles =
    stage === 'planning' ? null : readWorkspaceEvidence({ root, manifest: work.entries, paths, owners, exclude: scopeOptions.exclude, budget });
  // The unit's preservation evidence (docs/bundle.md#the-preservation-section): planning and integration only.
  const preservation =
    stage === 'planning' || stage === 'integration'
      ? await preservationEvidenceOf(db, unit.unitId, policy, { baseline: base.digest, current: work.digest })
      : null;
  const challengeId = newChallengeId();
  const built = buildBundle({
    challengeId,
    unit: unit.unitId,
    stage,
    slot: args.slot,
    contract,
    sourceBytes: sources.bytes,
    scopeHistory: listScopeVersions(db, unit.unitId),
    changes: stage === 'planning' ? null : changes,
    currentFiles,
    baseline: { commit: unit.baselineCommit, tree: unit.baselineTree, manifest: base.entries, files: baselineFiles },
    priorReceipts: loadPriorReceipts(db, unit.unitId, stage),
    preservation: preservation ?? undefined,
    maxBytes: policy.maxBundleBytes,
    check:
      pre.check === undefined
        ? undefined
        : checkInputsAtIssue({ root, check: pre.check, workspace: work.entries, sandboxTimeoutSeconds: policy.sandboxTimeoutSeconds }),
  });
  // Under a policy that requires preservation, a view that shows the section must be able to judge
  // every declared surface: its probes, its N/A reason or its destructive record exist.
  const section = built.bundle.sections.preservation;
  if (section !== undefined && policy.doc.preservation === 'required' && (stage === 'planning' || stage === 'integration')) {
    const missing = unreviewableSurfaces(section, stage);
    if (missing.length > 0) fail('preservation_surface_unreviewable', missing);
  }
  return { built, challengeId };
}

/** Steps 3–6: everything read, hashed, validated and built before anything is written. */
async function prepare(store: Store, args: ChallengeArgs, pre: Preflight): Promise<Prepared> {
  const policy = pre.pinned.policy;
  const root = resolve(args.repo);
  const scopeOptions = { productRoots: policy.doc.product_roots, exclude: policy.doc.exclude };
  const scoped = await recheckScope(store, args, pre, root, scopeOptions);
  const hashed = await rehashAndCover(args, pre.unit, root, scopeOptions, scoped.contract);
  const states = judgedStates(store, args, pre, scoped, hashed.work);
  const { built, challengeId } = await buildChallengeBundle(store, args, pre, root, scopeOptions, scoped, hashed);
  return {
    built,
    challengeId,
    record: {
      planningStateDigest: states.planning,
      contentDigest: states.content,
      workStateDigest: states.workState,
      contractDigest: scoped.scope.contractDigest,
      sourcesDigest: scoped.srcDigest,
      workspaceDigest: hashed.work.digest,
      scopeVersion: scoped.scope.version,
    },
  };
}

export async function issueChallengeFlow(args: ChallengeArgs): Promise<ChallengeResult> {
  const store = openStore(args.home);
  try {
    args.progress?.('check');
    const swept = sweep(store, args.clock());
    const pre = preflight(store, args, args.clock());
    const { built, challengeId, record } = await prepare(store, args, pre);
    args.progress?.('record');
    const bundlePath = writeBundleFile(store.bundlesDir, challengeId, built.bytes);
    let issued: { issuedAt: number; expiresAt: number };
    try {
      issued = mutate(store, args.clock(), (tx) => {
        // The pins may have been replaced (policy/trust update) since the preflight read them.
        if (readPin(tx.db, 'policy').digest !== pre.pinned.policyDigest || readPin(tx.db, 'trust').digest !== pre.pinned.trustDigest) {
          fail('challenge_state_moved', [pre.unit.unitId]);
        }
        assertBundleFileWritten(store.bundlesDir, challengeId, built.bytes.length);
        return issueChallengeIn(tx, {
          challenge: challengeId,
          unit: pre.unit.unitId,
          stage: pre.stage,
          slot: args.slot,
          writer_session: args.writerSession,
          reviewer: pre.reviewer,
          view: built.view.name,
          bundle_digest: built.digest,
          bundle_size: built.bytes.length,
          view_digest: built.viewDigest,
          planning_state_digest: record.planningStateDigest,
          content_digest: record.contentDigest,
          work_state_digest: record.workStateDigest,
          contract_digest: record.contractDigest,
          sources_digest: record.sourcesDigest,
          workspace_digest: record.workspaceDigest,
          baseline: { commit: pre.unit.baselineCommit, tree: pre.unit.baselineTree },
          policy_digest: pre.pinned.policyDigest,
          trust_digest: pre.pinned.trustDigest,
          scope_version: record.scopeVersion,
          scope_epoch: pre.unit.scopeEpoch,
          work_revision: pre.unit.workRevision,
          ttlSeconds: pre.pinned.policy.challengeTtlSeconds,
          maxRunsPerContent: pre.pinned.policy.doc.max_runs_per_content,
        });
      });
    } catch (e) {
      // Nothing half-recorded: a bundle without its challenge row is removed.
      removeBundleFile(store.bundlesDir, challengeId);
      throw e;
    }
    return {
      challengeId,
      unit: pre.unit.unitId,
      stage: pre.stage,
      slot: args.slot,
      issuedAt: issued.issuedAt,
      expiresAt: issued.expiresAt,
      bundlePath,
      bundleDigest: built.digest,
      viewDigest: built.viewDigest,
      view: built.view.name,
      reviewer: pre.reviewer.name,
      sweptChallenges: swept.challenges,
      sweptLeases: swept.leases,
    };
  } finally {
    closeStore(store);
  }
}
