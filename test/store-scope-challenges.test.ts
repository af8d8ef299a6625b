// Store side of scope versions and challenges (docs/state.md#the-store, docs/contract.md#scope-history, docs/bundle.md#views): the reducers rebuild the
// tables on replay, refuse entries that do not apply at their log position, and the live checks
// (lease, state, budget) hold under the write lock.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalJson, sha256Digest } from '../src/core/canonical.js';
import { entryHashOf, mutate, readLog, type LogRow } from '../src/store/log.js';
import { replayInto, assertReplayMatches } from '../src/store/replay.js';
import { stateDigest, tablesDigest } from '../src/store/state-digest.js';
import { createUnitIn } from '../src/store/units.js';
import { registerWriter } from '../src/store/writers.js';
import { acquireLease, releaseLease } from '../src/store/leases.js';
import { bindScopeIn, getScopeVersion, listScopeVersions } from '../src/store/scope.js';
import {
  countChallenges,
  findChallenge,
  issueChallengeIn,
  sweepExpiredChallengesIn,
  type IssueChallengeArgs,
} from '../src/store/challenges.js';
import type { Store } from '../src/store/store.js';
import { cleanupDirs, codeOf, COMMIT, identityN, rawConnection, T0, tempDir, TREE } from './store-helpers.js';
import { contractBytes, issueArgsFor, newReviewStore, REVIEW_TTL, scopeArgs } from './helpers/replay-fixtures.js';

afterEach(cleanupDirs);

const D = (c: string): string => `sha256:${c.repeat(64)}`;

// Real contracts and honest challenges (test/helpers/replay-fixtures.ts): replay recomputes the
// contract digest and the diff from the bound bytes, and checks each challenge against the pinned
// policy (reviewer of the slot, TTL 60 s, 3 runs per content), so these fixtures are what the live
// flows would record.
const V1 = contractBytes();

function createWithScope(store: Store, now: number): string {
  return mutate(store, now, (tx) => {
    const { unitId } = createUnitIn(tx, { baselineCommit: COMMIT, baselineTree: TREE });
    bindScopeIn(tx, scopeArgs(unitId, V1, null));
    return unitId;
  });
}

/**
 * Bind the unit's next version as `unit bind` would: `changed` adds one evidence item (an addition,
 * scope_epoch moves); otherwise the next active directive moves to done (progress), or — both done —
 * the same contract is bound again (no diff). Returns the bytes bound.
 */
function bind(store: Store, unit: string, now: number, changed: boolean): Buffer {
  const prev = JSON.parse(getScopeVersion(store, unit).contractBytes.toString('utf8')) as {
    evidence: unknown[];
    directives: { id: string; state: string }[];
  };
  const extra = prev.evidence.length - 1 + (changed ? 1 : 0);
  const done = prev.directives.filter((d) => d.state === 'done').map((d) => d.id);
  const next = changed ? undefined : prev.directives.find((d) => d.state === 'active')?.id;
  const bytes = contractBytes({ extraEvidence: extra, done: next === undefined ? done : [...done, next] });
  const diff = { additions: changed ? [`EVD-${extra + 1}`] : [], narrowing: [], progress: next === undefined ? [] : [next] };
  mutate(store, now, (tx) => bindScopeIn(tx, scopeArgs(unit, bytes, diff, changed)));
  return bytes;
}

function issueArgs(store: Store, unit: string, over: Partial<IssueChallengeArgs> = {}): IssueChallengeArgs {
  return issueArgsFor(store, unit, over);
}

describe('scope versions', () => {
  it('version 1 takes scope_epoch 1; later binds increment work_revision, and scope_epoch only when the scope changed', () => {
    const store = newReviewStore();
    const unit = createWithScope(store, T0 + 1);
    bind(store, unit, T0 + 2, false);
    const last = bind(store, unit, T0 + 3, true);
    const versions = listScopeVersions(store, unit).map((v) => [v.version, v.scopeEpoch, v.workRevision, v.scopeChanged]);
    expect(versions).toEqual([
      [1, 1, 0, true],
      [2, 1, 1, false],
      [3, 2, 2, true],
    ]);
    expect(getScopeVersion(store, unit).contractBytes.equals(last)).toBe(true);
    expect(listScopeVersions(store, unit).map((v) => v.diff)).toEqual([
      { additions: [], narrowing: [], progress: [] },
      { additions: [], narrowing: [], progress: ['DIR-1'] },
      { additions: ['EVD-2'], narrowing: [], progress: [] },
    ]);
    expect(() => assertReplayMatches(store, join(tempDir(), 'r.db'))).not.toThrow();
  });

  it('stored bytes edited behind governed are detected (scope_integrity_failed)', () => {
    const store = newReviewStore();
    const unit = createWithScope(store, T0 + 1);
    const raw = rawConnection(store);
    raw.prepare('UPDATE scope_versions SET contract_bytes = ? WHERE unit = ?').run(Buffer.from('{}'), unit);
    raw.close();
    expect(codeOf(() => getScopeVersion(store, unit))).toBe('scope_integrity_failed');
  });
});

describe('challenges at store level', () => {
  function ready(): { store: Store; unit: string } {
    const store = newReviewStore();
    const unit = createWithScope(store, T0 + 1);
    registerWriter(store, { unit, writerSession: 'w0', identity: identityN(1), now: T0 + 2 });
    return { store, unit };
  }

  it('re-checks lease, unit state and budget under the write lock; each refusal changes nothing', () => {
    const { store, unit } = ready();
    const before = tablesDigest(store);
    // Moved state: the caller read another work revision or scope version.
    expect(codeOf(() => mutate(store, T0 + 3, (tx) => issueChallengeIn(tx, issueArgs(store, unit, { work_revision: 7 }))))).toBe('challenge_state_moved');
    expect(codeOf(() => mutate(store, T0 + 3, (tx) => issueChallengeIn(tx, issueArgs(store, unit, { scope_version: 2 }))))).toBe('challenge_state_moved');
    expect(tablesDigest(store)).toBe(before);
    for (let i = 1; i <= 3; i++) mutate(store, T0 + 3, (tx) => issueChallengeIn(tx, issueArgs(store, unit)));
    expect(countChallenges(store, { unit, stage: 'development', slot: 'coverage', contentDigest: D('8') })).toBe(3);
    const full = tablesDigest(store);
    expect(codeOf(() => mutate(store, T0 + 4, (tx) => issueChallengeIn(tx, issueArgs(store, unit))))).toBe('challenge_budget_exhausted');
    // Another content digest has its own budget.
    mutate(store, T0 + 4, (tx) => issueChallengeIn(tx, issueArgs(store, unit, { content_digest: D('d') })));
    const { leaseId } = acquireLease(store, { unit, writerSession: 'w0', ttlSeconds: 30, now: T0 + 5 });
    const leased = tablesDigest(store);
    expect(codeOf(() => mutate(store, T0 + 6, (tx) => issueChallengeIn(tx, issueArgs(store, unit, { content_digest: D('e') }))))).toBe(
      'challenge_lease_active',
    );
    expect(tablesDigest(store)).toBe(leased);
    releaseLease(store, { leaseId, writerSession: 'w0', now: T0 + 7 });
    // The release moved work_revision: a challenge prepared before it is stale.
    expect(codeOf(() => mutate(store, T0 + 8, (tx) => issueChallengeIn(tx, issueArgs(store, unit, { work_revision: 0 }))))).toBe('challenge_state_moved');
    expect(full).not.toBe(before);
  });

  it('sweeps only open challenges past their expiry, one logged entry per unit', () => {
    const { store, unit } = ready();
    // One TTL (the policy's, 60 s): a is issued 45 s before b, so only a has expired at T0 + 70.
    const a = mutate(store, T0 + 10, (tx) => issueChallengeIn(tx, issueArgs(store, unit)));
    const b = mutate(store, T0 + 55, (tx) => issueChallengeIn(tx, issueArgs(store, unit)));
    expect(b.expiresAt - b.issuedAt).toBe(REVIEW_TTL);
    expect(mutate(store, T0 + 10 + REVIEW_TTL - 1, (tx) => sweepExpiredChallengesIn(tx))).toEqual([]);
    expect(mutate(store, T0 + 10 + REVIEW_TTL, (tx) => sweepExpiredChallengesIn(tx))).toEqual([a.challengeId]);
    expect(findChallenge(store, a.challengeId)?.status).toBe('expired');
    expect(findChallenge(store, b.challengeId)?.status).toBe('open');
    expect(readLog(store).filter((e) => e.type === 'challenge_sweep')).toHaveLength(1);
  });

  it('replaying the log rebuilds scope versions and challenges exactly', () => {
    const { store, unit } = ready();
    let now = T0 + 10;
    for (let round = 0; round < 6; round++) {
      bind(store, unit, ++now, round % 2 === 0);
      mutate(store, ++now, (tx) => issueChallengeIn(tx, issueArgs(store, unit, { content_digest: D(String(round)) })));
      const { leaseId } = acquireLease(store, { unit, writerSession: 'w0', ttlSeconds: 2, now: ++now });
      if (round % 2 === 0) releaseLease(store, { leaseId, writerSession: 'w0', now: ++now });
      now += REVIEW_TTL;
      mutate(store, now, (tx) => sweepExpiredChallengesIn(tx));
    }
    const types = new Set(readLog(store).map((e) => e.type));
    for (const t of ['scope_bind', 'challenge_issue', 'challenge_sweep', 'lease_acquire', 'lease_release']) expect(types).toContain(t);
    const target = join(tempDir(), 'replayed.db');
    expect(replayInto(store, target).stateDigest).toBe(stateDigest(store));
    const rebuilt = new Database(target, { readonly: true });
    expect(tablesDigest(rebuilt)).toBe(tablesDigest(store));
    rebuilt.close();
    expect(assertReplayMatches(store, join(tempDir(), 'again.db')).stateDigest).toBe(stateDigest(store));
  });

  it('a forged challenge entry (an ordinal out of sequence) does not replay', () => {
    const { store, unit } = ready();
    mutate(store, T0 + 10, (tx) => issueChallengeIn(tx, issueArgs(store, unit)));
    // Rewrite the payload's ordinal and recompute every hash: the chain is valid, the entry is not applicable.
    const log = readLog(store);
    const last = log.at(-1) as LogRow;
    const payload = JSON.parse(last.payload.toString('utf8')) as Record<string, unknown>;
    payload.ordinal = 2;
    const bytes = Buffer.from(canonicalJson(payload));
    const forged: LogRow = { ...last, payload: bytes, payload_digest: sha256Digest(bytes) };
    const copy = new Database(join(tempDir(), 'forged-source.db'));
    copy.exec('CREATE TABLE log (seq INTEGER PRIMARY KEY, time INTEGER, type TEXT, unit TEXT, payload BLOB, payload_digest TEXT, prev_hash TEXT, entry_hash TEXT)');
    const insert = copy.prepare('INSERT INTO log VALUES (@seq, @time, @type, @unit, @payload, @payload_digest, @prev_hash, @entry_hash)');
    for (const row of log.slice(0, -1)) insert.run(row);
    insert.run({ ...forged, entry_hash: entryHashOf(forged) });
    expect(codeOf(() => replayInto(copy, join(tempDir(), 'forged.db')))).toBe('log_entry_not_applicable');
    copy.close();
  });
});
