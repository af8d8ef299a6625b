// Migration 0006: indexes for the decision loader (docs/decision.md#11-loading-only-what-counts-lean-gate-path "Loading only what
// counts"; docs/gate.md). Indexes only: no table, no log entry type, nothing replay has to rebuild.
//
// `status` and `gate` load the sufficient subset of a unit's receipts (src/core/decision/sufficient.ts)
// with one indexed query per part, so the cost grows with the current state and the blocks, not
// with the length of the history (bench/gate: 1,000 vs 100,000 receipts):
//   - receipts on the current work state / planning state     → (unit, work_state_digest), (unit, stage, planning_state_digest)
//   - every DIRTY receipt                                      → partial index on (unit) WHERE verdict = 'DIRTY'
//   - the first later CLEAN of a slot (the one that can lift)  → (unit, stage, slot, log_seq)
//   - every ABORTED run                                        → partial index on runs(unit) WHERE status = 'aborted'
//   - consumed authority records of the unit                   → authority_consumptions(unit, consumed_seq)
//   - the workspaces reviewed on the current scope and revision (gate's subject diagnosis)
//                                                              → challenges(unit, work_revision)
export const DECISION_INDEXES_SQL = `
  CREATE INDEX receipts_unit_work_state ON receipts(unit, work_state_digest);
  CREATE INDEX receipts_unit_planning_state ON receipts(unit, stage, planning_state_digest);
  CREATE INDEX receipts_unit_dirty ON receipts(unit, log_seq) WHERE verdict = 'DIRTY';
  CREATE INDEX receipts_unit_slot_seq ON receipts(unit, stage, slot, log_seq);
  CREATE INDEX runs_unit_aborted ON runs(unit, end_seq) WHERE status = 'aborted';
  CREATE INDEX authority_consumptions_unit ON authority_consumptions(unit, consumed_seq);
  CREATE INDEX challenges_unit_revision ON challenges(unit, work_revision);
`;
