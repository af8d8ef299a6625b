// One read snapshot of the store for a whole decision (docs/state.md#the-store: the log is the truth; a decision
// must not mix facts from before and after a concurrent commit, e.g. a lease release that bumps
// work_revision between reading the unit and reading its receipts). A deferred transaction in WAL
// mode pins the snapshot at its first read and blocks no writer; it may span awaits (git, a lazy
// import), which `db.transaction()` cannot. Nothing is ever written inside it.
import type { Db } from '../../store/store.js';

export async function withReadSnapshot<T>(db: Db, fn: () => Promise<T>): Promise<T> {
  db.exec('BEGIN DEFERRED');
  try {
    return await fn();
  } finally {
    if (db.inTransaction) db.exec('ROLLBACK');
  }
}
