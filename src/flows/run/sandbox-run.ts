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
  type PreparedSandbox,
  type SandboxFacts,
  type SandboxIdentity,
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
  /** A check run: the sealed trees' descriptors and the dependency root's path (check-run.ts). */
  readonly check?: { readonly snapshotFd: number; readonly dependencyFd: number | null; readonly dependencyRoot: string | null } | undefined;
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

/** Step 6: what the receipt will state about the sandbox, checked from outside before release. */
function assertIdentity(sb: PreparedSandbox, a: SandboxRunArgs): void {
  const own = readNamespaces('self');
  for (const name of NAMESPACES) if (sb.identity.namespaces[name] === own[name]) fail('sandbox_not_isolated', [`ns.${name}`]);
  if (sb.facts.reviewerSha256 !== a.reviewer.sha256) fail('reviewer_not_allowlisted', [a.reviewer.name]);
  if (sb.facts.interpreter !== a.reviewer.interpreter) fail('sandbox_identity_mismatch', ['interpreter']);
  const euid = typeof process.geteuid === 'function' ? process.geteuid() : -1;
  const policyUid = a.pinned.policy.doc.sandbox.uid;
  if (sb.facts.uidSeparated !== (euid === 0)) fail('sandbox_uid_mismatch', ['uid_separated']);
  if (sb.facts.uidSeparated && (sb.facts.uid !== policyUid || sb.facts.gid !== policyUid)) fail('sandbox_uid_mismatch', ['uid']);
  if (!sb.facts.uidSeparated && sb.facts.uid !== euid) fail('sandbox_uid_mismatch', ['uid']);
}

export async function runReviewer(a: SandboxRunArgs): Promise<ReviewerRun> {
  const sandbox = a.pinned.policy.doc.sandbox;
  const sb = await prepareSandbox({
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
    ...(a.check === undefined ? {} : { check: a.check }),
  });
  try {
    assertIdentity(sb, a);
  } catch (e) {
    await sb.abort();
    throw e;
  }
  const startedAt = a.clock();
  const r = await sb.release();
  const finishedAt = a.clock();
  if (r.timedOut) fail('reviewer_timeout');
  if (r.outputOverflow) fail('review_output_too_large');
  if (r.setupFailed) fail('reviewer_run_incomplete', ['setup']);
  // A check adapter that reached no verdict says why with a fixed status (check-run.ts).
  const checkCode = a.check === undefined || r.signal !== null ? null : adapterStatusCode(r.exitCode);
  if (checkCode !== null) fail(checkCode);
  if (r.exitCode !== 0 || r.signal !== null) fail('reviewer_exit_nonzero');
  if (!r.cleanupVerified) fail('reviewer_run_incomplete', ['cleanup']);
  return { stdout: r.stdout, identity: sb.identity, facts: sb.facts, startedAt, finishedAt };
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
