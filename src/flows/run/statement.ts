// docs/formats.md#receipt, docs/runner.md#the-run-step-by-step step 9: the in-toto Statement v1 of one review run. Every field comes from the runner:
// the challenge row (checked against its log entry and re-computed by the drift check), the claim,
// the pinned programs, the sandbox facts and identity read from outside, the registered writers, the
// runner clock — and from the reviewer only its parsed opaque verdict and findings (docs/reviewers.md#reviewer-output: the
// echoed coverage is not stored, only `coverage_matched: true`).
import { canonicalBytes, canonicalJson, sha256Digest } from '../../core/canonical.js';
import { fail } from '../../core/errors.js';
import { buildStatement } from '../../core/intoto.js';
import { checkFormat } from '../../core/format/interpret.js';
import {
  REVIEW_RECEIPT_PREDICATE_TYPE,
  predicateRuleViolation,
  RECEIPT_PREDICATE_FORMAT,
  type ReviewReceiptPredicate,
  type Separation,
} from '../../core/receipt-predicate.js';
import type { ReviewOutput } from '../../core/review-output.js';
import type { EgressReceipt } from '../../core/egress-schema.js';
import { isoSecondsOf } from '../../core/trust-root.js';
import type { Challenge, RunWriter } from '../../store/index.js';
import type { Claimed } from './claim.js';
import type { PinnedPrograms, PolicyReviewer } from './pin.js';
import type { ReviewerRun } from './sandbox-run.js';

/** The predicate schema caps the writers a receipt names. */
import { RECEIPT_MAX_WRITERS as MAX_RECEIPT_WRITERS } from '../../core/limits.js';

export interface StatementInput {
  readonly trustMode: 'co-located' | 'separated';
  /** Separated mode: the daemon's identity and the kernel-reported client (docs/runnerd.md). */
  readonly separation?: Separation | undefined;
  readonly challenge: Challenge;
  readonly claimed: Claimed;
  readonly reviewer: PolicyReviewer;
  readonly programs: PinnedPrograms;
  readonly run: ReviewerRun;
  readonly output: ReviewOutput;
  readonly writers: readonly RunWriter[];
  /** The egress section (docs/egress.md), when the reviewer reached a model endpoint. */
  readonly egress?: EgressReceipt | undefined;
  /** A check run: the command, the sealed snapshot's digest and the dependency root bound (docs/reviewers.md#check-reviewers). */
  readonly check?: { readonly command: readonly string[]; readonly snapshotDigest: string; readonly dependencyRoot: { readonly path: string; readonly digest: string } | null } | undefined;
}

export interface BuiltStatement {
  readonly predicate: ReviewReceiptPredicate;
  /** The exact RFC 8785 bytes that both attestors sign (the DSSE payload). */
  readonly payload: Buffer;
  /** `sha256:` of the payload: the receipt id (docs/formats.md#receipt). */
  readonly receiptId: string;
}

const iso = (seconds: number): string => isoSecondsOf(new Date(seconds * 1000));

/**
 * The predicate fields the challenge row fixed at issue (docs/contract.md#the-states-a-receipt-is-judged-against): what the receipt is about. One
 * definition for the runner and for the test helper that makes receipts "exactly as the runner".
 */
export function challengeBoundFields(c: Challenge) {
  return {
    unit: c.unit,
    stage: c.stage,
    slot: c.slot,
    challenge_id: c.challengeId,
    bundle_digest: c.bundleDigest,
    view_digest: c.viewDigest,
    planning_state_digest: c.planningStateDigest,
    content_digest: c.contentDigest,
    work_state_digest: c.workStateDigest,
    inputs: {
      contract_digest: c.contractDigest,
      sources_digest: c.sourcesDigest,
      workspace_digest: c.workspaceDigest,
      baseline: { commit: c.baseline.commit, tree: c.baseline.tree },
      policy_digest: c.policyDigest,
      trust_digest: c.trustDigest,
      scope_epoch: c.scopeEpoch,
      work_revision: c.workRevision,
    },
  };
}

export function buildReceiptStatement(i: StatementInput): BuiltStatement {
  const c = i.challenge;
  if (i.writers.length > MAX_RECEIPT_WRITERS) fail('run_writers_too_many', [c.unit]);
  // Times are whole seconds of the runner clock, ordered (docs/formats.md#receipt); a clock that went backwards
  // cannot be written into a receipt.
  if (!(c.issuedAt <= i.run.startedAt && i.run.startedAt <= i.run.finishedAt)) fail('run_clock_invalid');
  const predicate: ReviewReceiptPredicate = {
    trust_mode: i.trustMode,
    ...challengeBoundFields(c),
    run_id: i.claimed.runId,
    execution_id: i.claimed.executionId,
    verdict: i.output.verdict,
    findings: [...i.output.findings],
    vetoes: [...i.output.vetoes],
    coverage_matched: true,
    reviewer: { name: i.reviewer.name, sha256: i.run.facts.reviewerSha256, interpreter: i.run.facts.interpreter },
    sandbox: {
      bwrap_sha256: i.run.facts.bwrapSha256,
      profile_digest: i.run.facts.profileDigest,
      seccomp_digest: i.run.facts.seccompDigest,
      uid: i.run.facts.uid,
      uid_separated: i.run.facts.uidSeparated,
    },
    attestors: { reviewer_sha256: i.programs.reviewerSigner.programSha256, runner_sha256: i.programs.runnerSigner.programSha256 },
    reviewer_process: {
      boot_id: i.run.identity.boot_id,
      pid: i.run.identity.pid,
      start_time: i.run.identity.start_time,
      namespaces: { ...i.run.identity.namespaces },
    },
    writers: i.writers.map((w) => ({
      writer_session: w.writerSession,
      boot_id: w.identity.bootId,
      pid: w.identity.pid,
      start_time: String(w.identity.startTime),
    })),
    times: { issued_at: iso(c.issuedAt), started_at: iso(i.run.startedAt), finished_at: iso(i.run.finishedAt) },
    ...(i.egress === undefined ? {} : { egress: i.egress }),
    ...(i.check === undefined
      ? {}
      : {
          check: {
            adapter_sha256: i.run.facts.reviewerSha256,
            command: [...i.check.command],
            snapshot_digest: i.check.snapshotDigest,
            dependency_root: i.check.dependencyRoot === null ? null : { path: i.check.dependencyRoot.path, digest: i.check.dependencyRoot.digest },
          },
        }),
    ...(i.separation === undefined ? {} : { separation: i.separation }),
  };
  // The statement is checked against the very schema and rules every verifier applies before any
  // attestor sees it: a predicate governed cannot vouch for is never sent for signing.
  const parsed = checkFormat(RECEIPT_PREDICATE_FORMAT, predicate);
  if (!parsed.success || predicateRuleViolation(parsed.data, canonicalJson) !== null) fail('internal_error', ['predicate']);
  const statement = buildStatement(
    [{ name: 'workspace', digest: { sha256: c.workspaceDigest.slice('sha256:'.length) } }],
    REVIEW_RECEIPT_PREDICATE_TYPE,
    predicate as unknown as Record<string, unknown>,
  );
  const payload = canonicalBytes(statement);
  return { predicate, payload, receiptId: sha256Digest(payload) };
}
