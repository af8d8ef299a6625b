// Mutation leases (docs/overview.md#words, docs/commands.md#what-each-command-guarantees `lease acquire/release/list`; docs/state.md#writers-and-leases).
//
// - At most one active lease per unit (checked here, backstopped by a partial UNIQUE index).
// - A lease is active while `now < expires_at`; from `expires_at` on it is expired, and the
//   expiry is recorded by a logged `lease_sweep` entry (docs/state.md#the-store "Sweeping ... is itself a logged
//   change").
// - Only the holder session releases. Release and expiry both increment the unit's work_revision
//   (see reducers/leases.ts for why expiry counts).
// - The store-level `acquireLease` / `releaseLease` first commit a sweep of expired leases on their
//   own, so even a refused command records the expiries it observed (docs/threat-model.md#rules-that-hold-everywhere: a refused command
//   leaves the store unchanged "apart from logged sweeps of expired objects").
import { fail } from '../core/errors.js';
import { LEASE_ID_RE, newLeaseId } from './ids.js';
import { mutate, type Tx } from './log.js';
import { dbOf, type Db, type Store } from './store.js';
import { MAX_LEASE_TTL_SECONDS } from './reducers/leases.js';
import { getUnit } from './units.js';
import { assertWriterSession, getWriter } from './writers.js';

export { MAX_LEASE_TTL_SECONDS };

export type LeaseState = 'active' | 'expired' | 'released';

export interface Lease {
  readonly leaseId: string;
  readonly unit: string;
  readonly writerSession: string;
  readonly acquiredAt: number;
  readonly expiresAt: number;
  /** As of the `now` it was listed at: an active row past its expiry is reported `expired`. */
  readonly state: LeaseState;
  /** Release or sweep time; null while not yet ended in the store. */
  readonly endedAt: number | null;
}

interface LeaseRow {
  id: string;
  unit: string;
  session: string;
  acquired_at: number;
  expires_at: number;
  state: LeaseState;
  ended_at: number | null;
}

function toLease(r: LeaseRow, now: number): Lease {
  const state: LeaseState = r.state === 'active' && r.expires_at <= now ? 'expired' : r.state;
  return {
    leaseId: r.id,
    unit: r.unit,
    writerSession: r.session,
    acquiredAt: r.acquired_at,
    expiresAt: r.expires_at,
    state,
    endedAt: r.ended_at,
  };
}

/**
 * Inside a mutate: record one `lease_sweep` entry per unit whose active leases have expired at
 * `tx.now` (optionally only `unit`). Returns the swept lease ids.
 */
export function sweepExpiredIn(tx: Tx, unit?: string): string[] {
  const rows = (
    unit === undefined
      ? tx.db.prepare("SELECT id, unit FROM leases WHERE state = 'active' AND expires_at <= ? ORDER BY unit, id").all(tx.now)
      : tx.db
          .prepare("SELECT id, unit FROM leases WHERE state = 'active' AND expires_at <= ? AND unit = ? ORDER BY id")
          .all(tx.now, unit)
  ) as { id: string; unit: string }[];
  const byUnit = new Map<string, string[]>();
  for (const r of rows) byUnit.set(r.unit, [...(byUnit.get(r.unit) ?? []), r.id]);
  for (const [u, leases] of byUnit) tx.append('lease_sweep', u, { unit: u, leases, swept_at: tx.now });
  return rows.map((r) => r.id);
}

/** Sweep every expired lease, logged, in its own transaction. No entry when nothing expired. */
export function sweepExpired(store: Store, now: number): { swept: string[] } {
  return { swept: mutate(store, now, (tx) => sweepExpiredIn(tx)) };
}

export interface AcquireLeaseArgs {
  readonly unit: string;
  readonly writerSession: string;
  readonly ttlSeconds: number;
}

/** Inside a mutate: acquire the unit's lease for a registered writer session. */
export function acquireLeaseIn(tx: Tx, args: AcquireLeaseArgs): { leaseId: string; expiresAt: number } {
  const ttl = args.ttlSeconds;
  if (!Number.isSafeInteger(ttl) || ttl < 1 || ttl > MAX_LEASE_TTL_SECONDS) fail('lease_ttl_invalid');
  assertWriterSession(args.writerSession);
  getUnit(tx.db, args.unit);
  getWriter(tx.db, args.unit, args.writerSession);
  // An expired lease must not block: record its expiry first (same transaction).
  sweepExpiredIn(tx, args.unit);
  const held = tx.db.prepare("SELECT id FROM leases WHERE unit = ? AND state = 'active'").get(args.unit);
  if (held !== undefined) fail('lease_held', [args.unit]);
  const leaseId = newLeaseId();
  const expiresAt = tx.now + ttl;
  tx.append('lease_acquire', args.unit, {
    lease: leaseId,
    unit: args.unit,
    writer_session: args.writerSession,
    acquired_at: tx.now,
    expires_at: expiresAt,
  });
  return { leaseId, expiresAt };
}

export function acquireLease(
  store: Store,
  args: AcquireLeaseArgs & { readonly now: number },
): { leaseId: string; expiresAt: number } {
  sweepExpired(store, args.now);
  return mutate(store, args.now, (tx) => acquireLeaseIn(tx, args));
}

export interface ReleaseLeaseArgs {
  readonly leaseId: string;
  readonly writerSession: string;
}

/** Inside a mutate: release a lease; only its holder session, only while it is active. */
export function releaseLeaseIn(tx: Tx, args: ReleaseLeaseArgs): { unit: string; workRevision: number } {
  if (typeof args.leaseId !== 'string' || !LEASE_ID_RE.test(args.leaseId)) fail('lease_unknown');
  assertWriterSession(args.writerSession);
  const row = tx.db.prepare('SELECT * FROM leases WHERE id = ?').get(args.leaseId) as LeaseRow | undefined;
  if (row === undefined) fail('lease_unknown', [args.leaseId]);
  if (row.session !== args.writerSession) fail('lease_not_holder', [args.leaseId]);
  if (row.state === 'released') fail('lease_not_active', [args.leaseId]);
  if (row.state === 'expired' || row.expires_at <= tx.now) fail('lease_expired', [args.leaseId]);
  tx.append('lease_release', row.unit, {
    lease: row.id,
    unit: row.unit,
    writer_session: row.session,
    released_at: tx.now,
  });
  return { unit: row.unit, workRevision: getUnit(tx.db, row.unit).workRevision };
}

export function releaseLease(
  store: Store,
  args: ReleaseLeaseArgs & { readonly now: number },
): { unit: string; workRevision: number } {
  sweepExpired(store, args.now);
  return mutate(store, args.now, (tx) => releaseLeaseIn(tx, args));
}

export interface ListLeasesArgs {
  readonly unit?: string;
  readonly now: number;
  /** Only leases active at `now`. */
  readonly activeOnly?: boolean;
}

/** Leases ordered by acquisition time then id. Read-only: it never sweeps. */
export function listLeases(x: Store | Db, args: ListLeasesArgs): Lease[] {
  const db = dbOf(x);
  const rows = (
    args.unit === undefined
      ? db.prepare('SELECT * FROM leases ORDER BY acquired_at, id').all()
      : db.prepare('SELECT * FROM leases WHERE unit = ? ORDER BY acquired_at, id').all(args.unit)
  ) as LeaseRow[];
  const leases = rows.map((r) => toLease(r, args.now));
  return args.activeOnly === true ? leases.filter((l) => l.state === 'active') : leases;
}

/** True when a lease is active at `now` (on `unit`, or on any unit): no review may be issued. */
export function hasActiveLease(x: Store | Db, args: { readonly unit?: string; readonly now: number }): boolean {
  return listLeases(x, { ...args, activeOnly: true }).length > 0;
}
