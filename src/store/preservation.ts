// Preservation bindings and incident corrections of units (docs/preservation.md): the store side of
// `preservation set` and `preservation correct`. What is judged belongs to the flow; this records
// what the flow decided, in the caller's transaction, and reads it back.
import { canonicalJson } from '../core/canonical.js';
import { fail, isGovernedError } from '../core/errors.js';
import { parsePreservationBytes, preservationDigest } from '../core/preservation/text.js';
import type { PreservationContract } from '../core/preservation/schema.js';
import { incidentHistoryAt } from './incident-history.js';
import type { Tx } from './log.js';
import { dbOf, type Db, type Store } from './store.js';
import { getUnit } from './units.js';

export interface PreservationBinding {
  readonly unit: string;
  readonly version: number;
  readonly contractBytes: Buffer;
  readonly contract: PreservationContract;
  readonly contractDigest: string;
  readonly authorities: readonly string[];
  /** Chain digest of the incident history bound, or `none`. */
  readonly incidentHistory: string;
  /** The log position the bound history covers. */
  readonly incidentUpto: number;
  readonly boundAt: number;
}

interface Row {
  unit: string;
  version: number;
  contract_bytes: Buffer;
  contract_digest: string;
  authorities: string;
  incident_history: string;
  incident_upto: number;
  bound_at: number;
}

/** The unit's latest preservation binding, or null when none was ever set. */
export function getPreservation(x: Store | Db, unit: string): PreservationBinding | null {
  const db = dbOf(x);
  const r = db.prepare('SELECT * FROM preservation_versions WHERE unit = ? ORDER BY version DESC LIMIT 1').get(unit) as Row | undefined;
  if (r === undefined) return null;
  const where = `${unit}:preservation:${r.version}`;
  let contract: PreservationContract;
  let authorities: unknown;
  try {
    contract = parsePreservationBytes(r.contract_bytes);
    authorities = JSON.parse(r.authorities);
  } catch (e) {
    if (isGovernedError(e) || e instanceof SyntaxError) return fail('preservation_integrity_failed', [where]);
    throw e;
  }
  if (preservationDigest(contract) !== r.contract_digest) fail('preservation_integrity_failed', [where]);
  if (!Array.isArray(authorities) || canonicalJson(authorities) !== r.authorities) fail('preservation_integrity_failed', [where]);
  return {
    unit,
    version: r.version,
    contractBytes: r.contract_bytes,
    contract,
    contractDigest: r.contract_digest,
    authorities: authorities as string[],
    incidentHistory: r.incident_history,
    incidentUpto: r.incident_upto,
    boundAt: r.bound_at,
  };
}

/**
 * Re-derive the bound incident history from the log (`incident_history_mismatch` when the row no
 * longer is what the log gives) and report whether the log holds incidents at all, now.
 */
export function verifyIncidentBinding(x: Store | Db, b: PreservationBinding): { incidentsNow: boolean } {
  const db = dbOf(x);
  if (b.incidentHistory !== 'none') {
    const h = incidentHistoryAt(db, b.unit, b.incidentUpto);
    if (h.digest !== b.incidentHistory) fail('incident_history_mismatch', [b.unit]);
  }
  const head = db.prepare('SELECT COALESCE(MAX(seq), 0) FROM log').pluck().get() as number;
  return { incidentsNow: incidentHistoryAt(db, b.unit, head).incidents };
}

export interface BindPreservationArgs {
  readonly unit: string;
  readonly contractBytes: Buffer;
  readonly contractDigest: string;
  readonly authorities: readonly string[];
  /** `none` asks for no history (accepted only without incidents); otherwise the chain is assembled now. */
  readonly noIncidentHistory: boolean;
}

/** Record the next binding in `tx`; the incident history is assembled from the log up to now. */
export function bindPreservationIn(tx: Tx, args: BindPreservationArgs): PreservationBinding {
  getUnit(tx.db, args.unit);
  const latest = tx.db.prepare('SELECT COALESCE(MAX(version), 0) FROM preservation_versions WHERE unit = ?').pluck().get(args.unit) as number;
  const upto = tx.db.prepare('SELECT COALESCE(MAX(seq), 0) FROM log').pluck().get() as number;
  const h = incidentHistoryAt(tx.db, args.unit, upto);
  if (args.noIncidentHistory && h.incidents) fail('incident_history_none_refused', [args.unit]);
  tx.append('preservation_set', args.unit, {
    unit: args.unit,
    version: latest + 1,
    contract_b64: args.contractBytes.toString('base64'),
    contract_digest: args.contractDigest,
    authorities: [...args.authorities].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))),
    incident_history: args.noIncidentHistory ? 'none' : h.digest,
    incident_upto: upto,
    bound_at: tx.now,
  });
  const b = getPreservation(tx.db, args.unit);
  if (b === null) return fail('internal_error', ['preservation_set']);
  return b;
}

/** Append a writer's correction to the unit's incident history (the caller re-binds afterwards). */
export function recordCorrectionIn(tx: Tx, unit: string, bytes: Buffer, digest: string): number {
  getUnit(tx.db, unit);
  return tx.append('incident_correction', unit, { unit, correction_b64: bytes.toString('base64'), digest, recorded_at: tx.now }).seq;
}

/** Records consumed for `unit` with a destructive disposition operation (what the check judges). */
export function dispositionConsumptions(
  x: Store | Db,
  unit: string,
): { recordId: string; operation: string; ids: string[]; stateAfter: string | null; consumedAt: number; expiresAt: number | null }[] {
  const rows = dbOf(x)
    .prepare(
      `SELECT r.id, c.operation, r.ids, r.state_after, c.consumed_at, r.expires_at FROM authority_consumptions c
       JOIN authority_records r ON r.id = c.record
       WHERE c.unit = ? AND c.operation IN ('replace', 'remove', 'disable', 'redirect', 'migrate') ORDER BY c.consumed_seq`,
    )
    .all(unit) as { id: string; operation: string; ids: string; state_after: string | null; consumed_at: number; expires_at: number | null }[];
  return rows.map((r) => ({ recordId: r.id, operation: r.operation, ids: JSON.parse(r.ids) as string[], stateAfter: r.state_after, consumedAt: r.consumed_at, expiresAt: r.expires_at }));
}
