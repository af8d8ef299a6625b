// Migration 0007: the log indexed by unit (docs/gate.md#5a-the-tables-must-be-what-the-log-says-decision_table_log_mismatch-4). Indexes only: no table, no log entry
// type, nothing replay has to rebuild, nothing that can be edited apart from the log rows (SQLite
// derives every index entry from the row itself, and the log is append-only).
//
// The gate and status prove that the receipts they decide from are the log's: they read the same
// subsets from the unit's `run_receipt` entries as from `receipts` (migration 0006), through these
// expression indexes over the payload, so that check grows with the current state and the blocks,
// not with the history. The verdict is a key column, not a partial-index condition: SQLite does not
// match an expression condition of a partial index and scanned the unit's entries instead (measured:
// 0.7 s at 100,000). The unit's `run_abort` and `authority_consume` entries are read whole, as the
// ABORTED runs and consumed authority records are; their indexes are partial, because an index on
// (unit, type) was the planner's choice for the DIRTY query too (a scan of every receipt entry).
// The lifter index has the verdict before seq: "the first later CLEAN of the slot" is then a range
// of the index, not a walk over every later DIRTY entry with its payload parsed (4,096 standing
// blocks of one slot made that quadratic: minutes).
import { logField } from '../receipt-entries.js';

export const LOG_UNIT_INDEXES_SQL = `
  CREATE INDEX log_unit_run_abort ON log(unit, seq) WHERE type = 'run_abort';
  CREATE INDEX log_unit_authority_consume ON log(unit, seq) WHERE type = 'authority_consume';
  CREATE INDEX log_receipt_work_state ON log(unit, ${logField('work_state_digest')}) WHERE type = 'run_receipt';
  CREATE INDEX log_receipt_planning_state ON log(unit, ${logField('stage')}, ${logField('planning_state_digest')}) WHERE type = 'run_receipt';
  CREATE INDEX log_receipt_verdict ON log(unit, ${logField('verdict')}, seq) WHERE type = 'run_receipt';
  CREATE INDEX log_receipt_slot_seq ON log(unit, ${logField('stage')}, ${logField('slot')}, ${logField('verdict')}, seq) WHERE type = 'run_receipt';
`;
