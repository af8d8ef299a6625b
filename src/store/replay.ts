// Replay (docs/state.md#the-store "enough to rebuild every table by replaying the log", docs/commands.md#what-each-command-guarantees audit verify):
// copy every log row, verified, into a new database and apply its reducer — the same
// `writeEntry` the live path uses — then compare the state digests.
import { closeSync, lstatSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { fail, GovernedError, isGovernedError } from '../core/errors.js';
import { checkRow, decodePayload, GENESIS_HASH, writeEntry, type LogHead, type LogRow } from './log.js';
import { openDatabase } from './open.js';
import { toGovernedError } from './sqlite-errors.js';
import { stateDigest } from './state-digest.js';
import { dbOf, type Db, type Store } from './store.js';
import { appendLeaf } from './tree.js';

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

/** What one pass over a log found (`passLog`). */
export interface LogPass {
  readonly entries: number;
  readonly head: string;
  /** null when every entry applied to the state before it; else the refusal of the first that did not. */
  readonly notApplicable: GovernedError | null;
}

/**
 * The one pass over `src`'s log (docs/audit.md "Cost and memory"), in log order, reading one row at
 * a time: each row is checked (`checkRow`: seq, time, hashes, link; `decodePayload`: closed
 * schema), then applied to `target` with `writeEntry` — the code the live path runs — and then
 * handed, decoded, to `visit`. A row that fails its check throws its code (the chain is broken:
 * nothing after it can be trusted). A row that does not apply is `notApplicable` (each row is applied
 * inside its own savepoint, so a refused row leaves nothing behind); after it, rows are still checked
 * and visited, and only their tree leaves are added, so `target`'s Merkle tree is always the tree of
 * every checked row (the audit judges checkpoints on it) while its tables stop at the refused row.
 * The caller holds a transaction of `target` and commits it, rolls it back, or closes `target`.
 */
export function passLog(src: Db, target: Db, visit?: (row: LogRow, payload: unknown) => void, from?: LogHead): LogPass {
  if (!target.inTransaction) fail('internal_error', ['replay_transaction']);
  // `from`: resume after this entry (docs/audit.md#incremental-audit) — `target` already holds the
  // state after it, and the caller has checked the entries up to it.
  let head: LogHead = from ?? { seq: 0, entryHash: GENESIS_HASH };
  let notApplicable: GovernedError | null = null;
  // Inside the caller's transaction, better-sqlite3 runs this one as a savepoint.
  const apply = target.transaction((row: LogRow, payload: unknown) => writeEntry(target, row, payload));
  try {
    for (const row of src.prepare('SELECT * FROM log WHERE seq > ? ORDER BY seq').iterate(head.seq) as IterableIterator<LogRow>) {
      checkRow(row, head);
      const payload = decodePayload(row.seq, row.type, row.unit, row.payload);
      if (notApplicable === null) {
        try {
          apply(row, payload);
        } catch (e) {
          // A constraint the live path never violates (FK, UNIQUE, CHECK), or a reducer's own coded
          // refusal: the entry does not apply to the state before it.
          if (e instanceof Database.SqliteError) notApplicable = new GovernedError('log_entry_not_applicable', { ids: [`seq:${row.seq}`] });
          else if (isGovernedError(e)) notApplicable = e;
          else throw e;
        }
      }
      if (notApplicable !== null) appendLeaf(target, row);
      visit?.(row, payload);
      head = { seq: row.seq, entryHash: row.entry_hash };
    }
  } catch (e) {
    throw toGovernedError(e);
  }
  return { entries: head.seq, head: head.entryHash, notApplicable };
}

/** Open `emptyDbPath` (which must not exist, or be an empty file) as a new database of this schema. */
export function openReplayTarget(emptyDbPath: string): Db {
  createEmptyTarget(emptyDbPath);
  return openDatabase(emptyDbPath);
}

/**
 * Rebuild all tables from `source`'s log into a new database at `emptyDbPath` (which must not
 * exist or be an empty file). Every row is checked (hashes, links, payload schema) before it is
 * applied, so a tampered log fails here with its own code (a broken chain before an entry that
 * does not apply). The target keeps the log rows too.
 */
export function replayInto(source: Store | Db, emptyDbPath: string): ReplayResult {
  const target = openReplayTarget(emptyDbPath);
  try {
    // Committed only when every entry applied: a refused replay leaves the target empty.
    const rebuild = target.transaction(() => {
      const pass = passLog(dbOf(source), target);
      if (pass.notApplicable !== null) throw pass.notApplicable;
      return { entries: pass.entries, head: pass.head };
    });
    let r: { entries: number; head: string };
    try {
      r = rebuild.immediate();
    } catch (e) {
      throw toGovernedError(e);
    }
    return { ...r, stateDigest: stateDigest(target) };
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
