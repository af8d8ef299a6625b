// Reducer of `unit_create` (docs/overview.md#words, docs/contract.md#the-states-a-receipt-is-judged-against): a unit with its baseline, work_revision 0, scope_epoch 0.
import * as z from 'zod/mini';
import { gitOid, seconds, unitId } from './schemas.js';
import { expectChanges, reducer } from './reducer.js';

export const UNIT_REDUCERS = {
  unit_create: reducer({
    payload: z.strictObject({ unit: unitId, baseline_commit: gitOid, baseline_tree: gitOid, created_at: seconds }),
    unitOf: (p) => p.unit,
    apply(db, p) {
      // store/units.ts refuses a commit and tree of different hash lengths (one repository has one
      // object format, SHA-1 or SHA-256): replay must not build a unit the live path could not (docs/state.md#the-store).
      expectChanges(p.baseline_commit.length === p.baseline_tree.length ? 1 : 0, 1, p.unit);
      const r = db
        .prepare(
          `INSERT INTO units (id, baseline_commit, baseline_tree, work_revision, scope_epoch, created_at)
           VALUES (?, ?, ?, 0, 0, ?)`,
        )
        .run(p.unit, p.baseline_commit, p.baseline_tree, p.created_at);
      expectChanges(r.changes, 1, p.unit);
    },
  }),
} as const;
