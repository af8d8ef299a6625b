// The runs store (src/store/runs.ts, reducers/runs.ts; docs/state.md#the-store, docs/runner.md#the-run-step-by-step): claim, commit, abort and reap
// at store level, what the commit re-checks under the write lock, what the reducers refuse at a log
// position (so a forged or reordered entry cannot replay), and replay equality over all of it.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Digest } from '../src/core/canonical.js';
import {
  abortRunIn,
  acquireLease,
  assertReplayMatches,
  challengeIssueEntry,
  claimRun,
  closeStore,
  commitReceiptIn,
  findChallenge,
  getRun,
  mutate,
  openStore,
  readProcessIdentity,
  reapStaleClaimsIn,
  releaseLease,
  tablesDigest,
  type Challenge,
  type Store,
} from '../src/store/index.js';
import { payloadOf, samplePredicate, signEnvelope, statementFor } from './helpers/receipts.js';
import { cleanupDirs, tempDir } from './state-helpers.js';
import { issue, makeRunWorld, type RunWorld } from './run-helpers.js';
import { isGovernedError } from '../src/core/errors.js';

let w: RunWorld;
let store: Store;
const now = (): number => Math.floor(Date.now() / 1000);

/** Wait (≤ 1 s) until the real clock reads `second`: log time never goes backwards (store_clock_regressed),
 * so a claim "past its deadline" is made by letting the deadline pass, not by back-dating the claim. */
async function clockAt(second: number): Promise<number> {
  while (now() < second) await new Promise((r) => setTimeout(r, 20));
  return now();
}

beforeAll(async () => {
  w = await makeRunWorld({ modes: ['clean'] });
  store = openStore(w.home);
}, 120_000);
afterAll(() => {
  closeStore(store);
  cleanupDirs();
});

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isGovernedError(e)) return e.code;
    throw e;
  }
  return 'no error';
}

function fresh(): Challenge {
  return findChallenge(store.db, issue(w, 'clean')) as Challenge;
}

function claim(c: Challenge, o: { at?: number; deadline?: number; runner?: ReturnType<typeof readProcessIdentity> } = {}): { runId: string; executionId: string } {
  const at = o.at ?? now();
  return claimRun(store, at, {
    challengeId: c.challengeId,
    unit: c.unit,
    stage: c.stage,
    slot: c.slot,
    reviewerName: c.reviewer.name,
    reviewerSha256: c.reviewer.sha256,
    runner: o.runner ?? readProcessIdentity(process.pid),
    deadline: o.deadline ?? at + 600,
  });
}

/** A real two-signature envelope for the claimed run (what review-run would commit). */
function receiptFor(c: Challenge, run: { runId: string; executionId: string }, at: number) {
  const iso = (x: number): string => new Date(x * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const predicate = samplePredicate({
    unit: c.unit,
    stage: c.stage,
    slot: c.slot,
    challenge_id: c.challengeId,
    run_id: run.runId,
    execution_id: run.executionId,
    bundle_digest: c.bundleDigest,
    view_digest: c.viewDigest,
    planning_state_digest: c.planningStateDigest,
    content_digest: c.contentDigest,
    work_state_digest: c.workStateDigest,
    inputs: {
      contract_digest: c.contractDigest,
      sources_digest: c.sourcesDigest,
      workspace_digest: c.workspaceDigest,
      baseline: c.baseline,
      policy_digest: c.policyDigest,
      trust_digest: c.trustDigest,
      scope_epoch: c.scopeEpoch,
      work_revision: c.workRevision,
    },
    times: { issued_at: iso(c.issuedAt), started_at: iso(Math.max(c.issuedAt, at)), finished_at: iso(Math.max(c.issuedAt, at)) },
  });
  const payload = payloadOf(statementFor(predicate));
  const envelope = Buffer.from(signEnvelope(payload, [w.keys.reviewer, w.keys.runner]));
  return {
    runId: run.runId,
    receiptId: sha256Digest(payload),
    verdict: 'CLEAN' as const,
    hasVeto: false,
    planningStateDigest: c.planningStateDigest,
    contentDigest: c.contentDigest,
    workStateDigest: c.workStateDigest,
    policyDigest: c.policyDigest,
    trustDigest: c.trustDigest,
    envelope,
  };
}

describe('the commit re-checks under the write lock (docs/runner.md#the-run-step-by-step step 9)', () => {
  it('commits a claimed run once; a second commit or an abort of the ended run is refused', () => {
    const c = fresh();
    const run = claim(c);
    const t = now();
    mutate(store, t, (tx) => commitReceiptIn(tx, receiptFor(c, run, t)));
    expect(getRun(store.db, run.runId)?.status).toBe('receipt');
    expect(codeOf(() => mutate(store, t, (tx) => commitReceiptIn(tx, receiptFor(c, run, t))))).toBe('run_not_claimed');
    expect(codeOf(() => mutate(store, t, (tx) => abortRunIn(tx, run.runId, 'reviewer_timeout')))).toBe('run_not_claimed');
  });

  it('a claim aborted meanwhile → run_claim_aborted; nothing committed', () => {
    const c = fresh();
    const run = claim(c);
    const t = now();
    mutate(store, t, (tx) => abortRunIn(tx, run.runId, 'run_deadline_passed'));
    const before = tablesDigest(store);
    expect(codeOf(() => mutate(store, t, (tx) => commitReceiptIn(tx, receiptFor(c, run, t))))).toBe('run_claim_aborted');
    expect(tablesDigest(store)).toBe(before);
  });

  it('past the deadline → run_deadline_passed; a lease active on ANY unit → review_lease_taken', async () => {
    const c = fresh();
    const t0 = now();
    const late = claim(c, { at: t0, deadline: t0 + 1 });
    const t = await clockAt(t0 + 1);
    expect(codeOf(() => mutate(store, t, (tx) => commitReceiptIn(tx, receiptFor(c, late, t))))).toBe('run_deadline_passed');
    const c2 = fresh();
    const run = claim(c2);
    const lease = acquireLease(store, { unit: w.unit, writerSession: 'agent-1', ttlSeconds: 600, now: t }).leaseId;
    const before = tablesDigest(store);
    expect(codeOf(() => mutate(store, t, (tx) => commitReceiptIn(tx, receiptFor(c2, run, t))))).toBe('review_lease_taken');
    expect(tablesDigest(store)).toBe(before);
    releaseLease(store, { leaseId: lease, writerSession: 'agent-1', now: t });
    // Clean up the two claims (ABORTED, as the runner would).
    mutate(store, t, (tx) => {
      abortRunIn(tx, late.runId, 'run_deadline_passed');
      abortRunIn(tx, run.runId, 'review_lease_taken');
    });
  });

  it('a claim while a lease is active → run_lease_active', () => {
    const c = fresh();
    const t = now();
    const lease = acquireLease(store, { unit: w.unit, writerSession: 'agent-1', ttlSeconds: 600, now: t }).leaseId;
    expect(codeOf(() => claim(c, { at: t }))).toBe('run_lease_active');
    releaseLease(store, { leaseId: lease, writerSession: 'agent-1', now: t });
  });
});

describe('the reducers refuse entries that do not follow from the state before them', () => {
  function forged(c: Challenge, run: { runId: string; executionId: string }, over: Record<string, unknown>): string {
    const t = now();
    const r = receiptFor(c, run, t);
    return codeOf(() =>
      mutate(store, t, (tx) =>
        tx.append('run_receipt', c.unit, {
          run: r.runId,
          challenge: c.challengeId,
          unit: c.unit,
          receipt: r.receiptId,
          stage: c.stage,
          slot: c.slot,
          verdict: 'CLEAN',
          has_veto: false,
          planning_state_digest: c.planningStateDigest,
          content_digest: c.contentDigest,
          work_state_digest: c.workStateDigest,
          policy_digest: c.policyDigest,
          trust_digest: c.trustDigest,
          envelope_b64: r.envelope.toString('base64'),
          recorded_at: t,
          ...over,
        } as never),
      ),
    );
  }

  it('run_receipt naming other digests, another receipt id, another verdict, or a veto the envelope lacks', () => {
    const c = fresh();
    const run = claim(c);
    const before = tablesDigest(store);
    expect(forged(c, run, { work_state_digest: `sha256:${'1'.repeat(64)}` })).toBe('log_entry_not_applicable');
    expect(forged(c, run, { receipt: `sha256:${'2'.repeat(64)}` })).toBe('log_entry_not_applicable');
    expect(forged(c, run, { verdict: 'DIRTY' })).toBe('log_entry_not_applicable');
    expect(forged(c, run, { has_veto: true })).toBe('log_entry_not_applicable');
    expect(forged(c, run, { envelope_b64: Buffer.from('{}').toString('base64') })).toBe('log_entry_not_applicable');
    expect(tablesDigest(store)).toBe(before);
    // Control: the honest entry applies.
    expect(forged(c, run, {})).toBe('no error');
  });

  it('run_receipt past the deadline or while a lease is active does not apply', async () => {
    const c = fresh();
    const t0 = now();
    const late = claim(c, { at: t0, deadline: t0 + 1 });
    const t = await clockAt(t0 + 1);
    expect(forged(c, late, {})).toBe('log_entry_not_applicable');
    const c2 = fresh();
    const run = claim(c2);
    const lease = acquireLease(store, { unit: w.unit, writerSession: 'agent-1', ttlSeconds: 600, now: t }).leaseId;
    expect(forged(c2, run, {})).toBe('log_entry_not_applicable');
    releaseLease(store, { leaseId: lease, writerSession: 'agent-1', now: t });
    mutate(store, t, (tx) => {
      abortRunIn(tx, late.runId, 'run_deadline_passed');
      abortRunIn(tx, run.runId, 'review_lease_taken');
    });
  });

  it('run_claim of an expired, claimed or other-slot challenge, or under a lease, does not apply', () => {
    const c = fresh();
    claim(c);
    const t = now();
    const self = readProcessIdentity(process.pid);
    const raw = (over: Record<string, unknown>): string =>
      codeOf(() =>
        mutate(store, t, (tx) =>
          tx.append('run_claim', c.unit, {
            run: `RUN-${'a'.repeat(32)}`,
            challenge: c.challengeId,
            execution: `EXE-${'b'.repeat(32)}`,
            unit: c.unit,
            stage: c.stage,
            slot: c.slot,
            reviewer_name: c.reviewer.name,
            reviewer_sha256: c.reviewer.sha256,
            runner: { boot_id: self.bootId, pid: self.pid, start_time: String(self.startTime) },
            claimed_at: t,
            deadline: t + 600,
            ...over,
          } as never),
        ),
      );
    expect(raw({})).toBe('log_entry_not_applicable');
    const open = fresh();
    expect(raw({ challenge: open.challengeId, slot: 'other' })).toBe('log_entry_not_applicable');
    expect(raw({ challenge: open.challengeId, claimed_at: open.expiresAt, deadline: open.expiresAt + 600 })).toBe('log_entry_not_applicable');
    // A claim while a lease is active does not apply at its log position either.
    const lease = acquireLease(store, { unit: w.unit, writerSession: 'agent-1', ttlSeconds: 600, now: t }).leaseId;
    expect(raw({ challenge: open.challengeId })).toBe('log_entry_not_applicable');
    releaseLease(store, { leaseId: lease, writerSession: 'agent-1', now: t });
    // Control: the same raw entry applies to an open challenge with no lease.
    expect(raw({ challenge: open.challengeId })).toBe('no error');
  });
});

describe('reaping (docs/runner.md#the-run-step-by-step step 3)', () => {
  it('a dead runner → runner_gone; a passed deadline → run_deadline_passed; a live run in time is never touched', async () => {
    const self = readProcessIdentity(process.pid);
    const dead = claim(fresh(), { runner: { ...self, startTime: self.startTime + 3 } });
    const lateChallenge = fresh();
    const t0 = now();
    const late = claim(lateChallenge, { at: t0, deadline: t0 + 1 });
    const t = await clockAt(t0 + 1);
    const live = claim(fresh());
    const reaped = mutate(store, t, (tx) => reapStaleClaimsIn(tx, w.unit));
    expect(reaped.sort()).toEqual([dead.runId, late.runId].sort());
    expect(getRun(store.db, dead.runId)).toMatchObject({ status: 'aborted', abortCode: 'runner_gone' });
    expect(getRun(store.db, late.runId)).toMatchObject({ status: 'aborted', abortCode: 'run_deadline_passed' });
    expect(getRun(store.db, live.runId)?.status).toBe('claimed');
    mutate(store, t, (tx) => abortRunIn(tx, live.runId, 'internal_error'));
  });
});

describe('the challenge row is checked against its log entry', () => {
  it('challengeIssueEntry returns the logged payload of exactly that challenge', () => {
    const c = fresh();
    const p = challengeIssueEntry(store.db, c.challengeId, c.issuedAt) as Record<string, unknown>;
    expect(p).toMatchObject({ challenge: c.challengeId, bundle_digest: c.bundleDigest, expires_at: c.expiresAt });
    expect(challengeIssueEntry(store.db, c.challengeId, c.issuedAt + 1)).toBeNull();
  });
});

describe('replay', () => {
  it('claims, receipts, ABORTED runs and reaped claims replay to exactly the stored state', () => {
    assertReplayMatches(store, join(tempDir('governed-run-store-replay-'), 'replay.db'));
  });
});
