// `governed lease acquire | release | list` (docs/commands.md#what-each-command-guarantees; docs/state.md#writers-and-leases): a thin layer over the
// store's lease API (src/store/leases.ts), which owns the rules — one active lease per unit, only the
// holder releases, release and expiry increment work_revision, expiry is a logged sweep. A lease is
// refused while the policy requires planning and the planning stage is not sealed on the unit's
// current planning state (docs/contract.md#the-states-a-receipt-is-judged-against, docs/commands.md#what-each-command-guarantees; `planning_not_sealed`, exit 8).
//
// The planning check reads the store before the acquiring transaction (it needs the async policy
// loader, and better-sqlite3 transactions are synchronous). Planning can only become unsealed by a
// logged scope bind or policy/trust update; one racing between the check and the acquire is
// recorded in the log before the lease, so an audit sees the order.
import { fail } from '../core/errors.js';
import { isDuration, parseDurationSeconds } from '../core/duration.js';
import { assertLeaseAllowedFor } from './decide/lease-guard.js';
import { acquireLease, closeStore, getUnit, listLeases, openStore, releaseLease, type Lease } from '../store/index.js';

export function parseLeaseTtl(text: string): number {
  if (!isDuration(text)) fail('lease_ttl_unparseable');
  return parseDurationSeconds(text, 'ttl');
}

export async function acquireLeaseFlow(args: { home: string; unit: string; writerSession: string; ttl: string; now: number }): Promise<{
  leaseId: string;
  unit: string;
  expiresAt: number;
}> {
  const ttlSeconds = parseLeaseTtl(args.ttl);
  const store = openStore(args.home);
  try {
    getUnit(store, args.unit);
    await assertLeaseAllowedFor(store.db, args.unit, args.now);
    const r = acquireLease(store, { unit: args.unit, writerSession: args.writerSession, ttlSeconds, now: args.now });
    return { leaseId: r.leaseId, unit: args.unit, expiresAt: r.expiresAt };
  } finally {
    closeStore(store);
  }
}

export function releaseLeaseFlow(args: { home: string; leaseId: string; writerSession: string; now: number }): {
  leaseId: string;
  unit: string;
  workRevision: number;
} {
  const store = openStore(args.home);
  try {
    const r = releaseLease(store, { leaseId: args.leaseId, writerSession: args.writerSession, now: args.now });
    return { leaseId: args.leaseId, unit: r.unit, workRevision: r.workRevision };
  } finally {
    closeStore(store);
  }
}

/** Read-only: expired-but-unswept leases are reported `expired` without writing anything. */
export function listLeasesFlow(args: { home: string; unit?: string | undefined; now: number }): Lease[] {
  const store = openStore(args.home);
  try {
    if (args.unit !== undefined) getUnit(store.db, args.unit);
    return listLeases(store, { unit: args.unit, now: args.now });
  } finally {
    closeStore(store);
  }
}
