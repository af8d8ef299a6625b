// Writer sessions (docs/overview.md#words, docs/commands.md#what-each-command-guarantees `writer register`): a session id the writer declares and the
// identity of its host process (boot id, pid, start time), so a later check can tell whether that
// very process is still running (a recycled pid has another start time or boot id).
import { fail } from '../core/errors.js';
import { BOOT_ID_RE, WRITER_SESSION_RE } from './ids.js';
import { mutate, type Tx } from './log.js';
import type { ProcessIdentity } from './process-identity.js';
import { dbOf, type Db, type Store } from './store.js';
import { getUnit } from './units.js';

export interface Writer {
  readonly unit: string;
  readonly writerSession: string;
  readonly identity: ProcessIdentity;
  readonly registeredAt: number;
}

export interface RegisterWriterArgs {
  readonly unit: string;
  readonly writerSession: string;
  readonly identity: ProcessIdentity;
}

export function assertWriterSession(session: string): void {
  if (typeof session !== 'string' || !WRITER_SESSION_RE.test(session)) fail('writer_session_invalid');
}

function assertIdentity(id: ProcessIdentity): void {
  if (
    typeof id.bootId !== 'string' ||
    !BOOT_ID_RE.test(id.bootId) ||
    !Number.isSafeInteger(id.pid) ||
    id.pid < 1 ||
    !Number.isSafeInteger(id.startTime) ||
    id.startTime < 0
  ) {
    fail('process_identity_invalid');
  }
}

/**
 * Inside a mutate: register a session once per unit. A second registration of the session, or of
 * the same process identity under another session, is refused: both are one-time facts (docs/state.md#the-store),
 * also enforced by the writers table's PRIMARY KEY / UNIQUE constraints.
 */
export function registerWriterIn(tx: Tx, args: RegisterWriterArgs): void {
  assertWriterSession(args.writerSession);
  assertIdentity(args.identity);
  getUnit(tx.db, args.unit);
  const existing = tx.db.prepare('SELECT 1 FROM writers WHERE unit = ? AND session = ?').get(args.unit, args.writerSession);
  if (existing !== undefined) fail('writer_already_registered', [args.unit, args.writerSession]);
  const sameProcess = tx.db
    .prepare('SELECT 1 FROM writers WHERE unit = ? AND boot_id = ? AND pid = ? AND start_time = ?')
    .get(args.unit, args.identity.bootId, args.identity.pid, args.identity.startTime);
  if (sameProcess !== undefined) fail('writer_identity_in_use', [args.unit]);
  tx.append('writer_register', args.unit, {
    unit: args.unit,
    writer_session: args.writerSession,
    boot_id: args.identity.bootId,
    pid: args.identity.pid,
    start_time: args.identity.startTime,
    registered_at: tx.now,
  });
}

export function registerWriter(store: Store, args: RegisterWriterArgs & { readonly now: number }): void {
  mutate(store, args.now, (tx) => registerWriterIn(tx, args));
}

/** The registered writer, or `writer_not_registered` (exit 8). */
export function getWriter(x: Store | Db, unit: string, writerSession: string): Writer {
  assertWriterSession(writerSession);
  const row = dbOf(x)
    .prepare('SELECT unit, session, boot_id, pid, start_time, registered_at FROM writers WHERE unit = ? AND session = ?')
    .get(unit, writerSession) as
    | { unit: string; session: string; boot_id: string; pid: number; start_time: number; registered_at: number }
    | undefined;
  if (row === undefined) fail('writer_not_registered', [unit, writerSession]);
  return {
    unit: row.unit,
    writerSession: row.session,
    identity: { bootId: row.boot_id, pid: row.pid, startTime: row.start_time },
    registeredAt: row.registered_at,
  };
}

/** The writers, of any unit, registered with exactly this process identity (docs/runner.md "Reviewer independence"). */
export function writersWithIdentity(x: Store | Db, identity: ProcessIdentity): { unit: string; writerSession: string }[] {
  const rows = dbOf(x)
    .prepare('SELECT unit, session FROM writers WHERE boot_id = ? AND pid = ? AND start_time = ? ORDER BY unit, session')
    .all(identity.bootId, identity.pid, identity.startTime) as { unit: string; session: string }[];
  return rows.map((r) => ({ unit: r.unit, writerSession: r.session }));
}
