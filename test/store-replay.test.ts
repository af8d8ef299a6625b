// docs/state.md#the-store: replaying the log rebuilds every table. Live path and replay share the reducers, so a
// long mixed history must replay to the identical state digest; any divergence is refused.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { entryHashOf, readLog, type LogRow } from '../src/store/log.js';
import { closeStore, openStore } from '../src/store/open.js';
import { assertReplayMatches, replayInto } from '../src/store/replay.js';
import { stateDigest, tablesDigest } from '../src/store/state-digest.js';
import { createUnit } from '../src/store/units.js';
import { registerWriter } from '../src/store/writers.js';
import { acquireLease, releaseLease, sweepExpired } from '../src/store/leases.js';
import { canonicalJson, sha256Digest } from '../src/core/canonical.js';
import type { Store } from '../src/store/store.js';
import { cleanupDirs, codeOf, COMMIT, identityN, newStore, rawConnection, T0, tempDir, TREE } from './store-helpers.js';

afterEach(cleanupDirs);

/** Many operations of every kind across several units: acquire, release, expiry sweeps, refusals. */
function busyStore(): Store {
  const store = newStore();
  let now = T0;
  const units: string[] = [];
  for (let u = 0; u < 4; u++) {
    const { unitId } = createUnit(store, { baselineCommit: COMMIT, baselineTree: TREE, now: ++now });
    units.push(unitId);
    for (let w = 0; w < 2; w++) {
      registerWriter(store, { unit: unitId, writerSession: `w${w}`, identity: identityN(u * 10 + w), now: ++now });
    }
  }
  for (let round = 0; round < 15; round++) {
    for (const [i, unit] of units.entries()) {
      const session = `w${(round + i) % 2}`;
      now += 1;
      const outcome = codeOfThrow(() => acquireLease(store, { unit, writerSession: session, ttlSeconds: 5, now }));
      expect(['no-throw', 'lease_held']).toContain(outcome);
    }
    // Release some leases, let others expire and get swept.
    for (const [i, unit] of units.entries()) {
      const active = store.db.prepare("SELECT id, session FROM leases WHERE unit = ? AND state = 'active'").get(unit) as
        | { id: string; session: string }
        | undefined;
      if (active !== undefined && (round + i) % 3 !== 0) {
        releaseLease(store, { leaseId: active.id, writerSession: active.session, now: ++now });
      }
    }
    now += 6;
    sweepExpired(store, now);
  }
  return store;
}

function codeOfThrow(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return (e as { code?: string }).code ?? 'no-code';
  }
  return 'no-throw';
}

describe('replay', () => {
  it('rebuilds the identical state from the log of a long mixed history', () => {
    const store = busyStore();
    try {
      const log = readLog(store);
      expect(log.length).toBeGreaterThan(60);
      const types = new Set(log.map((e) => e.type));
      expect([...types].sort()).toEqual(
        ['lease_acquire', 'lease_release', 'lease_sweep', 'store_init', 'unit_create', 'writer_register'].sort(),
      );
      const target = join(tempDir(), 'replayed.db');
      const result = replayInto(store, target);
      expect(result.entries).toBe(log.length);
      expect(result.head).toBe(log.at(-1)?.entry_hash);
      expect(result.stateDigest).toBe(stateDigest(store));
      // The rebuilt database holds the same log too: every table is equal.
      const rebuilt = new Database(target, { readonly: true });
      expect(tablesDigest(rebuilt)).toBe(tablesDigest(store));
      rebuilt.close();
      expect(assertReplayMatches(store, join(tempDir(), 'scratch.db')).stateDigest).toBe(stateDigest(store));
    } finally {
      closeStore(store);
    }
  });

  it('the state digest changes with any table row (it is not a constant)', () => {
    const store = newStore();
    try {
      const d0 = stateDigest(store);
      createUnit(store, { baselineCommit: COMMIT, baselineTree: TREE, now: T0 + 1 });
      expect(stateDigest(store)).not.toBe(d0);
    } finally {
      closeStore(store);
    }
  });

  it('refuses a stored state edited behind the log (state_replay_mismatch)', () => {
    const store = busyStore();
    const unit = store.db.prepare('SELECT id FROM units ORDER BY id LIMIT 1').pluck().get() as string;
    closeStore(store);
    const raw = rawConnection(store);
    raw.prepare('UPDATE units SET work_revision = work_revision + 1 WHERE id = ?').run(unit);
    raw.close();
    const reopened = openStore(store.home);
    try {
      expect(codeOf(() => assertReplayMatches(reopened, join(tempDir(), 'scratch.db')))).toBe('state_replay_mismatch');
    } finally {
      closeStore(reopened);
    }
  });

  it('refuses a consistently hashed forged entry that does not apply (log_entry_not_applicable)', () => {
    const store = busyStore();
    const last = readLog(store).at(-1) as LogRow;
    const unit = store.db.prepare('SELECT id FROM units ORDER BY id LIMIT 1').pluck().get() as string;
    closeStore(store);
    // The attacker appends an entry with correct hashes, without its table change: releasing a
    // lease that never existed.
    const payload = Buffer.from(
      canonicalJson({ lease: `LSE-${'1'.repeat(32)}`, unit, writer_session: 'w0', released_at: last.time + 1 }),
    );
    const fields = {
      seq: last.seq + 1,
      time: last.time + 1,
      type: 'lease_release',
      unit,
      payload_digest: sha256Digest(payload),
      prev_hash: last.entry_hash,
    };
    const raw = rawConnection(store);
    raw
      .prepare(
        'INSERT INTO log (seq,time,type,unit,payload,payload_digest,prev_hash,entry_hash) VALUES (?,?,?,?,?,?,?,?)',
      )
      .run(fields.seq, fields.time, fields.type, fields.unit, payload, fields.payload_digest, fields.prev_hash, entryHashOf(fields));
    raw.close();
    const reopened = openStore(store.home);
    try {
      expect(codeOfThrow(() => replayInto(reopened, join(tempDir(), 'scratch.db')))).toBe('log_entry_not_applicable');
    } finally {
      closeStore(reopened);
    }
  });

  it('refuses a store_init whose pinned bytes are not the document its digest names (log_entry_not_applicable)', () => {
    // An attacker rewrites the first entry consistently (payload digest and entry hash recomputed,
    // the chain starts at it): the recorded policy digest stays, the bytes are another policy.
    const store = newStore();
    const first = readLog(store)[0] as LogRow;
    closeStore(store);
    const payload = JSON.parse(first.payload.toString('utf8')) as { policy: { digest: string; bytes_b64: string } };
    const original = Buffer.from(payload.policy.bytes_b64, 'base64').toString('utf8');
    const forgedPolicy = original.replace('accept_co_located: true', 'accept_co_located: false');
    expect(forgedPolicy).not.toBe(original);
    payload.policy.bytes_b64 = Buffer.from(forgedPolicy).toString('base64');
    const bytes = Buffer.from(canonicalJson(payload));
    const fields = { seq: 1, time: first.time, type: 'store_init', unit: null, payload_digest: sha256Digest(bytes), prev_hash: first.prev_hash };
    const raw = rawConnection(store);
    raw.exec('DROP TRIGGER log_no_update; DROP TRIGGER log_no_delete;');
    raw.prepare('UPDATE log SET payload = ?, payload_digest = ?, entry_hash = ? WHERE seq = 1').run(bytes, fields.payload_digest, entryHashOf(fields));
    raw.close();
    const reopened = openStore(store.home);
    try {
      expect(codeOfThrow(() => replayInto(reopened, join(tempDir(), 'forged-init.db')))).toBe('log_entry_not_applicable');
    } finally {
      closeStore(reopened);
    }
  });

  it('refuses a tampered log during replay with the chain code', () => {
    const store = busyStore();
    closeStore(store);
    const raw = rawConnection(store);
    raw.exec('DROP TRIGGER log_no_delete');
    raw.prepare('DELETE FROM log WHERE seq = 5').run();
    raw.close();
    const reopened = openStore(store.home);
    try {
      expect(codeOf(() => replayInto(reopened, join(tempDir(), 'scratch.db')))).toBe('log_chain_broken');
    } finally {
      closeStore(reopened);
    }
  });

  it('refuses a replay target that is not a new empty file (replay_target_not_empty)', () => {
    const store = newStore();
    try {
      const target = join(tempDir(), 'x.db');
      writeFileSync(target, 'not empty');
      expect(codeOf(() => replayInto(store, target))).toBe('replay_target_not_empty');
      // An existing store file is never overwritten either.
      expect(codeOf(() => replayInto(store, store.dbPath))).toBe('replay_target_not_empty');
    } finally {
      closeStore(store);
    }
  });
});
