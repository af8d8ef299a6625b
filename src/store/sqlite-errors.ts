// Map SQLite failures onto governed's codes (docs/commands.md#exit-codes). SQLite messages can name values (a
// CHECK expression, a column); they are kept only as the `cause`, never as the message.
import Database from 'better-sqlite3';
import { GovernedError, isGovernedError } from '../core/errors.js';

export function toGovernedError(e: unknown): GovernedError {
  if (isGovernedError(e)) return e;
  if (e instanceof Database.SqliteError) {
    const code = e.code;
    // Busy beyond busy_timeout (or a stale WAL snapshot): another process holds the write lock.
    if (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_') || code === 'SQLITE_LOCKED') {
      return new GovernedError('store_busy', { cause: e });
    }
    // One-time facts are UNIQUE constraints (docs/state.md#the-store): the losing racer lands here.
    if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
      return new GovernedError('store_constraint_violation', { cause: e });
    }
  }
  return new GovernedError('internal_error', { cause: e });
}
