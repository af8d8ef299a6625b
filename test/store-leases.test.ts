// docs/state.md#state-the-store-units-and-scope-versions-writers-leases-review-challenges item 7 / docs/overview.md#words, docs/state.md#the-store, docs/contract.md#the-states-a-receipt-is-judged-against: units, writer sessions and mutation leases at store level.
// Every refusal asserts its exact code and that the store did not change.
import { afterEach, describe, expect, it } from 'vitest';
import { readLog } from '../src/store/log.js';
import { closeStore } from '../src/store/open.js';
import { tablesDigest } from '../src/store/state-digest.js';
import { createUnit, getUnit } from '../src/store/units.js';
import { getWriter, registerWriter } from '../src/store/writers.js';
import {
  acquireLease,
  hasActiveLease,
  listLeases,
  MAX_LEASE_TTL_SECONDS,
  releaseLease,
  sweepExpired,
} from '../src/store/leases.js';
import { LEASE_ID_RE, UNIT_ID_RE } from '../src/store/ids.js';
import type { Store } from '../src/store/store.js';
import { cleanupDirs, codeOf, COMMIT, identityN, newStore, rawConnection, T0, TREE } from './store-helpers.js';

afterEach(cleanupDirs);

let store: Store;

function setup(): { unit: string } {
  store = newStore();
  const { unitId: unit } = createUnit(store, { baselineCommit: COMMIT, baselineTree: TREE, now: T0 + 1 });
  registerWriter(store, { unit, writerSession: 'alice', identity: identityN(1), now: T0 + 2 });
  registerWriter(store, { unit, writerSession: 'bob', identity: identityN(2), now: T0 + 2 });
  return { unit };
}

/** Assert `fn` is refused with `code` and leaves every table (log included) unchanged. */
function refused(code: string, fn: () => unknown): void {
  const before = tablesDigest(store);
  expect(codeOf(fn)).toBe(code);
  expect(tablesDigest(store)).toBe(before);
}

afterEach(() => {
  if (store?.db.open) closeStore(store);
});

describe('units', () => {
  it('creates UNIT-<32 hex> ids with baseline, work_revision 0 and scope_epoch 0', () => {
    const { unit } = setup();
    expect(unit).toMatch(UNIT_ID_RE);
    expect(getUnit(store, unit)).toEqual({
      unitId: unit,
      baselineCommit: COMMIT,
      baselineTree: TREE,
      workRevision: 0,
      scopeEpoch: 0,
      createdAt: T0 + 1,
    });
    const sha256Repo = createUnit(store, { baselineCommit: 'c'.repeat(64), baselineTree: 'd'.repeat(64), now: T0 + 3 });
    expect(getUnit(store, sha256Repo.unitId).baselineTree).toBe('d'.repeat(64));
  });

  it('refuses a baseline that is not a resolved commit and tree id (unit_baseline_invalid)', () => {
    setup();
    for (const [c, t] of [
      ['HEAD', TREE],
      [COMMIT, 'main'],
      [COMMIT.toUpperCase(), TREE],
      [COMMIT, 'e'.repeat(64)],
    ] as const) {
      refused('unit_baseline_invalid', () => createUnit(store, { baselineCommit: c, baselineTree: t, now: T0 + 5 }));
    }
  });

  it('refuses an unknown or malformed unit id (unit_unknown)', () => {
    setup();
    expect(codeOf(() => getUnit(store, `UNIT-${'0'.repeat(32)}`))).toBe('unit_unknown');
    expect(codeOf(() => getUnit(store, 'secret text'))).toBe('unit_unknown');
    refused('unit_unknown', () =>
      registerWriter(store, { unit: `UNIT-${'0'.repeat(32)}`, writerSession: 'x', identity: identityN(9), now: T0 + 5 }),
    );
  });
});

describe('writers', () => {
  it('records the session and its process identity', () => {
    const { unit } = setup();
    expect(getWriter(store, unit, 'alice')).toEqual({
      unit,
      writerSession: 'alice',
      identity: identityN(1),
      registeredAt: T0 + 2,
    });
  });

  it('refuses re-registration, a reused process identity, bad sessions and bad identities', () => {
    const { unit } = setup();
    refused('writer_already_registered', () =>
      registerWriter(store, { unit, writerSession: 'alice', identity: identityN(7), now: T0 + 5 }),
    );
    refused('writer_identity_in_use', () =>
      registerWriter(store, { unit, writerSession: 'carol', identity: identityN(1), now: T0 + 5 }),
    );
    for (const bad of ['', 'has space', '-leading', 'x'.repeat(129), 'new\nline']) {
      refused('writer_session_invalid', () =>
        registerWriter(store, { unit, writerSession: bad, identity: identityN(8), now: T0 + 5 }),
      );
    }
    const good = identityN(8);
    for (const identity of [
      { ...good, bootId: 'not-a-boot-id' },
      { ...good, pid: 0 },
      { ...good, pid: 1.5 },
      { ...good, startTime: -1 },
    ]) {
      refused('process_identity_invalid', () => registerWriter(store, { unit, writerSession: 'dave', identity, now: T0 + 5 }));
    }
  });
});

describe('leases', () => {
  it('acquires LSE-<32 hex> leases, lists them, and only the holder session releases', () => {
    const { unit } = setup();
    const { leaseId, expiresAt } = acquireLease(store, { unit, writerSession: 'alice', ttlSeconds: 60, now: T0 + 10 });
    expect(leaseId).toMatch(LEASE_ID_RE);
    expect(expiresAt).toBe(T0 + 70);
    expect(hasActiveLease(store, { unit, now: T0 + 11 })).toBe(true);
    expect(hasActiveLease(store, { now: T0 + 11 })).toBe(true);
    expect(listLeases(store, { unit, now: T0 + 11 })).toEqual([
      { leaseId, unit, writerSession: 'alice', acquiredAt: T0 + 10, expiresAt: T0 + 70, state: 'active', endedAt: null },
    ]);
    refused('lease_not_holder', () => releaseLease(store, { leaseId, writerSession: 'bob', now: T0 + 20 }));
    refused('lease_held', () => acquireLease(store, { unit, writerSession: 'bob', ttlSeconds: 60, now: T0 + 20 }));
    refused('lease_held', () => acquireLease(store, { unit, writerSession: 'alice', ttlSeconds: 60, now: T0 + 20 }));
    expect(getUnit(store, unit).workRevision).toBe(0);

    expect(releaseLease(store, { leaseId, writerSession: 'alice', now: T0 + 30 })).toEqual({ unit, workRevision: 1 });
    expect(hasActiveLease(store, { unit, now: T0 + 31 })).toBe(false);
    expect(listLeases(store, { unit, now: T0 + 31 })[0]).toMatchObject({ state: 'released', endedAt: T0 + 30 });
    refused('lease_not_active', () => releaseLease(store, { leaseId, writerSession: 'alice', now: T0 + 40 }));
    refused('lease_not_holder', () => releaseLease(store, { leaseId, writerSession: 'bob', now: T0 + 40 }));

    // Every release increments work_revision (docs/contract.md#the-states-a-receipt-is-judged-against: A→B→A still restarts a streak).
    const second = acquireLease(store, { unit, writerSession: 'bob', ttlSeconds: 60, now: T0 + 50 });
    releaseLease(store, { leaseId: second.leaseId, writerSession: 'bob', now: T0 + 51 });
    expect(getUnit(store, unit).workRevision).toBe(2);
    expect(readLog(store).filter((e) => e.type === 'lease_release').map((e) => e.unit)).toEqual([unit, unit]);
  });

  it('leases are per unit: another unit can hold its own lease', () => {
    const { unit } = setup();
    const { unitId: other } = createUnit(store, { baselineCommit: COMMIT, baselineTree: TREE, now: T0 + 3 });
    registerWriter(store, { unit: other, writerSession: 'alice', identity: identityN(3), now: T0 + 3 });
    acquireLease(store, { unit, writerSession: 'alice', ttlSeconds: 60, now: T0 + 10 });
    acquireLease(store, { unit: other, writerSession: 'alice', ttlSeconds: 60, now: T0 + 10 });
    expect(listLeases(store, { now: T0 + 11, activeOnly: true })).toHaveLength(2);
  });

  it('expiry is a logged sweep that increments work_revision; an expired lease cannot be released', () => {
    const { unit } = setup();
    const { leaseId } = acquireLease(store, { unit, writerSession: 'alice', ttlSeconds: 30, now: T0 + 10 });
    // Still active one second before expiry; expired from expires_at on (listing never sweeps).
    expect(listLeases(store, { unit, now: T0 + 39 })[0]?.state).toBe('active');
    const beforeList = tablesDigest(store);
    expect(listLeases(store, { unit, now: T0 + 40 })[0]?.state).toBe('expired');
    expect(hasActiveLease(store, { unit, now: T0 + 40 })).toBe(false);
    expect(tablesDigest(store)).toBe(beforeList);

    // The holder's late release: the expiry is recorded (logged sweep), the release refused.
    expect(codeOf(() => releaseLease(store, { leaseId, writerSession: 'alice', now: T0 + 45 }))).toBe('lease_expired');
    const sweeps = readLog(store).filter((e) => e.type === 'lease_sweep');
    expect(sweeps).toHaveLength(1);
    expect(sweeps[0]?.time).toBe(T0 + 45);
    expect(JSON.parse(sweeps[0]?.payload.toString('utf8') ?? '')).toEqual({ leases: [leaseId], swept_at: T0 + 45, unit });
    expect(getUnit(store, unit).workRevision).toBe(1);
    expect(listLeases(store, { unit, now: T0 + 46 })[0]).toMatchObject({ state: 'expired', endedAt: T0 + 45 });

    // After the sweep, refusals leave the store unchanged.
    refused('lease_expired', () => releaseLease(store, { leaseId, writerSession: 'alice', now: T0 + 50 }));
    // Nothing left to sweep: no entry.
    const beforeSweep = tablesDigest(store);
    expect(sweepExpired(store, T0 + 60).swept).toEqual([]);
    expect(tablesDigest(store)).toBe(beforeSweep);
  });

  it('an expired lease does not block a new acquire; the sweep and the acquire are both logged', () => {
    const { unit } = setup();
    const first = acquireLease(store, { unit, writerSession: 'alice', ttlSeconds: 5, now: T0 + 10 });
    const second = acquireLease(store, { unit, writerSession: 'bob', ttlSeconds: 5, now: T0 + 15 });
    expect(second.leaseId).not.toBe(first.leaseId);
    const tail = readLog(store).slice(-2).map((e) => e.type);
    expect(tail).toEqual(['lease_sweep', 'lease_acquire']);
    expect(getUnit(store, unit).workRevision).toBe(1);
  });

  it('sweepExpired writes one entry per unit covering every expired lease, and is idempotent', () => {
    const { unit } = setup();
    const { unitId: other } = createUnit(store, { baselineCommit: COMMIT, baselineTree: TREE, now: T0 + 3 });
    registerWriter(store, { unit: other, writerSession: 'alice', identity: identityN(3), now: T0 + 3 });
    const a = acquireLease(store, { unit, writerSession: 'alice', ttlSeconds: 5, now: T0 + 10 });
    const b = acquireLease(store, { unit: other, writerSession: 'alice', ttlSeconds: 50, now: T0 + 10 });
    expect(sweepExpired(store, T0 + 20).swept).toEqual([a.leaseId]);
    expect(sweepExpired(store, T0 + 20).swept).toEqual([]);
    expect(sweepExpired(store, T0 + 60).swept).toEqual([b.leaseId]);
    expect(readLog(store).filter((e) => e.type === 'lease_sweep').map((e) => e.unit)).toEqual([unit, other]);
    expect(getUnit(store, unit).workRevision).toBe(1);
    expect(getUnit(store, other).workRevision).toBe(1);
  });

  it('refuses bad TTLs, unknown leases, unknown units and unregistered writers', () => {
    const { unit } = setup();
    for (const ttl of [0, -1, 1.5, MAX_LEASE_TTL_SECONDS + 1, Number.NaN]) {
      refused('lease_ttl_invalid', () => acquireLease(store, { unit, writerSession: 'alice', ttlSeconds: ttl, now: T0 + 5 }));
    }
    refused('writer_not_registered', () =>
      acquireLease(store, { unit, writerSession: 'mallory', ttlSeconds: 60, now: T0 + 5 }),
    );
    refused('writer_session_invalid', () =>
      acquireLease(store, { unit, writerSession: 'no spaces', ttlSeconds: 60, now: T0 + 5 }),
    );
    refused('unit_unknown', () =>
      acquireLease(store, { unit: `UNIT-${'f'.repeat(32)}`, writerSession: 'alice', ttlSeconds: 60, now: T0 + 5 }),
    );
    refused('lease_unknown', () => releaseLease(store, { leaseId: `LSE-${'0'.repeat(32)}`, writerSession: 'alice', now: T0 + 5 }));
    refused('lease_unknown', () => releaseLease(store, { leaseId: 'not a lease', writerSession: 'alice', now: T0 + 5 }));
  });

  it('the partial UNIQUE index backstops "one active lease per unit" even against raw inserts', () => {
    const { unit } = setup();
    acquireLease(store, { unit, writerSession: 'alice', ttlSeconds: 60, now: T0 + 10 });
    const raw = rawConnection(store);
    try {
      expect(() =>
        raw
          .prepare("INSERT INTO leases VALUES (?, ?, 'bob', ?, ?, 'active', NULL)")
          .run(`LSE-${'2'.repeat(32)}`, unit, T0 + 11, T0 + 70),
      ).toThrow(/UNIQUE/);
    } finally {
      raw.close();
    }
  });
});
