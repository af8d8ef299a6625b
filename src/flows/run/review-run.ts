// `governed review-run --challenge C` — the trusted runner (docs/runner.md#the-run-step-by-step), steps 1–9 in order:
//
//  1. load the challenge (after reaping the unit's stale claims, logged); refuse unknown, expired,
//     consumed, claimed, tampered (row ≠ its log entry, bundle file ≠ its digest) or stale (pins or
//     unit state moved) ones — nothing is claimed, the store is unchanged;      load-challenge.ts
//  2–3. claim in one transaction that re-checks the challenge and that no lease is active;  claim.ts
//  4. pin the policy's reviewer and both attestors (read once, hashed, allowlisted);           pin.ts
//  5–6. run the reviewer in bubblewrap (bwrap, profile, seccomp allowlisted before bwrap runs), its
//     identity read and checked from outside before release;                        sandbox-run.ts
//  7. parse stdout strictly (docs/reviewers.md#reviewer-output);                                     core/review-output.ts
//  8. recompute everything bound at issuance;                                            drift.ts
//  9. build the statement, sign with both attestors in parallel, verify the whole envelope, commit
//     in one transaction, delete the bundle.                      statement.ts, sign.ts, commit.ts
//
// From the claim on, every failure is recorded as ABORTED with its code (abort.ts) and surfaces as
// `RunAborted` carrying the run id and that code. The caller prints only {verdict, run_id,
// receipt_id} — never a digest, reviewer output or stderr; a location refused before the claim
// names the path looked at (what the user must fix), never its contents.
import { GovernedError } from '../../core/errors.js';
import { reviewerProgramName } from '../../core/policy.js';
import { parseReviewOutput } from '../../core/review-output.js';
import { isoSecondsOf } from '../../core/trust-root.js';
import { closeStore, openStore, sweepExpired, unitWriters, type Challenge, type Db, type Store } from '../../store/index.js';
import type { Pinned } from '../challenge/pinned.js';
import { assertCurrentIsPinned } from '../challenge/pinned.js';
import { abortCodeOf, recordAborted } from './abort.js';
import { claimChallenge, type Claimed } from './claim.js';
import { commitReceipt } from './commit.js';
import { assertNoDrift } from './drift.js';
import { assertChallengeCurrent, assertClaimable, assertRowMatchesLog, challengeIdOrUnknown, loadBundle, requireChallenge, type LoadedBundle } from './load-challenge.js';
import { assertLocationsUsable, resolveLocations, type RunLocations } from './locations.js';
import { pinPrograms, policyReviewer, SIGNING_CREDENTIALS, type PinnedPrograms, type PolicyReviewer } from './pin.js';
import type { Separation } from '../../core/receipt-predicate.js';
import { reapAndClean } from './reap.js';
import { makeScratch, removeScratch, sweepScratch } from './scratch.js';
import { assertReviewerIndependent, assertSandboxAccepts, runReviewer, type ReviewerRun, type SandboxDelegate } from './sandbox-run.js';
import { signReceipt, type Signers } from './sign.js';
import { startAttestor, type StartedAttestor } from './attestor-session.js';
import { buildReceiptStatement } from './statement.js';
import { assertEgressUsable, startEgress, type EgressSession } from './egress.js';
import { resolve } from 'node:path';
import type { ProgressSink } from '../../core/progress.js';
import { assertCheckProfileAllowed, checkPlanOf, closeAndVerify, sweepSealed, removeSealedCheck, sealForCheck, type CheckPlan, type SealedCheck } from './check-run.js';

export interface ReviewRunArgs {
  readonly home: string;
  readonly challengeId: string;
  /** The repository top level (default: the current directory), as for review-challenge. */
  readonly repo: string;
  readonly reviewersDir?: string | undefined;
  readonly attestorsDir?: string | undefined;
  readonly bwrapPath?: string | undefined;
  /** The policy / trust-root files the deployment holds now; must equal the pinned ones. */
  readonly policyFile?: string | undefined;
  readonly trustFile?: string | undefined;
  /** Runner clock, whole seconds. */
  readonly clock: () => number;
  /**
   * Separated mode (docs/runnerd.md): the daemon's warm attestors instead of two started per run,
   * and the identity the receipt carries. Absent: co-located, as always.
   */
  readonly separated?: {
    readonly separation: Separation;
    readonly signers: (programs: PinnedPrograms) => Signers;
    /** The daemon's sandbox host: runs the reviewer under the policy's uid (docs/runnerd.md#the-sandbox-host). */
    readonly sandbox?: SandboxDelegate | undefined;
    /** Where the daemon's brokers put their sockets so the sandbox host can reach them
     * (docs/runnerd.md#model-reviewers-and-the-egress-broker); absent: egress slots stay in the daemon. */
    readonly egressSocketDir?: string | null | undefined;
    /** Where check slots' sealed trees are made so the sandbox host can open them
     * (docs/runnerd.md#check-slots-on-the-sandbox-host); absent: /tmp, and check slots stay in the daemon. */
    readonly sealedDir?: string | null | undefined;
  };
  /** One call as each phase starts (docs/commands.md#progress-on-stderr); fixed words and counts only. */
  readonly progress?: ProgressSink<'review-run'> | undefined;
}

export interface ReviewRunResult {
  readonly verdict: 'CLEAN' | 'DIRTY';
  readonly runId: string;
  readonly receiptId: string;
  readonly challengeId: string;
  readonly unit: string;
}

/** A run that was claimed and then recorded as ABORTED (or found aborted by a reaper). */
export class RunAborted extends Error {
  constructor(
    readonly runId: string,
    readonly error: GovernedError,
  ) {
    super(error.message);
    this.name = 'RunAborted';
  }
}

export async function reviewRunFlow(args: ReviewRunArgs): Promise<ReviewRunResult> {
  const id = challengeIdOrUnknown(args.challengeId);
  const progress = args.progress ?? (() => undefined);
  progress('load');
  const store = openStore(args.home);
  try {
    const k = checkBeforeClaim(store, args, id);
    // Steps 2–3: the claim. Nothing above changed the store (apart from a logged reap).
    progress('claim');
    const claimed = claimChallenge(store, args.clock(), k.c, k.pinned.policy.sandboxTimeoutSeconds);
    return await runClaimed(store, args, progress, k, claimed);
  } finally {
    closeStore(store);
  }
}

/** What the checks before the claim established (step 1). */
interface CheckedChallenge {
  readonly c: Challenge;
  readonly pinned: Pinned;
  readonly reviewer: PolicyReviewer;
  readonly loc: RunLocations;
  readonly bundle: LoadedBundle;
  readonly checkPlan: CheckPlan | null;
}

/** What a claimed run holds until it ends: released in runClaimed's finally. */
interface RunHeld {
  readonly signers: { reviewer?: StartedAttestor; runner?: StartedAttestor };
  egress: EgressSession | null;
  sealed: SealedCheck | null;
}

// Step 1 and every check that can refuse before the claim, the store unchanged
// (docs/runner.md#the-run-step-by-step).
function checkBeforeClaim(store: Store, args: ReviewRunArgs, id: string): CheckedChallenge {
  const db = store.db;
  // Step 1 (with the reaping of docs/runner.md#the-run-step-by-step step 3 for the challenge's unit, so a challenge whose
  // runner died is reported as the ABORTED run it is, never claimed twice).
  const first = requireChallenge(db, id);
  reapAndClean(store, args.clock(), first.unit);
  // Expired leases are swept (logged, docs/threat-model.md#rules-that-hold-everywhere allows it before a refusal), as review-challenge does:
  // a lease that lapsed unswept still holds the gate at REVIEW_ONLY (lease_active), and its sweep
  // starts a new work revision, so a challenge issued before it is stale — refused here, before any
  // claim, instead of a run whose receipt could never count.
  sweepExpired(store, args.clock());
  sweepScratch(store);
  sweepSealed(store, args.separated?.sealedDir ?? undefined);
  const c = requireChallenge(db, id);
  const now = args.clock();
  assertClaimable(c, now);
  assertRowMatchesLog(db, c);
  const pinned = assertChallengeCurrent(db, c, now);
  assertCurrentIsPinned(pinned, { policyFile: args.policyFile, trustFile: args.trustFile });
  const reviewer = policyReviewer(pinned, c);
  assertSandboxAccepts(pinned, reviewer);
  // A model reviewer's credential, pinned CA and broker program are checked now, before the claim
  // (docs/egress.md): a missing key is a configuration error with the store unchanged.
  if (reviewer.egress !== undefined) assertEgressUsable(reviewer.egress);
  // Every location resolved and checked now (docs/runner.md "Where the pinned programs come
  // from"): a wrong directory or bwrap path is refused with the store unchanged; only reading and
  // hashing the bytes stays at step 4.
  const loc = resolveLocations({ home: store.home, reviewersDir: args.reviewersDir, attestorsDir: args.attestorsDir, bwrapPath: args.bwrapPath });
  assertLocationsUsable(loc, reviewerProgramName(reviewer), SIGNING_CREDENTIALS);
  const bundle = loadBundle(db, store.bundlesDir, c, pinned.policy.maxBundleBytes);
  // A check slot: the bundle's check inputs are the policy reviewer's (check-run.ts), refused now.
  const checkPlan = checkPlanOf(reviewer, bundle.bytes);
  if (checkPlan !== null) assertCheckProfileAllowed(pinned.policy.doc.sandbox.profile_sha256);
  return { c, pinned, reviewer, loc, bundle, checkPlan };
}

// Steps 4–9 of a claimed run; any failure is recorded as ABORTED (docs/runner.md#the-run-step-by-step).
async function runClaimed(store: Store, args: ReviewRunArgs, progress: ProgressSink<'review-run'>, k: CheckedChallenge, claimed: Claimed): Promise<ReviewRunResult> {
  const db = store.db;
  const { c } = k;
  const held: RunHeld = { signers: {}, egress: null, sealed: null };
  try {
    progress('pin');
    const programs = pinPrograms(k.loc, k.pinned, k.reviewer);
    startSigners(store, args, claimed, programs, held);
    await prepareSandboxInputs(args, progress, k, claimed, held);
    const run = await review(args, progress, k, programs, held);
    const egressReceipt = held.egress === null ? undefined : await held.egress.finish();
    if (held.sealed !== null) closeAndVerify(held.sealed);
    // The reviewer ran in a kernel process identity distinct from every writer's (docs/runner.md
    // "Reviewer independence"). A process that exists only during the run cannot be registered
    // after it, so this read, after the sandbox is gone, sees every registration of it.
    assertReviewerIndependent(db, run.identity);
    const output = parseReviewOutput(run.stdout, k.bundle.coverage);
    progress('drift');
    await assertNoDrift({ db, bundlesDir: store.bundlesDir, challenge: c, repo: args.repo, now: args.clock(), pinned: k.pinned });
    const statement = receiptStatement(db, args, k, claimed, programs, run, output, egressReceipt, held.sealed);
    progress('sign');
    const signed = await signReceipt(statement, held.signers as Signers, k.pinned.trust, isoSecondsOf(new Date(args.clock() * 1000)));
    progress('commit');
    commitReceipt(store, args.clock(), c, claimed.runId, output, signed);
    return { verdict: output.verdict, runId: claimed.runId, receiptId: signed.receiptId, challengeId: c.challengeId, unit: c.unit };
  } catch (e) {
    const error = abortCodeOf(e);
    try {
      recordAborted(store, args.clock(), claimed.runId, c.challengeId, error.code);
    } catch {
      // The store refused even the ABORTED record (e.g. locked beyond the busy timeout): the claim
      // stays, its runner (this process) exits, and the next command touching the unit reaps it.
    }
    throw new RunAborted(claimed.runId, error);
  } finally {
    await Promise.all([held.signers.reviewer?.stop(), held.signers.runner?.stop(), held.egress?.finish().catch(() => undefined)]);
    if (held.sealed !== null) removeSealedCheck(held.sealed);
    removeScratch(store.home, claimed.runId);
  }
}

// Both pinned attestors start now (they see no bundle) so their start-up overlaps the review
// (docs/runner.md#attestors-started-ahead-decision); separated, the daemon's warm ones.
function startSigners(store: Store, args: ReviewRunArgs, claimed: Claimed, programs: PinnedPrograms, held: RunHeld): void {
  const scratch = makeScratch(store.home, claimed.runId);
  if (args.separated === undefined) {
    held.signers.reviewer = startAttestor(programs.reviewerSigner, scratch);
    held.signers.runner = startAttestor(programs.runnerSigner, scratch);
  } else {
    // The warm attestors (checked against the programs pinned for THIS run first).
    const warm = args.separated.signers(programs);
    held.signers.reviewer = warm.reviewer;
    held.signers.runner = warm.runner;
  }
}

// What the sandbox needs besides the bundle: a check slot's sealed content
// (docs/sandbox.md#sealed-snapshots) and a model reviewer's egress broker (docs/egress.md#the-broker-process).
async function prepareSandboxInputs(args: ReviewRunArgs, progress: ProgressSink<'review-run'>, k: CheckedChallenge, claimed: Claimed, held: RunHeld): Promise<void> {
  // A check slot runs on the sealed content (docs/sandbox.md#sealed-snapshots).
  if (k.checkPlan !== null) {
    progress('seal');
    const policy = k.pinned.policy.doc;
    held.sealed = await sealForCheck({
      repo: resolve(args.repo),
      scope: { productRoots: policy.product_roots, exclude: policy.exclude },
      runId: claimed.runId,
      workspaceDigest: k.c.workspaceDigest,
      plan: k.checkPlan,
      parent: args.separated?.sealedDir ?? undefined,
    });
  }
  if (k.reviewer.egress !== undefined) {
    held.egress = await startEgress(k.reviewer.egress, {
      sandboxUid: k.pinned.policy.doc.sandbox.uid,
      timeoutSeconds: k.pinned.policy.sandboxTimeoutSeconds,
      socketParent: args.separated?.egressSocketDir ?? undefined,
    });
  }
}

// Steps 5–6: the reviewer in bubblewrap (docs/runner.md#the-run-step-by-step).
async function review(args: ReviewRunArgs, progress: ProgressSink<'review-run'>, k: CheckedChallenge, programs: PinnedPrograms, held: RunHeld): Promise<ReviewerRun> {
  const { sealed, egress } = held;
  const checkPlan = k.checkPlan;
  progress('review');
  try {
    return await runReviewer({
      bwrapPath: k.loc.bwrapPath,
      pinned: k.pinned,
      reviewer: k.reviewer,
      reviewerBytes: programs.reviewerBytes,
      bundleBytes: k.bundle.bytes,
      clock: args.clock,
      egress: egress?.wiring,
      relay: egress?.relay,
      check:
        sealed === null || checkPlan === null
          ? undefined
          : {
              snapshotFd: sealed.snapshotFd,
              dependencyFd: sealed.dependencyFd,
              dependencyRoot: checkPlan.inputs.dependency_root?.path ?? null,
              dirs: { snapshot: sealed.snapshot.dir, dependencies: sealed.dependencies?.dir ?? null },
            },
    }, args.separated?.sandbox);
  } catch (e) {
    // The broker's verdict first: a reviewer that failed because its request was refused (or
    // the broker died under it) is recorded with the egress code, not as a mere non-zero exit.
    if (egress !== null) await egress.finish();
    throw e;
  }
}

// Step 9: the statement of how this run happened (docs/runner.md#step-9-the-statement).
function receiptStatement(
  db: Db,
  args: ReviewRunArgs,
  k: CheckedChallenge,
  claimed: Claimed,
  programs: PinnedPrograms,
  run: ReviewerRun,
  output: ReturnType<typeof parseReviewOutput>,
  egressReceipt: Awaited<ReturnType<EgressSession['finish']>> | undefined,
  sealed: SealedCheck | null,
): ReturnType<typeof buildReceiptStatement> {
  const checkPlan = k.checkPlan;
  return buildReceiptStatement({
    // How this run happened, never what the policy wishes: co-located unless the daemon ran it.
    trustMode: args.separated === undefined ? 'co-located' : 'separated',
    separation: args.separated?.separation,
    challenge: k.c,
    claimed,
    reviewer: k.reviewer,
    programs,
    run,
    output,
    writers: unitWriters(db, k.c.unit),
    egress: egressReceipt,
    check:
      sealed === null || checkPlan === null
        ? undefined
        : { command: checkPlan.inputs.command, snapshotDigest: sealed.snapshot.digest, dependencyRoot: checkPlan.inputs.dependency_root },
  });
}
