// Live vs replay differentials of the store's log (docs/state.md#the-store: replay rebuilds every
// table; an audit refuses a log the live path could not have written). An attacker with the store
// file (or an export, whose log is unsigned and whose chain is recomputable) rewrites one entry and
// recomputes every later hash; the tables are patched to what the forged log replays to, so before
// these fixes chain AND replay held and `audit verify` exited 0.
//   1. `lease_acquire` with a TTL over the live cap of 7 days (MAX_LEASE_TTL_SECONDS): the live path
//      refuses `lease_ttl_invalid`; replay applied it (a lease that blocks reviews for a year).
//   2. an entry whose payload time (`released_at`, `issued_at`, ...) differs from its entry's `time`:
//      the live path always stamps both with the same `tx.now`; the reducers judge expiry with the
//      payload time while the audit judges signatures at the entry time, so a forged pair let a lease
//      be released (replayed) after it had expired at its entry's time.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { auditVerify } from '../src/flows/audit/verify.js';
import { acquireLease, releaseLease } from '../src/store/leases.js';
import { mutate, readLog } from '../src/store/log.js';
import { bindScopeIn } from '../src/store/scope.js';
import { closeStore } from '../src/store/open.js';
import { assertReplayMatches, replayInto } from '../src/store/replay.js';
import { tablesDigest } from '../src/store/state-digest.js';
import { createUnit, createUnitIn } from '../src/store/units.js';
import { registerWriter, registerWriterIn } from '../src/store/writers.js';
import { issueChallengeIn } from '../src/store/challenges.js';
import { claimRunIn } from '../src/store/runs.js';
import type { Store } from '../src/store/store.js';
import { cleanupDirs, codeOf, COMMIT, identityN, newStore, T0, tempDir, TREE } from './store-helpers.js';
import { contractBytes, forgeEntry, issueArgsFor, newReviewStore, scopeArgs } from './helpers/replay-fixtures.js';

afterEach(cleanupDirs);

/** Rewrite entry `seq` (payload and/or time), recompute its digest and every later hash; run `patch` on the tables. */
function forge(store: Store, seq: number, change: { payload?: (p: Record<string, unknown>) => void; time?: number }, patch?: (db: Database.Database) => void): void {
  forgeEntry(store, seq, (p) => change.payload?.(p), patch, change.time);
}

function unitWithWriter(store: Store): string {
  const { unitId } = createUnit(store, { baselineCommit: COMMIT, baselineTree: TREE, now: T0 + 1 });
  registerWriter(store, { unit: unitId, writerSession: 'w1', identity: identityN(1), now: T0 + 2 });
  return unitId;
}

const seqOf = (store: Store, type: string): number => (readLog(store).filter((r) => r.type === type).at(-1) as { seq: number }).seq;

async function auditCodes(store: Store): Promise<{ exit: number; codes: string[] }> {
  const home = join(store.dbPath, '..');
  const before = tablesDigest(store);
  const report = await auditVerify(home);
  expect(tablesDigest(store)).toBe(before); // an audit never changes what it audits
  return { exit: report.exit, codes: report.failures.map((f) => f.code) };
}

describe('lease_acquire over the live TTL cap', () => {
  it('a replayed lease of 8 days is log_entry_not_applicable; the audit refuses it (4)', async () => {
    const store = newStore();
    try {
      const unit = unitWithWriter(store);
      const { leaseId } = acquireLease(store, { unit, writerSession: 'w1', ttlSeconds: 60, now: T0 + 3 });
      const eightDays = T0 + 3 + 8 * 24 * 3600;
      forge(store, seqOf(store, 'lease_acquire'), { payload: (p) => (p.expires_at = eightDays) }, (db) =>
        db.prepare('UPDATE leases SET expires_at = ? WHERE id = ?').run(eightDays, leaseId),
      );
      expect(codeOf(() => replayInto(store, join(tempDir(), 'r.db')))).toBe('log_entry_not_applicable');
      expect(codeOf(() => assertReplayMatches(store, join(tempDir(), 'r.db')))).toBe('log_entry_not_applicable');
      expect(await auditCodes(store)).toEqual({ exit: 4, codes: ['log_entry_not_applicable'] });
    } finally {
      closeStore(store);
    }
  });

  it('exactly 7 days still replays (the live cap is inclusive)', () => {
    const store = newStore();
    try {
      const unit = unitWithWriter(store);
      acquireLease(store, { unit, writerSession: 'w1', ttlSeconds: 7 * 24 * 3600, now: T0 + 3 });
      expect(() => assertReplayMatches(store, join(tempDir(), 'r.db'))).not.toThrow();
    } finally {
      closeStore(store);
    }
  });
});

describe('payload time differs from the entry time', () => {
  it('a release replayed at released_at before expiry but logged after it is refused', async () => {
    const store = newStore();
    try {
      const unit = unitWithWriter(store);
      acquireLease(store, { unit, writerSession: 'w1', ttlSeconds: 5, now: T0 + 3 });
      const leaseId = (store.db.prepare('SELECT id FROM leases').pluck().get() as string);
      releaseLease(store, { leaseId, writerSession: 'w1', now: T0 + 4 });
      // The live path at T0+100 refuses: the lease expired at T0+8.
      forge(store, seqOf(store, 'lease_release'), { time: T0 + 100 });
      expect(codeOf(() => replayInto(store, join(tempDir(), 'r.db')))).toBe('log_entry_not_applicable');
      expect(await auditCodes(store)).toEqual({ exit: 4, codes: ['log_entry_not_applicable'] });
    } finally {
      closeStore(store);
    }
  });

  it('every entry type of a live history has payload time = entry time, and replays', () => {
    const store = newStore();
    try {
      const unit = unitWithWriter(store);
      const { leaseId } = acquireLease(store, { unit, writerSession: 'w1', ttlSeconds: 5, now: T0 + 3 });
      releaseLease(store, { leaseId, writerSession: 'w1', now: T0 + 4 });
      acquireLease(store, { unit, writerSession: 'w1', ttlSeconds: 5, now: T0 + 5 });
      acquireLease(store, { unit, writerSession: 'w1', ttlSeconds: 5, now: T0 + 20 }); // sweeps the first
      expect(new Set(readLog(store).map((r) => r.type))).toEqual(
        new Set(['store_init', 'unit_create', 'writer_register', 'lease_acquire', 'lease_release', 'lease_sweep']),
      );
      expect(() => assertReplayMatches(store, join(tempDir(), 'r.db'))).not.toThrow();
      // One second off, on each entry in turn: each is refused.
      for (const type of ['unit_create', 'writer_register', 'lease_acquire', 'lease_sweep']) {
        const s2 = newStore();
        try {
          const u2 = unitWithWriter(s2);
          acquireLease(s2, { unit: u2, writerSession: 'w1', ttlSeconds: 5, now: T0 + 3 });
          acquireLease(s2, { unit: u2, writerSession: 'w1', ttlSeconds: 5, now: T0 + 20 });
          const seq = seqOf(s2, type);
          const time = (readLog(s2).find((r) => r.seq === seq) as { time: number }).time;
          forge(s2, seq, { time: time + 1 });
          expect(codeOf(() => replayInto(s2, join(tempDir(), 'r.db'))), type).toBe('log_entry_not_applicable');
        } finally {
          closeStore(s2);
        }
      }
    } finally {
      closeStore(store);
    }
  });
});

describe('scope_bind: authority and file digest as the live bind guarantees them (docs/contract.md#scope-history, docs/authority.md#human-authority-records)', () => {
  const D = (c: string): string => `sha256:${c.repeat(64)}`;

  /**
   * A unit with scope v1 and a v2 bind that only adds (no authority needed): the live path, with
   * real contracts (replay recomputes digest and diff from the bytes, test/helpers/replay-fixtures.ts).
   */
  function boundUnit(store: Store): string {
    return mutate(store, T0 + 1, (tx) => {
      const { unitId } = createUnitIn(tx, { baselineCommit: COMMIT, baselineTree: TREE });
      bindScopeIn(tx, scopeArgs(unitId, contractBytes(), null));
      bindScopeIn(tx, scopeArgs(unitId, contractBytes({ extraEvidence: 1 }), { additions: ['EVD-2'], narrowing: [], progress: [] }));
      return unitId;
    });
  }

  const forgeV2 = (store: Store, change: (p: Record<string, unknown>) => void): void =>
    forge(store, seqOf(store, 'scope_bind'), { payload: change });

  it('the live history replays', () => {
    const store = newReviewStore();
    try {
      boundUnit(store);
      expect(() => assertReplayMatches(store, join(tempDir(), 'r.db'))).not.toThrow();
    } finally {
      closeStore(store);
    }
  });

  it('a narrowing recorded with no authority is log_entry_not_applicable', () => {
    const store = newReviewStore();
    try {
      boundUnit(store);
      forgeV2(store, (p) => ((p.diff as Record<string, unknown>).narrowing = ['DIR-1']));
      expect(codeOf(() => replayInto(store, join(tempDir(), 'r.db')))).toBe('log_entry_not_applicable');
    } finally {
      closeStore(store);
    }
  });

  it('an authority record cited but never consumed is log_entry_not_applicable', () => {
    const store = newReviewStore();
    try {
      boundUnit(store);
      forgeV2(store, (p) => (p.authorities = ['REC-0123456789abcdef']));
      expect(codeOf(() => replayInto(store, join(tempDir(), 'r.db')))).toBe('log_entry_not_applicable');
    } finally {
      closeStore(store);
    }
  });

  it('a contract_file_digest that is not the digest of the recorded bytes is log_entry_not_applicable', () => {
    const store = newReviewStore();
    try {
      boundUnit(store);
      forgeV2(store, (p) => (p.contract_file_digest = D('e')));
      expect(codeOf(() => replayInto(store, join(tempDir(), 'r.db')))).toBe('log_entry_not_applicable');
    } finally {
      closeStore(store);
    }
  });
});

describe('unit_create and run_claim as the live path writes them', () => {
  it('a unit whose baseline commit and tree differ in hash length is log_entry_not_applicable', () => {
    const store = newReviewStore();
    try {
      createUnit(store, { baselineCommit: COMMIT, baselineTree: TREE, now: T0 + 1 });
      forge(store, seqOf(store, 'unit_create'), { payload: (p) => (p.baseline_tree = 'b'.repeat(64)) });
      expect(codeOf(() => replayInto(store, join(tempDir(), 'r.db')))).toBe('log_entry_not_applicable');
    } finally {
      closeStore(store);
    }
  });

  /** unit + scope v1 + writer, one challenge issued (as review-challenge would, under the pins) and claimed. */
  function claimed(store: Store): void {
    mutate(store, T0 + 1, (tx) => {
      const { unitId } = createUnitIn(tx, { baselineCommit: COMMIT, baselineTree: TREE });
      bindScopeIn(tx, scopeArgs(unitId, contractBytes(), null));
      registerWriterIn(tx, { unit: unitId, writerSession: 'w0', identity: identityN(0) });
      const { challengeId: challenge } = issueChallengeIn(tx, issueArgsFor(tx.db, unitId));
      claimRunIn(tx, {
        challengeId: challenge,
        unit: unitId,
        stage: 'development',
        slot: 'coverage',
        reviewerName: 'coverage',
        reviewerSha256: 'a'.repeat(64),
        runner: identityN(1),
        deadline: tx.now + 60,
      });
    });
  }

  it('the live claim replays', () => {
    const store = newReviewStore();
    try {
      claimed(store);
      expect(() => assertReplayMatches(store, join(tempDir(), 'r.db'))).not.toThrow();
    } finally {
      closeStore(store);
    }
  });

  it('a claim naming another reviewer program than its challenge pinned is log_entry_not_applicable', () => {
    const store = newReviewStore();
    try {
      claimed(store);
      forge(store, seqOf(store, 'run_claim'), { payload: (p) => (p.reviewer_sha256 = 'f'.repeat(64)) });
      expect(codeOf(() => replayInto(store, join(tempDir(), 'r.db')))).toBe('log_entry_not_applicable');
    } finally {
      closeStore(store);
    }
  });

  it('a claim whose deadline is not after the claim is log_entry_not_applicable (held already: the runs CHECK)', () => {
    const store = newReviewStore();
    try {
      claimed(store);
      forge(store, seqOf(store, 'run_claim'), { payload: (p) => (p.deadline = p.claimed_at) });
      expect(codeOf(() => replayInto(store, join(tempDir(), 'r.db')))).toBe('log_entry_not_applicable');
    } finally {
      closeStore(store);
    }
  });
});
