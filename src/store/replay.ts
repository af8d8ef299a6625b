// Replay (docs/state.md#the-store "enough to rebuild every table by replaying the log", docs/commands.md#what-each-command-guarantees audit verify):
// copy every log row, verified, into a new database and apply its reducer — the same
// `writeEntry` the live path uses — then compare the state digests.
import { closeSync, lstatSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { fail } from '../core/errors.js';
import { checkRow, decodePayload, GENESIS_HASH, writeEntry, type LogHead, type LogRow } from './log.js';
import { openDatabase } from './open.js';
import { toGovernedError } from './sqlite-errors.js';
import { stateDigest } from './state-digest.js';
import { dbOf, type Db, type Store } from './store.js';

export interface ReplayResult {
  readonly entries: number;
  readonly head: string;
  /** stateDigest of the rebuilt database. */
  readonly stateDigest: string;
}

/** Create `path` as a new, empty 0600 file; an existing non-empty file is refused. */
function createEmptyTarget(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw toGovernedError(e);
    const st = lstatSync(path);
    if (!st.isFile() || st.size !== 0) fail('replay_target_not_empty');
  }
}

/**
 * Rebuild all tables from `source`'s log into a new database at `emptyDbPath` (which must not
 * exist or be an empty file). Every row is checked (hashes, links, payload schema) before it is
 * applied, so a tampered log fails here with its own code. The target keeps the log rows too.
 */
export function replayInto(source: Store | Db, emptyDbPath: string): ReplayResult {
  const src = dbOf(source);
  createEmptyTarget(emptyDbPath);
  const target = openDatabase(emptyDbPath);
  try {
    let head: LogHead = { seq: 0, entryHash: GENESIS_HASH };
    const rebuild = target.transaction(() => {
      for (const row of src.prepare('SELECT * FROM log ORDER BY seq').iterate() as IterableIterator<LogRow>) {
        checkRow(row, head);
        const payload = decodePayload(row.seq, row.type, row.unit, row.payload);
        try {
          writeEntry(target, row, payload);
        } catch (e) {
          // A constraint the live path never violates (FK, UNIQUE, CHECK): the entry does not
          // apply to the state before it.
          if (e instanceof Database.SqliteError) fail('log_entry_not_applicable', [`seq:${row.seq}`]);
          throw e;
        }
        head = { seq: row.seq, entryHash: row.entry_hash };
      }
    });
    try {
      rebuild.immediate();
    } catch (e) {
      throw toGovernedError(e);
    }
    return { entries: head.seq, head: head.entryHash, stateDigest: stateDigest(target) };
  } finally {
    target.close();
  }
}

/**
 * Replay `store`'s log into `scratchPath` and require the rebuilt state to equal the stored one
 * (`state_replay_mismatch` otherwise). Source state and log are read in one read transaction, so
 * concurrent appends cannot make them disagree.
 */
export function assertReplayMatches(store: Store | Db, scratchPath: string): ReplayResult {
  const src = dbOf(store);
  const both = src.transaction(() => ({ stored: stateDigest(src), replayed: replayInto(src, scratchPath) }));
  const { stored, replayed } = both();
  if (stored !== replayed.stateDigest) fail('state_replay_mismatch');
  return replayed;
}
