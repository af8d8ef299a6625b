// The incident history of a unit as governed's own log holds it (docs/preservation.md#incident-history):
// its rows are read here once, classified and chained by the pure rules of
// src/core/preservation/incident.ts. The `preservation_set` reducer and the check both call this, so
// the history a binding records is recomputed from the log on replay and at every check.
import { classifyIncident, incidentHistoryDigest, isIncident, type IncidentItem } from '../core/preservation/incident.js';
import type { Db } from './store.js';

const TYPES = "('scope_bind', 'incident_correction', 'run_abort', 'run_receipt')";

/** The unit's incident items with log seq ≤ `upto`, in log order. */
export function incidentItems(db: Db, unit: string, upto: number): IncidentItem[] {
  const rows = db
    .prepare(`SELECT seq, type, entry_hash, payload FROM log WHERE unit = ? AND seq <= ? AND type IN ${TYPES} ORDER BY seq`)
    .all(unit, upto) as { seq: number; type: string; entry_hash: string; payload: Buffer }[];
  const items: IncidentItem[] = [];
  for (const r of rows) {
    const p = JSON.parse(r.payload.toString('utf8')) as { version?: number; verdict?: string; code?: string };
    const kind = classifyIncident({ seq: r.seq, type: r.type, entryHash: r.entry_hash, version: p.version, verdict: p.verdict, code: p.code });
    if (kind !== null) items.push({ seq: r.seq, kind, entryHash: r.entry_hash });
  }
  return items;
}

/** The chain digest of the unit's history up to `upto`, and whether it holds any incident. */
export function incidentHistoryAt(db: Db, unit: string, upto: number): { digest: string; incidents: boolean; items: number } {
  const items = incidentItems(db, unit, upto);
  return { digest: incidentHistoryDigest(unit, items), incidents: items.some((i) => isIncident(i.kind)), items: items.length };
}
