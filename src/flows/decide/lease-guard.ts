// The lease rule (docs/contract.md#the-states-a-receipt-is-judged-against, docs/commands.md#what-each-command-guarantees `lease acquire`; docs/decision.md#5-rounds-and-streaks): implementation starts only
// after planning — while the policy requires planning and the planning stage is not sealed on the
// unit's current planning state, a lease is refused (`planning_not_sealed`, exit 8). For the flow
// that acquires leases (src/flows/lease.ts): call `assertLeaseAllowedFor` inside the acquiring
// transaction. It needs only the store (the planning state is computed from the bound scope, never
// from the workspace, so no hashing), and loads only the planning facts the rule reads.
import { assertLeaseAllowed, type PlanningSeal } from '../../core/decision/index.js';
import type { Db } from '../../store/store.js';
import { loadAbortedRuns, loadAuthorities, loadReceipts, loadResets } from './facts.js';
import { readPinnedPolicy, readPinnedTrustDigest } from './pins.js';
import { planningDigestOf, readScope, readUnit } from './unit-state.js';

/** A work state no receipt can have (no sha256 preimage): selects planning facts only. */
const NO_WORK_STATE = `sha256:${'0'.repeat(64)}`;

/** Throws `planning_not_sealed` (8) when the policy requires planning and it is not sealed at `now`. */
export async function assertLeaseAllowedFor(db: Db, unit: string, now: number): Promise<PlanningSeal> {
  const u = readUnit(db, unit);
  const policy = await readPinnedPolicy(db);
  const scope = await readScope(db, u.unit);
  const planningStateDigest = planningDigestOf(u, scope);
  const abortedRuns = loadAbortedRuns(db, u.unit);
  const receipts = loadReceipts(db, u.unit, { planningStateDigest, contentDigest: NO_WORK_STATE, workStateDigest: NO_WORK_STATE }, abortedRuns);
  return assertLeaseAllowed({
    unit: u.unit,
    now,
    policy,
    trustDigest: readPinnedTrustDigest(db),
    current: { planningStateDigest },
    receipts: receipts.map((r) => r.fact),
    abortedRuns,
    authorities: loadAuthorities(db, u.unit).map((a) => a.fact),
    resets: loadResets(db),
  });
}
