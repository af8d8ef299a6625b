// docs/runner.md#the-run-step-by-step steps 5–6: run the pinned reviewer bytes in bubblewrap (runner/sandbox, docs/sandbox.md)
// with the policy's allowlists, interpreter, environment, uid and limits; record the reviewer process
// identity from OUTSIDE while the sandbox is built and blocked, check it, and only then release it.
//
// Checked here before release (on top of runner/sandbox's own checks, so the receipt never states
// something this flow did not see): every namespace differs from this runner's; the bytes streamed in
// are the policy's reviewer; `uid_separated` is true only when governed runs as root AND the sandbox
// runs as the policy's `sandbox.uid` (docs/runner.md#the-run-step-by-step step 6; otherwise the receipt says false and
// docs/security.md explains the same-uid ptrace risk).
//
// After release, anything but a clean exit within the limits is a review failure → ABORTED (step 7):
// timeout, stdout over max_output, a setup failure after release, a process left behind, a non-zero
// exit or a signal. stderr is never kept (only counted by the sandbox), never echoed.
import { fail } from '../../core/errors.js';
import {
  prepareSandbox,
  sandboxLimitsFromPolicy,
  type SandboxFacts,
  type SandboxIdentity,
  type SandboxRequest,
  type SandboxResult,
} from '../../../runner/sandbox/index.js';
import { validateInterpreterPath, validatePolicyEnv, type EgressWiring } from '../../../runner/sandbox/argv.js';
import { validateLimits } from '../../../runner/sandbox/limits.js';
import { SANDBOX_HELPERS } from '../../../runner/sandbox/profile.js';
import { assertTrustedUsrExecutable } from '../../../runner/sandbox/trusted-file.js';
import { NAMESPACES, readNamespaces } from '../../../runner/sandbox/proc.js';
import type { Pinned } from '../challenge/pinned.js';
import { writersWithIdentity, type Db } from '../../store/index.js';
import type { PolicyReviewer } from './pin.js';
import { adapterStatusCode } from './check-run.js';

export interface ReviewerRun {
  /** Reviewer stdout, at most the policy's max_output bytes. */
  readonly stdout: Buffer;
  readonly identity: SandboxIdentity;
  readonly facts: SandboxFacts;
  /** Runner clock (whole seconds) at release and after the sandbox exited. */
  readonly startedAt: number;
  readonly finishedAt: number;
}

export interface SandboxRunArgs {
  readonly bwrapPath: string;
  readonly pinned: Pinned;
  readonly reviewer: PolicyReviewer;
  readonly reviewerBytes: Buffer;
  readonly bundleBytes: Buffer;
  readonly clock: () => number;
  /** The egress broker's socket and variables (docs/egress.md), for a reviewer with an egress entry. */
  readonly egress?: EgressWiring | undefined;
  /** Behind the in-sandbox relay: its pinned bytes and allowlist (docs/egress.md#the-in-sandbox-relay). */
  readonly relay?: { readonly bytes: Buffer; readonly sha256: readonly string[] } | undefined;
  /** A check run: the sealed trees' descriptors and the dependency root's path (check-run.ts); their
   * paths too, for a sandbox host that opens them itself (docs/runnerd.md#check-slots-on-the-sandbox-host). */
  readonly check?:
    | {
        readonly snapshotFd: number;
        readonly dependencyFd: number | null;
        readonly dependencyRoot: string | null;
        readonly dirs?: { readonly snapshot: string; readonly dependencies: string | null } | undefined;
      }
    | undefined;
}

/**
 * Step 1 (before the claim): the sandbox's own input rules applied to the pinned policy's limits and
 * to the slot's reviewer, and its /usr programs checked where they are. The policy loaders refuse such values now (src/core/sandbox-bounds.ts: a
 * timeout over a day, a max_output over 256 MiB, memory under 16 MiB, an interpreter path with a `.`
 * or empty segment), so a pinned policy cannot carry them; this is defence in depth, kept because a
 * run refused here costs nothing, while one refused after its claim ends ABORTED and blocks the slot
 * until the content changes (docs/decision.md#the-rules-in-short), which fixing the policy does not do. Store unchanged
 * (`sandbox_argument_invalid`, the sandbox's code); `prepareSandbox` re-applies the same functions
 * to the same values after the claim.
 */
export function assertSandboxAccepts(pinned: Pinned, reviewer: PolicyReviewer): void {
  validateLimits(sandboxLimitsFromPolicy(pinned.policy));
  validateInterpreterPath(reviewer.interpreter);
  validatePolicyEnv(reviewer.env);
  // The host programs the sandbox runs from /usr (the interpreter, sh, env, prlimit): present,
  // root-owned, not group/other-writable, not setuid — the same check `prepareSandbox` repeats.
  assertTrustedUsrExecutable(reviewer.interpreter, 'sandbox_interpreter_invalid', 'interpreter');
  for (const helper of SANDBOX_HELPERS) assertTrustedUsrExecutable(helper, 'sandbox_helper_missing', helper);
}

/** What a run must show before release: the slot's reviewer, interpreter and the policy's uid. */
export interface SandboxExpectation {
  readonly reviewerSha256: string;
  readonly interpreter: string;
  readonly policyUid: number;
}

/** Step 6: what the receipt will state about the sandbox, checked from outside before release. */
export function assertIdentity(identity: SandboxIdentity, facts: SandboxFacts, x: SandboxExpectation, hosted: boolean): void {
  const own = readNamespaces('self');
  for (const name of NAMESPACES) if (identity.namespaces[name] === own[name]) fail('sandbox_not_isolated', [`ns.${name}`]);
  if (facts.reviewerSha256 !== x.reviewerSha256) fail('reviewer_not_allowlisted', ['reviewer']);
  if (facts.interpreter !== x.interpreter) fail('sandbox_identity_mismatch', ['interpreter']);
  const euid = typeof process.geteuid === 'function' ? process.geteuid() : -1;
  // Separated: governed is root (co-located) or this is the daemon's sandbox host, started by root
  // as exactly the policy's uid (docs/runnerd.md#the-sandbox-host).
  if (facts.uidSeparated !== (euid === 0 || hosted)) fail('sandbox_uid_mismatch', ['uid_separated']);
  if (facts.uidSeparated && (facts.uid !== x.policyUid || facts.gid !== x.policyUid)) fail('sandbox_uid_mismatch', ['uid']);
  if (!facts.uidSeparated && facts.uid !== euid) fail('sandbox_uid_mismatch', ['uid']);
}

/** The sandbox request of one run (what a sandbox host receives whole). */
export function sandboxRequestOf(a: SandboxRunArgs): SandboxRequest {
  const sandbox = a.pinned.policy.doc.sandbox;
  return {
    bwrapPath: a.bwrapPath,
    allow: {
      bwrapSha256: sandbox.bwrap_sha256,
      profileSha256: sandbox.profile_sha256,
      seccompSha256: sandbox.seccomp_sha256,
      reviewerSha256: a.reviewer.sha256,
    },
    interpreter: a.reviewer.interpreter,
    reviewer: { bytes: a.reviewerBytes },
    bundleBytes: a.bundleBytes,
    env: a.reviewer.env,
    uid: sandbox.uid,
    gid: sandbox.uid,
    limits: sandboxLimitsFromPolicy(a.pinned.policy),
    egress: a.egress,
    relay: a.relay,
    ...(a.check === undefined ? {} : { check: { snapshotFd: a.check.snapshotFd, dependencyFd: a.check.dependencyFd, dependencyRoot: a.check.dependencyRoot } }),
  };
}

/** What a sandbox run returns to the runner: bwrap's result and the clock at release and exit. */
export interface CheckedSandboxRun {
  readonly result: SandboxResult;
  readonly startedAt: number;
  readonly finishedAt: number;
}

/** Prepare, check the identity from outside, release (or abort): the part a sandbox host runs. */
export async function runSandboxChecked(req: SandboxRequest, clock: () => number): Promise<CheckedSandboxRun> {
  const sb = await prepareSandbox(req);
  try {
    assertIdentity(sb.identity, sb.facts, { reviewerSha256: req.allow.reviewerSha256, interpreter: req.interpreter, policyUid: req.uid }, req.hosted === true);
  } catch (e) {
    await sb.abort();
    throw e;
  }
  const startedAt = clock();
  const result = await sb.release();
  return { result, startedAt, finishedAt: clock() };
}

/**
 * Runs one sandbox somewhere else (separated mode: the daemon's sandbox host, under the policy's
 * uid); returns null when this run stays in this process.
 */
export type SandboxDelegate = (req: SandboxRequest, a: SandboxRunArgs) => Promise<CheckedSandboxRun> | null;

export async function runReviewer(a: SandboxRunArgs, delegate?: SandboxDelegate): Promise<ReviewerRun> {
  const req = sandboxRequestOf(a);
  const hostedRun = delegate?.(req, a) ?? null;
  const { result: r, startedAt, finishedAt } = hostedRun === null ? await runSandboxChecked(req, a.clock) : await hostedRun;
  // A hosted run is checked again here, by the runner that signs: what the host reports must be
  // what this run asked for, under the policy's uid, isolated from this process too.
  if (hostedRun !== null) {
    assertIdentity(r.identity, r.facts, { reviewerSha256: a.reviewer.sha256, interpreter: a.reviewer.interpreter, policyUid: a.pinned.policy.doc.sandbox.uid }, true);
  }
  if (r.timedOut) fail('reviewer_timeout');
  if (r.outputOverflow) fail('review_output_too_large');
  if (r.setupFailed) fail('reviewer_run_incomplete', ['setup']);
  // A check adapter that reached no verdict says why with a fixed status (check-run.ts).
  const checkCode = a.check === undefined || r.signal !== null ? null : adapterStatusCode(r.exitCode);
  if (checkCode !== null) fail(checkCode);
  if (r.exitCode !== 0 || r.signal !== null) fail('reviewer_exit_nonzero');
  if (!r.cleanupVerified) fail('reviewer_run_incomplete', ['cleanup']);
  return { stdout: r.stdout, identity: r.identity, facts: r.facts, startedAt, finishedAt };
}

/**
 * After the run: no registered writer, of any unit, has the reviewer's process identity (boot id,
 * host pid, start time): `review_process_not_independent`, ABORTED. `writer register` refuses such
 * a process itself; this catches a registration that bypassed that check (docs/runner.md
 * "Reviewer independence").
 */
export function assertReviewerIndependent(db: Db, identity: SandboxIdentity): void {
  const startTime = Number(identity.start_time);
  if (writersWithIdentity(db, { bootId: identity.boot_id, pid: identity.pid, startTime }).length > 0) fail('review_process_not_independent', ['reviewer_process']);
}
