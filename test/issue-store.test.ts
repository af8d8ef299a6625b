// Store side of scope versions and challenges (SPEC §5, §6.3, §7.1): the reducers rebuild the
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
  newChallengeId,
  sweepExpiredChallengesIn,
  type IssueChallengeArgs,
} from '../src/store/challenges.js';
import type { Store } from '../src/store/store.js';
import { cleanupDirs, codeOf, COMMIT, identityN, newStore, rawConnection, T0, tempDir, TREE } from './store-helpers.js';

afterEach(cleanupDirs);

const D = (c: string): string => `sha256:${c.repeat(64)}`;

function createWithScope(store: Store, now: number): string {
  return mutate(store, now, (tx) => {
    const { unitId } = createUnitIn(tx, { baselineCommit: COMMIT, baselineTree: TREE });
    bindScopeIn(tx, {
      unit: unitId,
      contractBytes: Buffer.from('{"kind":"governed/request-contract"}'),
      contractDigest: D('1'),
      sources: [{ id: 'SRC-1', path: 'requests/a.md', digest: D('2') }],
      sourcesDigest: D('3'),
      diff: null,
      scopeChanged: true,
      authorities: [],
    });
    return unitId;
  });
}

function bind(store: Store, unit: string, now: number, changed: boolean, c = '4'): void {
  mutate(store, now, (tx) =>
    bindScopeIn(tx, {
      unit,
      contractBytes: Buffer.from(`{"v":"${c}"}`),
      contractDigest: D(c),
      sources: [{ id: 'SRC-1', path: 'requests/a.md', digest: D('2') }],
      sourcesDigest: D('3'),
      diff: { additions: changed ? ['TGT-9'] : [], narrowing: [], progress: changed ? [] : ['DIR-1'] },
      scopeChanged: changed,
      authorities: [],
    }),
  );
}

function issueArgs(store: Store, unit: string, over: Partial<IssueChallengeArgs> = {}): IssueChallengeArgs {
  const v = getScopeVersion(store, unit);
  return {
    challenge: newChallengeId(),
    unit,
    stage: 'development',
    slot: 'coverage',
    writer_session: 'w0',
    reviewer: { name: 'coverage', sha256: 'a'.repeat(64), interpreter: '/usr/bin/node' },
    view: 'complete',
    bundle_digest: D('5'),
    bundle_size: 100,
    view_digest: D('6'),
    planning_state_digest: D('7'),
    content_digest: D('8'),
    work_state_digest: D('9'),
    contract_digest: v.contractDigest,
    sources_digest: v.sourcesDigest,
    workspace_digest: D('a'),
    baseline: { commit: COMMIT, tree: TREE },
    policy_digest: D('b'),
    trust_digest: D('c'),
    scope_version: v.version,
    scope_epoch: v.scopeEpoch,
    work_revision: store.db.prepare('SELECT work_revision FROM units WHERE id = ?').pluck().get(unit) as number,
    ttlSeconds: 60,
    maxRunsPerContent: 3,
    ...over,
  };
}

describe('scope versions', () => {
  it('version 1 takes scope_epoch 1; later binds increment work_revision, and scope_epoch only when the scope changed', () => {
    const store = newStore();
    const unit = createWithScope(store, T0 + 1);
    bind(store, unit, T0 + 2, false, '4');
    bind(store, unit, T0 + 3, true, '5');
    const versions = listScopeVersions(store, unit).map((v) => [v.version, v.scopeEpoch, v.workRevision, v.scopeChanged]);
    expect(versions).toEqual([
      [1, 1, 0, true],
      [2, 1, 1, false],
      [3, 2, 2, true],
    ]);
    expect(getScopeVersion(store, unit).contractBytes.toString()).toBe('{"v":"5"}');
  });

  it('stored bytes edited behind governed are detected (scope_integrity_failed)', () => {
    const store = newStore();
    const unit = createWithScope(store, T0 + 1);
    const raw = rawConnection(store);
    raw.prepare('UPDATE scope_versions SET contract_bytes = ? WHERE unit = ?').run(Buffer.from('{}'), unit);
    raw.close();
    expect(codeOf(() => getScopeVersion(store, unit))).toBe('scope_integrity_failed');
  });
});

describe('challenges at store level', () => {
  function ready(): { store: Store; unit: string } {
    const store = newStore();
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
    const a = mutate(store, T0 + 10, (tx) => issueChallengeIn(tx, issueArgs(store, unit, { ttlSeconds: 5 })));
    const b = mutate(store, T0 + 10, (tx) => issueChallengeIn(tx, issueArgs(store, unit, { ttlSeconds: 50 })));
    expect(mutate(store, T0 + 14, (tx) => sweepExpiredChallengesIn(tx))).toEqual([]);
    expect(mutate(store, T0 + 15, (tx) => sweepExpiredChallengesIn(tx))).toEqual([a.challengeId]);
    expect(findChallenge(store, a.challengeId)?.status).toBe('expired');
    expect(findChallenge(store, b.challengeId)?.status).toBe('open');
    expect(readLog(store).filter((e) => e.type === 'challenge_sweep')).toHaveLength(1);
  });

  it('replaying the log rebuilds scope versions and challenges exactly', () => {
    const { store, unit } = ready();
    let now = T0 + 10;
    for (let round = 0; round < 6; round++) {
      bind(store, unit, ++now, round % 2 === 0, String(round));
      mutate(store, ++now, (tx) => issueChallengeIn(tx, issueArgs(store, unit, { ttlSeconds: 3, content_digest: D(String(round)) })));
      const { leaseId } = acquireLease(store, { unit, writerSession: 'w0', ttlSeconds: 2, now: ++now });
      if (round % 2 === 0) releaseLease(store, { leaseId, writerSession: 'w0', now: ++now });
      now += 5;
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
