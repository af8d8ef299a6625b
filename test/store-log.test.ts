// docs/state.md#the-store: the hash-chained, append-only log and `mutate` (one transaction per state change).
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { afterEach, describe, expect, it } from 'vitest';
import { fail } from '../src/core/errors.js';
import { entryHashOf, GENESIS_HASH, mutate, readLog, verifyChain, type LogRow } from '../src/store/log.js';
import { closeStore, openStore } from '../src/store/open.js';
import { tablesDigest } from '../src/store/state-digest.js';
import { createUnit, createUnitIn, getUnit } from '../src/store/units.js';
import { registerWriter } from '../src/store/writers.js';
import { acquireLease, releaseLease } from '../src/store/leases.js';
import type { Store } from '../src/store/store.js';
import { cleanupDirs, codeOf, COMMIT, identityN, newStore, rawConnection, T0, TREE } from './store-helpers.js';

afterEach(cleanupDirs);

const sha = (b: Buffer | string): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;

/** A store with a few entries of every type. */
function populated(): { store: Store; unit: string } {
  const store = newStore();
  const { unitId: unit } = createUnit(store, { baselineCommit: COMMIT, baselineTree: TREE, now: T0 + 1 });
  registerWriter(store, { unit, writerSession: 'agent-1', identity: identityN(1), now: T0 + 2 });
  const { leaseId } = acquireLease(store, { unit, writerSession: 'agent-1', ttlSeconds: 60, now: T0 + 3 });
  releaseLease(store, { leaseId, writerSession: 'agent-1', now: T0 + 4 });
  acquireLease(store, { unit, writerSession: 'agent-1', ttlSeconds: 60, now: T0 + 5 });
  return { store, unit };
}

/** Close the store, edit the file as an attacker would (triggers dropped), reopen. */
function tamper(store: Store, sql: (raw: ReturnType<typeof rawConnection>) => void): Store {
  closeStore(store);
  const raw = rawConnection(store);
  raw.exec('DROP TRIGGER log_no_update; DROP TRIGGER log_no_delete; DROP TRIGGER log_append_extends_chain;');
  sql(raw);
  raw.close();
  return openStore(store.home);
}

describe('log entries', () => {
  it('hashes each entry as sha256(JCS({seq,time,type,unit,payload_digest,prev_hash})) from the zero genesis', () => {
    const { store } = populated();
    try {
      const log = readLog(store);
      expect(log.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(log[0]?.prev_hash).toBe(`sha256:${'0'.repeat(64)}`);
      expect(GENESIS_HASH).toBe(log[0]?.prev_hash);
      let prev = GENESIS_HASH;
      for (const e of log) {
        // Independent recomputation with the canonicalize package directly.
        const payloadValue: unknown = JSON.parse(e.payload.toString('utf8'));
        expect(e.payload.toString('utf8')).toBe(canonicalize(payloadValue));
        expect(e.payload_digest).toBe(sha(e.payload));
        const fields = { seq: e.seq, time: e.time, type: e.type, unit: e.unit, payload_digest: e.payload_digest, prev_hash: prev };
        expect(e.entry_hash).toBe(sha(canonicalize(fields) as string));
        prev = e.entry_hash;
      }
      expect(log.map((e) => e.type)).toEqual([
        'store_init',
        'unit_create',
        'writer_register',
        'lease_acquire',
        'lease_release',
        'lease_acquire',
      ]);
      expect(log.map((e) => e.time)).toEqual([T0, T0 + 1, T0 + 2, T0 + 3, T0 + 4, T0 + 5]);
      expect(verifyChain(store)).toEqual({ entries: 6, head: prev });
    } finally {
      closeStore(store);
    }
  });

  it('forbids UPDATE and DELETE on the log by trigger, and out-of-chain inserts', () => {
    const { store } = populated();
    const raw = rawConnection(store);
    try {
      const before = tablesDigest(store);
      expect(() => raw.prepare("UPDATE log SET time = 0 WHERE seq = 2").run()).toThrow(/append-only/);
      expect(() => raw.prepare("UPDATE log SET payload = x'7b7d'").run()).toThrow(/append-only/);
      expect(() => raw.prepare('DELETE FROM log WHERE seq = 6').run()).toThrow(/append-only/);
      expect(() => raw.prepare('DELETE FROM log').run()).toThrow(/append-only/);
      const last = readLog(store).at(-1) as LogRow;
      const forged = { ...last, seq: last.seq + 2, prev_hash: last.entry_hash, entry_hash: sha('x') };
      expect(() =>
        raw
          .prepare(
            'INSERT INTO log (seq,time,type,unit,payload,payload_digest,prev_hash,entry_hash) VALUES (@seq,@time,@type,@unit,@payload,@payload_digest,@prev_hash,@entry_hash)',
          )
          .run(forged),
      ).toThrow(/does not extend the chain/);
      expect(tablesDigest(store)).toBe(before);
    } finally {
      raw.close();
      closeStore(store);
    }
  });
});

describe('mutate', () => {
  it('a failure inside mutate leaves the store identical (table change and entry roll back together)', () => {
    const { store } = populated();
    try {
      const before = tablesDigest(store);
      const err = codeOf(() =>
        mutate(store, T0 + 10, (tx) => {
          createUnitIn(tx, { baselineCommit: COMMIT, baselineTree: TREE });
          createUnitIn(tx, { baselineCommit: COMMIT, baselineTree: TREE });
          fail('lease_held');
        }),
      );
      expect(err).toBe('lease_held');
      expect(tablesDigest(store)).toBe(before);
      // A non-governed exception rolls back the same way.
      expect(() =>
        mutate(store, T0 + 10, (tx) => {
          createUnitIn(tx, { baselineCommit: COMMIT, baselineTree: TREE });
          throw new Error('boom');
        }),
      ).toThrow();
      expect(tablesDigest(store)).toBe(before);
      expect(verifyChain(store).entries).toBe(6);
    } finally {
      closeStore(store);
    }
  });

  it('refuses a table write that bypasses the log (store_write_outside_log) and rolls it back', () => {
    const { store, unit } = populated();
    try {
      const before = tablesDigest(store);
      expect(
        codeOf(() =>
          mutate(store, T0 + 10, (tx) => {
            tx.db.prepare('UPDATE units SET work_revision = 99 WHERE id = ?').run(unit);
          }),
        ),
      ).toBe('store_write_outside_log');
      expect(tablesDigest(store)).toBe(before);
      expect(getUnit(store, unit).workRevision).toBe(1);
    } finally {
      closeStore(store);
    }
  });

  it('refuses nested mutations (store_nested_mutation) and times that are not whole seconds', () => {
    const { store } = populated();
    try {
      const before = tablesDigest(store);
      expect(codeOf(() => mutate(store, T0, () => mutate(store, T0, () => 1)))).toBe('store_nested_mutation');
      expect(codeOf(() => mutate(store, 1.5, () => 1))).toBe('store_time_invalid');
      expect(codeOf(() => mutate(store, -1, () => 1))).toBe('store_time_invalid');
      expect(codeOf(() => mutate(store, Number.NaN, () => 1))).toBe('store_time_invalid');
      expect(tablesDigest(store)).toBe(before);
      // The store stays usable after a refused nested call.
      expect(mutate(store, T0, () => 7)).toBe(7);
    } finally {
      closeStore(store);
    }
  });

  it('refuses any entry while the clock reads earlier than the newest entry (store_clock_regressed): a clock stepped back cannot revive what expired', () => {
    const store = newStore();
    // The newest entry was written while the clock read 100 s later than it does now (then it was
    // stepped back): every expiry judged since then would be judged again, earlier.
    const ahead = Math.floor(Date.now() / 1000) + 100;
    const { unitId: unit } = createUnit(store, { baselineCommit: COMMIT, baselineTree: TREE, now: ahead });
    expect(codeOf(() => registerWriter(store, { unit, writerSession: 'agent-1', identity: identityN(1), now: ahead }))).toBe('store_clock_regressed');
    const before = tablesDigest(store);
    const head = readLog(store).length;
    // Whatever time the caller passes, the machine's clock (read under the write lock) is behind.
    for (const now of [ahead - 50, ahead, ahead + 1]) {
      expect(codeOf(() => createUnit(store, { baselineCommit: COMMIT, baselineTree: TREE, now }))).toBe('store_clock_regressed');
    }
    expect(tablesDigest(store)).toBe(before);
    expect(readLog(store)).toHaveLength(head);
    closeStore(store);
  });

  it('accepts a time sampled before another process committed a later second (concurrency, not a clock step)', () => {
    const store = newStore();
    createUnit(store, { baselineCommit: COMMIT, baselineTree: TREE, now: T0 + 12 });
    // The caller sampled T0 + 11 and then waited for the write lock; the clock itself is fine.
    expect(createUnit(store, { baselineCommit: COMMIT, baselineTree: TREE, now: T0 + 11 }).unitId).toMatch(/^UNIT-/);
    closeStore(store);
  });

  it('maps a UNIQUE violation (a one-time fact recorded twice) to store_constraint_violation', () => {
    const { store, unit } = populated();
    try {
      const before = tablesDigest(store);
      const id = identityN(1);
      // Bypass the check in registerWriterIn: the UNIQUE constraint is the backstop.
      expect(
        codeOf(() =>
          mutate(store, T0 + 10, (tx) =>
            tx.append('writer_register', unit, {
              unit,
              writer_session: 'another',
              boot_id: id.bootId,
              pid: id.pid,
              start_time: id.startTime,
              registered_at: T0 + 10,
            }),
          ),
        ),
      ).toBe('store_constraint_violation');
      expect(tablesDigest(store)).toBe(before);
    } finally {
      closeStore(store);
    }
  });

  it('refuses an entry whose reducer does not apply to the current state (log_entry_not_applicable)', () => {
    const { store, unit } = populated();
    try {
      const before = tablesDigest(store);
      expect(
        codeOf(() =>
          mutate(store, T0 + 10, (tx) =>
            tx.append('lease_release', unit, {
              lease: `LSE-${'0'.repeat(32)}`,
              unit,
              writer_session: 'agent-1',
              released_at: T0 + 10,
            }),
          ),
        ),
      ).toBe('log_entry_not_applicable');
      expect(tablesDigest(store)).toBe(before);
    } finally {
      closeStore(store);
    }
  });

  it('reports store_busy when another process holds the write lock beyond the busy timeout', () => {
    const { store } = populated();
    const raw = rawConnection(store);
    try {
      const before = tablesDigest(store);
      raw.exec('BEGIN IMMEDIATE');
      store.db.pragma('busy_timeout = 50');
      expect(codeOf(() => createUnit(store, { baselineCommit: COMMIT, baselineTree: TREE, now: T0 + 9 }))).toBe(
        'store_busy',
      );
      raw.exec('ROLLBACK');
      expect(tablesDigest(store)).toBe(before);
    } finally {
      raw.close();
      closeStore(store);
    }
  });
});

describe('verifyChain detects tampering', () => {
  it('an edited payload: log_payload_digest_mismatch', () => {
    let { store } = populated();
    store = tamper(store, (raw) => {
      const row = raw.prepare('SELECT payload FROM log WHERE seq = 4').get() as { payload: Buffer };
      const edited = Buffer.from(row.payload.toString('utf8').replace(/"expires_at":\d+/, '"expires_at":9999999999'));
      raw.prepare('UPDATE log SET payload = ? WHERE seq = 4').run(edited);
    });
    try {
      expect(codeOf(() => verifyChain(store))).toBe('log_payload_digest_mismatch');
    } finally {
      closeStore(store);
    }
  });

  it('an edited payload with a recomputed payload digest: log_entry_hash_mismatch', () => {
    let { store } = populated();
    store = tamper(store, (raw) => {
      const row = raw.prepare('SELECT payload FROM log WHERE seq = 4').get() as { payload: Buffer };
      const edited = Buffer.from(row.payload.toString('utf8').replace(/"expires_at":\d+/, '"expires_at":9999999999'));
      raw.prepare('UPDATE log SET payload = ?, payload_digest = ? WHERE seq = 4').run(edited, sha(edited));
    });
    try {
      expect(codeOf(() => verifyChain(store))).toBe('log_entry_hash_mismatch');
    } finally {
      closeStore(store);
    }
  });

  it('an edited entry with every own hash recomputed: the next link breaks (log_chain_broken)', () => {
    let { store } = populated();
    store = tamper(store, (raw) => {
      const row = raw.prepare('SELECT * FROM log WHERE seq = 4').get() as LogRow;
      const payload = Buffer.from(row.payload.toString('utf8').replace(/"expires_at":\d+/, '"expires_at":9999999999'));
      const payload_digest = sha(payload);
      const entry_hash = entryHashOf({ ...row, payload_digest });
      raw.prepare('UPDATE log SET payload = ?, payload_digest = ?, entry_hash = ? WHERE seq = 4').run(payload, payload_digest, entry_hash);
    });
    try {
      expect(codeOf(() => verifyChain(store))).toBe('log_chain_broken');
    } finally {
      closeStore(store);
    }
  });

  it('a deleted row: log_chain_broken', () => {
    let { store } = populated();
    store = tamper(store, (raw) => raw.prepare('DELETE FROM log WHERE seq = 3').run());
    try {
      expect(codeOf(() => verifyChain(store))).toBe('log_chain_broken');
    } finally {
      closeStore(store);
    }
  });

  it('a consistently re-hashed last entry whose payload is not canonical or off-schema: log_payload_invalid', () => {
    for (const edit of [
      (t: string) => t.replace('{', '{ '), // not the RFC 8785 form
      (t: string) => t.replace('{', '{"extra":1,'), // unknown key (closed schema)
    ]) {
      let { store } = populated();
      store = tamper(store, (raw) => {
        const row = raw.prepare('SELECT * FROM log WHERE seq = 6').get() as LogRow;
        const payload = Buffer.from(edit(row.payload.toString('utf8')));
        const payload_digest = sha(payload);
        const entry_hash = entryHashOf({ ...row, payload_digest });
        raw.prepare('UPDATE log SET payload = ?, payload_digest = ?, entry_hash = ? WHERE seq = 6').run(payload, payload_digest, entry_hash);
      });
      try {
        expect(codeOf(() => verifyChain(store))).toBe('log_payload_invalid');
      } finally {
        closeStore(store);
      }
    }
  });
});
