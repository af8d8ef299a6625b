// The incident history (docs/preservation.md#incident-history): an immutable, hash-chained input
// that governed assembles from its own log — the original directives and every later scope change,
// the writer's corrections, drift evidence, DIRTY receipts and ABORTED runs, in log order — and that
// planning and integration reviewers receive whole. Pure: the flow reads the unit's log rows and
// passes them here; the digest it returns is what a preservation binding records and the planning
// state binds.
import { digestOf } from '../canonical.js';
import { INCIDENT_KINDS } from './vocabulary.js';
export { INCIDENT_KINDS };
export type IncidentKind = (typeof INCIDENT_KINDS)[number];

/** One log row of the unit that belongs to its history. */
export interface IncidentItem {
  readonly seq: number;
  readonly kind: IncidentKind;
  /** The log entry's own hash: the item is bound to the exact row of the hash-chained log. */
  readonly entryHash: string;
}

/** Minimal view of a log row needed to classify it. */
export interface LogRowView {
  readonly seq: number;
  readonly type: string;
  readonly entryHash: string;
  /** Parsed payload fields used for classification (scope version, verdict, abort code). */
  readonly version?: number;
  readonly verdict?: string;
  readonly code?: string;
}

/** Which log rows of a unit are incident items, and as what. Others (leases, challenges, …) are not. */
export function classifyIncident(row: LogRowView): IncidentKind | null {
  switch (row.type) {
    case 'scope_bind':
      return row.version === 1 ? 'directives' : 'scope_change';
    case 'incident_correction':
      return 'correction';
    case 'run_abort':
      return row.code !== undefined && row.code.includes('drift') ? 'drift' : 'aborted';
    case 'run_receipt':
      return row.verdict === 'DIRTY' ? 'dirty' : null;
    default:
      return null;
  }
}

/** True for the items that make `none` unacceptable: a correction, drift, a DIRTY or ABORTED run. */
export function isIncident(kind: IncidentKind): boolean {
  return kind !== 'directives' && kind !== 'scope_change';
}

/**
 * The chain: link_0 = digest(unit), link_i = digest(link_{i-1}, item_i). The history digest names
 * the unit, the number of items and the last link, so dropping, reordering or editing any item —
 * or presenting another unit's history — gives another digest.
 */
export function incidentHistoryDigest(unit: string, items: readonly IncidentItem[]): string {
  let link = digestOf({ kind: 'governed/incident-history-genesis', version: 1, unit });
  let last = 0;
  for (const item of items) {
    if (!Number.isSafeInteger(item.seq) || item.seq <= last) throw new RangeError('incident items must be in strictly increasing log order');
    last = item.seq;
    link = digestOf({ prev: link, seq: item.seq, kind: item.kind, entry_hash: item.entryHash });
  }
  return digestOf({ kind: 'governed/incident-history', version: 1, unit, items: items.length, head: link });
}
