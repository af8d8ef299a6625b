// Receipts, ABORTED runs and consumed authorities made at store level exactly as the runner
// (`governed review-run`, docs/runner.md#the-run-step-by-step) makes them, until that command lands: the challenge is claimed in
// one transaction (`claimRunIn`, with this process as the runner), then the receipt — a real DSSE
// envelope over the RFC 8785 bytes of an in-toto statement whose predicate binds every digest the
// challenge row bound (docs/formats.md#receipt), signed by the reviewer and runner test keys — is committed in
// another (`commitReceiptIn`), or the run is recorded ABORTED (`abortRunIn`). The predicate passes
// the real schema and rules (`verifyReceiptBytes` is run on it before commit).
import { canonicalJson, sha256Digest } from '../../src/core/canonical.js';
import { isVeto, type Finding, type ReviewReceiptPredicate } from '../../src/core/receipt-predicate.js';
import { loadTrustRoot } from '../../src/core/trust-root.js';
import { loadPolicy, reviewerForSlot, type Policy, type Stage } from '../../src/core/policy.js';
import { viewFor } from '../../src/core/bundle/views.js';
import { verifyReceiptBytes } from '../../src/core/verify-receipt.js';
import { parseStructured } from '../../src/core/strict-parse.js';
import {
  abortRunIn,
  claimRunIn,
  closeStore,
  commitReceiptIn,
  consumeAuthorityIn,
  findChallenge,
  issueChallengeIn,
  mutate,
  newChallengeId,
  openStore,
  readPin,
  readProcessIdentity,
  type AuthorityOperation,
  type Challenge,
  type Db,
  type Store,
  type Tx,
} from '../../src/store/index.js';
import { payloadOf, signEnvelope, statementFor, type TestKey } from './receipts.js';
import { challengeBoundFields } from '../../src/flows/run/statement.js';

export interface SigningKeys {
  readonly reviewer: TestKey;
  readonly runner: TestKey;
}

export interface ReceiptOptions {
  readonly verdict?: 'CLEAN' | 'DIRTY';
  /** Findings of a DIRTY receipt (sorted here); vetoes are derived (docs/reviewers.md#reviewer-output). */
  readonly findings?: readonly Finding[];
  /** Runner clock for the claim and the commit (default: now). */
  readonly now?: number;
  /** Sign with these keys instead (forged receipts). */
  readonly signers?: readonly TestKey[];
  /** Sign a separated-mode receipt with this daemon-observed section (trust_mode separated). */
  readonly separation?: ReviewReceiptPredicate['separation'];
}

export interface RecordedReceipt {
  readonly receiptId: string;
  readonly runId: string;
  readonly seq: number;
  readonly envelope: Buffer;
  readonly predicate: ReviewReceiptPredicate;
}

const nowSeconds = (): number => Math.floor(Date.now() / 1000);
const iso = (s: number): string => new Date(s * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
const H = (c: string): string => c.repeat(64);

function requireChallenge(store: Store, challengeId: string): Challenge {
  const c = findChallenge(store, challengeId);
  if (c === null) throw new Error(`no challenge ${challengeId}`);
  return c;
}

function claim(store: Store, c: Challenge, now: number): { runId: string; executionId: string } {
  return mutate(store, now, (tx) =>
    claimRunIn(tx, {
      challengeId: c.challengeId,
      unit: c.unit,
      stage: c.stage,
      slot: c.slot,
      reviewerName: c.reviewer.name,
      reviewerSha256: c.reviewer.sha256,
      runner: readProcessIdentity(process.pid),
      deadline: now + 600,
    }),
  );
}

/** The predicate the runner would sign for this challenge and run (docs/formats.md#receipt). */
export function predicateFor(
  db: Db,
  c: Challenge,
  run: { runId: string; executionId: string },
  o: { verdict: 'CLEAN' | 'DIRTY'; findings: readonly Finding[]; finishedAt: number; separation?: ReviewReceiptPredicate['separation'] },
): ReviewReceiptPredicate {
  const findings = [...o.findings].sort((a, b) => (canonicalJson(a) < canonicalJson(b) ? -1 : 1));
  const writer = db.prepare('SELECT session, boot_id, pid, start_time FROM writers WHERE unit = ? AND session = ?').get(c.unit, c.writerSession) as {
    session: string;
    boot_id: string;
    pid: number;
    start_time: number;
  };
  const self = readProcessIdentity(process.pid);
  return {
    trust_mode: 'co-located',
    ...challengeBoundFields(c),
    run_id: run.runId,
    execution_id: run.executionId,
    verdict: o.verdict,
    findings,
    vetoes: findings.filter(isVeto),
    coverage_matched: true,
    reviewer: { name: c.reviewer.name, sha256: c.reviewer.sha256, interpreter: c.reviewer.interpreter },
    sandbox: { bwrap_sha256: H('2'), profile_digest: `sha256:${H('3')}`, seccomp_digest: `sha256:${H('4')}`, uid: 64500, uid_separated: false },
    attestors: { reviewer_sha256: H('5'), runner_sha256: H('6') },
    reviewer_process: {
      boot_id: self.bootId,
      pid: 2,
      start_time: String(self.startTime + 1),
      namespaces: { cgroup: 1, ipc: 2, mnt: 3, net: 4, pid: 5, user: 6, uts: 7 },
    },
    writers: writer === undefined ? [] : [{ writer_session: writer.session, boot_id: writer.boot_id, pid: writer.pid, start_time: String(writer.start_time) }],
    times: { issued_at: iso(c.issuedAt), started_at: iso(Math.max(c.issuedAt, o.finishedAt - 1)), finished_at: iso(o.finishedAt) },
    ...(o.separation === undefined ? {} : { trust_mode: 'separated' as const, separation: o.separation }),
  };
}

/** Claim, sign and commit one receipt for an open challenge of the store at `home`. */
export function recordReceipt(home: string, challengeId: string, keys: SigningKeys, o: ReceiptOptions = {}): RecordedReceipt {
  const store = openStore(home);
  try {
    const now = o.now ?? nowSeconds();
    const c = requireChallenge(store, challengeId);
    const run = claim(store, c, now);
    const verdict = o.verdict ?? (o.findings !== undefined && o.findings.length > 0 ? 'DIRTY' : 'CLEAN');
    const predicate = predicateFor(store.db, c, run, { verdict, findings: o.findings ?? [], finishedAt: now, ...(o.separation === undefined ? {} : { separation: o.separation }) });
    const payload = payloadOf(statementFor(predicate));
    const envelope = Buffer.from(signEnvelope(payload, o.signers ?? [keys.reviewer, keys.runner]));
    if (o.signers === undefined) {
      // What the runner does before committing: the receipt verifies under the pinned trust root.
      const trust = loadTrustRoot(parseStructured(readPin(store, 'trust').bytes.toString('utf8'), ''));
      verifyReceiptBytes(envelope, trust, { at: iso(now), offline: false });
    }
    const receiptId = sha256Digest(payload);
    const seq = mutate(store, now, (tx) =>
      commitReceiptIn(tx, {
        runId: run.runId,
        receiptId,
        verdict,
        hasVeto: predicate.vetoes.length > 0,
        planningStateDigest: c.planningStateDigest,
        contentDigest: c.contentDigest,
        workStateDigest: c.workStateDigest,
        policyDigest: c.policyDigest,
        trustDigest: c.trustDigest,
        envelope,
      }),
    );
    return { receiptId, runId: run.runId, seq, envelope, predicate };
  } finally {
    closeStore(store);
  }
}

/** Claim a challenge and record the run ABORTED (docs/runner.md#the-run-step-by-step: a failure after the claim). */
export function abortChallenge(home: string, challengeId: string, code = 'review_output_invalid', now = nowSeconds()): { runId: string } {
  const store = openStore(home);
  try {
    const c = requireChallenge(store, challengeId);
    const run = claim(store, c, now);
    mutate(store, now, (tx) => abortRunIn(tx, run.runId, code));
    return { runId: run.runId };
  } finally {
    closeStore(store);
  }
}

/** Consume a recorded authority record for a unit at this log position (the decision domain's use). */
export function consumeAuthority(
  home: string,
  args: { recordId: string; operation: string; ids: readonly string[]; unit: string; stateBefore: string | null; stateAfter: string | null },
): { seq: number } {
  const store = openStore(home);
  try {
    const r = mutate(store, nowSeconds(), (tx) =>
      consumeAuthorityIn(tx, {
        recordId: args.recordId,
        operation: args.operation as AuthorityOperation,
        ids: args.ids,
        unit: args.unit,
        stateBefore: args.stateBefore,
        stateAfter: args.stateAfter,
      }),
    );
    return { seq: r.consumedSeq };
  } finally {
    closeStore(store);
  }
}

// --- synthetic histories at store level (loader tests): the same store API, digests chosen by the test ---

export interface SyntheticUnit {
  readonly unit: string;
  readonly writerSession: string;
  readonly scopeVersion: number;
  readonly scopeEpoch: number;
  readonly baseline: { readonly commit: string; readonly tree: string };
  readonly contractDigest: string;
  readonly sourcesDigest: string;
  readonly policyDigest: string;
  readonly trustDigest: string;
  readonly keys: SigningKeys;
}

export interface SyntheticState {
  readonly planning: string;
  readonly content: string;
  readonly work: string;
  readonly workspace: string;
}

/** The policy pinned at this log position (what `review-challenge` issues under, docs/bundle.md#views, docs/policy.md#policy-and-trust-root). */
function pinnedPolicyIn(db: Db): Policy {
  return loadPolicy(parseStructured(readPin(db, 'policy').bytes.toString('utf8'), ''));
}

/**
 * Inside a mutate: issue a challenge for `state` at the unit's current revision and claim it. As the
 * live path issues it: the slot's reviewer, the TTL and the run budget are the pinned policy's (the
 * reducer refuses anything else, also on replay: docs/audit.md "Replay builds only what the live
 * path could have built").
 */
export function syntheticClaimIn(tx: Tx, u: SyntheticUnit, stage: string, slot: string, state: SyntheticState): { challenge: Challenge; runId: string; executionId: string } {
  const workRevision = tx.db.prepare('SELECT work_revision FROM units WHERE id = ?').pluck().get(u.unit) as number;
  const challengeId = newChallengeId();
  const policy = pinnedPolicyIn(tx.db);
  const r = reviewerForSlot(policy, stage as Stage, slot);
  const reviewer = { name: r.name, sha256: r.sha256, interpreter: r.interpreter };
  issueChallengeIn(tx, {
    challenge: challengeId,
    unit: u.unit,
    stage: stage as 'planning',
    slot,
    writer_session: u.writerSession,
    reviewer,
    view: viewFor(stage as Stage, slot).name,
    bundle_digest: sha256Digest(`${challengeId}-bundle`),
    bundle_size: 64,
    view_digest: sha256Digest(`${challengeId}-view`),
    planning_state_digest: state.planning,
    content_digest: state.content,
    work_state_digest: state.work,
    contract_digest: u.contractDigest,
    sources_digest: u.sourcesDigest,
    workspace_digest: state.workspace,
    baseline: { commit: u.baseline.commit, tree: u.baseline.tree },
    policy_digest: u.policyDigest,
    trust_digest: u.trustDigest,
    scope_version: u.scopeVersion,
    scope_epoch: u.scopeEpoch,
    work_revision: workRevision,
    ttlSeconds: policy.challengeTtlSeconds,
    maxRunsPerContent: policy.doc.max_runs_per_content,
  });
  const challenge = findChallenge(tx.db, challengeId) as Challenge;
  const run = claimRunIn(tx, {
    challengeId,
    unit: u.unit,
    stage,
    slot,
    reviewerName: reviewer.name,
    reviewerSha256: reviewer.sha256,
    runner: readProcessIdentity(process.pid),
    deadline: tx.now + 600,
  });
  return { challenge, ...run };
}

/** Inside a mutate: one signed receipt on `state` (challenge, claim and commit in this transaction). */
export function syntheticReceiptIn(
  tx: Tx,
  u: SyntheticUnit,
  stage: string,
  slot: string,
  state: SyntheticState,
  o: { findings?: readonly Finding[] } = {},
): { receiptId: string; seq: number } {
  const { challenge, runId, executionId } = syntheticClaimIn(tx, u, stage, slot, state);
  const findings = o.findings ?? [];
  const verdict = findings.length > 0 ? 'DIRTY' : 'CLEAN';
  const predicate = predicateFor(tx.db, challenge, { runId, executionId }, { verdict, findings, finishedAt: tx.now });
  const payload = payloadOf(statementFor(predicate));
  const envelope = Buffer.from(signEnvelope(payload, [u.keys.reviewer, u.keys.runner]));
  const receiptId = sha256Digest(payload);
  const seq = commitReceiptIn(tx, {
    runId,
    receiptId,
    verdict,
    hasVeto: predicate.vetoes.length > 0,
    planningStateDigest: state.planning,
    contentDigest: state.content,
    workStateDigest: state.work,
    policyDigest: u.policyDigest,
    trustDigest: u.trustDigest,
    envelope,
  });
  return { receiptId, seq };
}

/** Inside a mutate: one ABORTED run on `state`. */
export function syntheticAbortIn(tx: Tx, u: SyntheticUnit, stage: string, slot: string, state: SyntheticState): { runId: string } {
  const { runId } = syntheticClaimIn(tx, u, stage, slot, state);
  abortRunIn(tx, runId, 'review_output_invalid');
  return { runId };
}
