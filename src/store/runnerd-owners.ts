// Which client uid owns what, in separated mode (docs/runnerd.md "Who owns what"): the daemon
// records the kernel-reported uid of the client that created each unit, and every later request
// naming that unit (or its leases, challenges, receipts) must come from the same uid. A small
// SQLite file of the daemon's own, in its 0700 state directory; the store itself is unchanged.
import Database from 'better-sqlite3';
import { addonPath } from './open.js';

export class RunnerdOwners {
  private readonly db: Database.Database;

  constructor(path: string) {
    this.db = new Database(path, { nativeBinding: addonPath() });
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec('CREATE TABLE IF NOT EXISTS unit_owner (unit TEXT PRIMARY KEY, uid INTEGER NOT NULL) STRICT');
    // Which client uid asked for each authority request (docs/runnerd.md "Human authority through
    // the daemon"): only that uid may record its signed record or consume it.
    this.db.exec('CREATE TABLE IF NOT EXISTS authority_request_owner (request TEXT PRIMARY KEY, uid INTEGER NOT NULL) STRICT');
  }

  requesterOf(request: string): number | null {
    const r = this.db.prepare('SELECT uid FROM authority_request_owner WHERE request = ?').pluck().get(request) as number | undefined;
    return r ?? null;
  }

  recordRequester(request: string, uid: number): void {
    this.db.prepare('INSERT INTO authority_request_owner (request, uid) VALUES (?, ?)').run(request, uid);
  }

  ownerOf(unit: string): number | null {
    const r = this.db.prepare('SELECT uid FROM unit_owner WHERE unit = ?').pluck().get(unit) as number | undefined;
    return r ?? null;
  }

  record(unit: string, uid: number): void {
    this.db.prepare('INSERT INTO unit_owner (unit, uid) VALUES (?, ?)').run(unit, uid);
  }

  close(): void {
    this.db.close();
  }
}
