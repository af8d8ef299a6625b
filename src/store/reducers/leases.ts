// Reducers of mutation leases (docs/overview.md#words, docs/contract.md#the-states-a-receipt-is-judged-against; docs/state.md#writers-and-leases).
//
// Both ending a lease by release and ending it by expiry increment the unit's work_revision: a lease
// declares "I am changing the workspace", so whatever state follows it is a new work state even if
// its bytes equal an earlier one (docs/contract.md#the-states-a-receipt-is-judged-against: A→B→A still restarts a streak). If expiry did not
// count, a writer could edit under a lease, let it lapse instead of releasing it, and keep a streak
// earned on the pre-lease state.
import * as z from 'zod/mini';
import { leaseId, seconds, unitId, writerSession } from './schemas.js';
import { expectChanges, reducer } from './reducer.js';
import type { Db } from '../store.js';

/** docs/commands.md#what-each-command-guarantees `lease acquire --ttl`: the cap, one constant for the live check (store/leases.ts) and replay. */
import { LEASE_MAX_TTL_SECONDS as MAX_LEASE_TTL_SECONDS } from '../../core/limits.js'; export { MAX_LEASE_TTL_SECONDS };

function bumpWorkRevision(db: Db, unit: string): void {
  const r = db.prepare('UPDATE units SET work_revision = work_revision + 1 WHERE id = ?').run(unit);
  expectChanges(r.changes, 1, unit);
}

export const LEASE_REDUCERS = {
  lease_acquire: reducer({
    payload: z
      .strictObject({ lease: leaseId, unit: unitId, writer_session: writerSession, acquired_at: seconds, expires_at: seconds })
      .check(z.refine((p) => p.expires_at > p.acquired_at)),
    unitOf: (p) => p.unit,
    apply(db, p) {
      // The live path refuses a TTL over 7 days (lease_ttl_invalid); replay must not build a lease
      // the live path could not have (docs/state.md#the-store: replay rebuilds what the live path built), else a
      // forged entry holds a unit's lease — and blocks every review (docs/overview.md#words) — for years.
      if (p.expires_at - p.acquired_at > MAX_LEASE_TTL_SECONDS) expectChanges(0, 1, p.lease);
      const r = db
        .prepare(
          `INSERT INTO leases (id, unit, session, acquired_at, expires_at, state, ended_at)
           VALUES (?, ?, ?, ?, ?, 'active', NULL)`,
        )
        .run(p.lease, p.unit, p.writer_session, p.acquired_at, p.expires_at);
      expectChanges(r.changes, 1, p.lease);
    },
  }),

  lease_release: reducer({
    payload: z.strictObject({ lease: leaseId, unit: unitId, writer_session: writerSession, released_at: seconds }),
    unitOf: (p) => p.unit,
    apply(db, p) {
      // Only the holder, only while active and not yet expired: the same rules the live check
      // applies, re-asserted here so a forged entry cannot replay into a different state.
      const r = db
        .prepare(
          `UPDATE leases SET state = 'released', ended_at = ?
           WHERE id = ? AND unit = ? AND session = ? AND state = 'active' AND expires_at > ?`,
        )
        .run(p.released_at, p.lease, p.unit, p.writer_session, p.released_at);
      expectChanges(r.changes, 1, p.lease);
      bumpWorkRevision(db, p.unit);
    },
  }),

  // One sweep entry per unit, listing every lease of that unit that had expired at `swept_at`.
  lease_sweep: reducer({
    payload: z
      .strictObject({ unit: unitId, leases: z.array(leaseId).check(z.minLength(1)), swept_at: seconds })
      .check(z.refine((p) => p.leases.every((id, i) => i === 0 || (p.leases[i - 1] as string) < id), 'sorted unique')),
    unitOf: (p) => p.unit,
    apply(db, p) {
      const expire = db.prepare(
        `UPDATE leases SET state = 'expired', ended_at = ?
         WHERE id = ? AND unit = ? AND state = 'active' AND expires_at <= ?`,
      );
      for (const id of p.leases) expectChanges(expire.run(p.swept_at, id, p.unit, p.swept_at).changes, 1, id);
      bumpWorkRevision(db, p.unit);
    },
  }),
} as const;
