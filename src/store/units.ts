// Units of work (docs/overview.md#words, docs/contract.md#the-states-a-receipt-is-judged-against): id, baseline commit and tree (resolved once by the caller, never
// re-resolved here), work_revision and scope_epoch. Scope versions and contracts are bound by the
// contract domain in the same transaction via `createUnitIn`.
import { fail } from '../core/errors.js';
import { GIT_OID_RE, newUnitId, UNIT_ID_RE } from './ids.js';
import { mutate, type Tx } from './log.js';
import { dbOf, type Db, type Store } from './store.js';

export interface Unit {
  readonly unitId: string;
  readonly baselineCommit: string;
  readonly baselineTree: string;
  readonly workRevision: number;
  readonly scopeEpoch: number;
  readonly createdAt: number;
}

export interface CreateUnitArgs {
  readonly baselineCommit: string;
  readonly baselineTree: string;
}

/** Inside a mutate: create a unit with a fresh random id. */
export function createUnitIn(tx: Tx, args: CreateUnitArgs): { unitId: string } {
  if (!GIT_OID_RE.test(args.baselineCommit) || !GIT_OID_RE.test(args.baselineTree)) fail('unit_baseline_invalid');
  if (args.baselineCommit.length !== args.baselineTree.length) fail('unit_baseline_invalid');
  const unitId = newUnitId();
  tx.append('unit_create', unitId, {
    unit: unitId,
    baseline_commit: args.baselineCommit,
    baseline_tree: args.baselineTree,
    created_at: tx.now,
  });
  return { unitId };
}

export function createUnit(store: Store, args: CreateUnitArgs & { readonly now: number }): { unitId: string } {
  return mutate(store, args.now, (tx) => createUnitIn(tx, args));
}

/** The unit, or `unit_unknown` (exit 7). A malformed id is unknown too (never echoed). */
export function getUnit(x: Store | Db, unitId: string): Unit {
  if (!UNIT_ID_RE.test(unitId)) fail('unit_unknown');
  const row = dbOf(x)
    .prepare('SELECT id, baseline_commit, baseline_tree, work_revision, scope_epoch, created_at FROM units WHERE id = ?')
    .get(unitId) as
    | { id: string; baseline_commit: string; baseline_tree: string; work_revision: number; scope_epoch: number; created_at: number }
    | undefined;
  if (row === undefined) fail('unit_unknown', [unitId]);
  return {
    unitId: row.id,
    baselineCommit: row.baseline_commit,
    baselineTree: row.baseline_tree,
    workRevision: row.work_revision,
    scopeEpoch: row.scope_epoch,
    createdAt: row.created_at,
  };
}
