// The handle every store function takes: the state directory (docs/state.md#the-store) and its open connection.
import type Database from 'better-sqlite3';

export interface Store {
  /** Absolute state directory (0700). */
  readonly home: string;
  /** `<home>/governed.db`. */
  readonly dbPath: string;
  /** `<home>/bundles` (0700; one 0600 file per open challenge). */
  readonly bundlesDir: string;
  readonly db: Database.Database;
}

export type Db = Database.Database;

/** Accept either a Store or a bare connection (tests and replay targets use bare connections). */
export function dbOf(x: Store | Db): Db {
  return 'bundlesDir' in x ? x.db : x;
}
