// Attacks on a store file for the audit tests: what a writer with the file (and the uid) can do
// behind governed — drop the append-only triggers, rewrite entries with every hash recomputed,
// rebuild the tables from the rewritten log so chain and replay both hold again.
import { chmodSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { canonicalJson, digestOf } from '../src/core/canonical.js';
import { entryHashOf, replayInto } from '../src/store/index.js';

/** Run `fn` on the store's file with the append-only triggers dropped, as an attacker with the file can. */
export function edit(home: string, fn: (db: Database.Database) => void): void {
  const db = new Database(join(home, 'governed.db'));
  try {
    db.exec('DROP TRIGGER IF EXISTS log_no_update; DROP TRIGGER IF EXISTS log_no_delete; DROP TRIGGER IF EXISTS log_append_extends_chain;');
    fn(db);
  } finally {
    db.close();
  }
}

/**
 * Rewrite one log payload, recompute its payload digest and every later entry hash (a consistent
 * chain), then rebuild every table from the rewritten log and put that database in place: the
 * chain and the replay both hold afterwards. Only the signatures (and checkpoints) can tell.
 */
export function rewriteLog(home: string, seq: number, change: (payload: Record<string, unknown>) => void): void {
  edit(home, (db) => {
    const row = db.prepare('SELECT payload FROM log WHERE seq = ?').get(seq) as { payload: Buffer };
    const payload = JSON.parse(row.payload.toString('utf8')) as Record<string, unknown>;
    change(payload);
    const bytes = Buffer.from(canonicalJson(payload as never), 'utf8');
    db.prepare('UPDATE log SET payload = ?, payload_digest = ? WHERE seq = ?').run(bytes, digestOf(payload as never), seq);
    const rows = db.prepare('SELECT seq, time, type, unit, payload_digest, prev_hash FROM log WHERE seq >= ? ORDER BY seq').all(seq) as Parameters<
      typeof entryHashOf
    >[0][];
    let prev = (db.prepare('SELECT entry_hash FROM log WHERE seq = ?').pluck().get(seq - 1) as string | undefined) ?? null;
    // entry_hash is UNIQUE: move the tail out of the way first.
    db.prepare("UPDATE log SET entry_hash = 'sha256:' || substr('0000000000000000000000000000000000000000000000000000000000000000' || printf('%x', seq), -64) WHERE seq >= ?").run(seq);
    for (const r of rows) {
      const prevHash = prev ?? r.prev_hash;
      const entryHash = entryHashOf({ ...r, prev_hash: prevHash });
      db.prepare('UPDATE log SET prev_hash = ?, entry_hash = ? WHERE seq = ?').run(prevHash, entryHash, r.seq);
      prev = entryHash;
    }
  });
  rebuildFromLog(home);
}


/** Put the database rebuilt from its own (possibly rewritten) log in place: chain and replay hold. */
export function rebuildFromLog(home: string): void {
  const dbPath = join(home, 'governed.db');
  const rebuilt = join(home, 'rebuilt.db');
  const src = new Database(dbPath, { readonly: true });
  try {
    replayInto(src, rebuilt);
  } finally {
    src.close();
  }
  for (const f of ['governed.db-wal', 'governed.db-shm']) rmSync(join(home, f), { force: true });
  renameSync(rebuilt, dbPath);
  chmodSync(dbPath, 0o600);
}

/** Drop every log entry after `keep` and rebuild the tables: a consistent, shorter history. */
export function truncateLog(home: string, keep: number): void {
  edit(home, (db) => db.prepare('DELETE FROM log WHERE seq > ?').run(keep));
  rebuildFromLog(home);
}

/** One line of an export's log.jsonl (docs/audit.md "audit export"), as the export tests read and rewrite it. */
export interface LogLine {
  seq: number;
  time: number;
  type: string;
  unit: string | null;
  payload: Record<string, unknown>;
  payload_digest: string;
  prev_hash: string;
  entry_hash: string;
}
