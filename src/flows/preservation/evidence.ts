// The preservation evidence governed itself recorded for a unit: the baseline surface inventory of the
// allowlisted project adapter and the signed probe receipts (docs/preservation.md#probes). There is no
// command that ingests either from outside: both are written only by governed's own adapter runs.
import type { InventoryEntry, ProbeFact } from '../../core/preservation/rules.js';
import type { Db } from '../../store/index.js';
import type { PreservationBinding } from '../../store/preservation.js';

/** The latest baseline inventory of the unit, or null when none was derived. */
export function inventoryOf(db: Db, unit: string): InventoryEntry[] | null {
  const row = db.prepare('SELECT entries FROM surface_inventories WHERE unit = ? ORDER BY log_seq DESC LIMIT 1').get(unit) as { entries: string } | undefined;
  if (row === undefined) return null;
  return (JSON.parse(row.entries) as { entry: string; kind: string }[]).map((e) => ({ entry: e.entry, kind: e.kind }));
}

/**
 * The newest probe receipt per surface and phase, for surfaces of the bound contract. The current
 * phase counts only on the current snapshot (the caller passes its digest once probes exist).
 */
export function probeFactsOf(db: Db, unit: string, b: PreservationBinding, currentSnapshot: string | null = null): ProbeFact[] {
  const rows = db
    .prepare('SELECT id, surface, phase, snapshot_digest, exit_code, capabilities, output_digest FROM probe_receipts WHERE unit = ? ORDER BY log_seq DESC')
    .all(unit) as { id: string; surface: string; phase: 'baseline' | 'current'; snapshot_digest: string; exit_code: number; capabilities: string; output_digest: string }[];
  const ids = new Set(b.contract.surfaces.map((s) => s.id));
  const seen = new Set<string>();
  const out: ProbeFact[] = [];
  for (const r of rows) {
    if (!ids.has(r.surface)) continue;
    if (r.phase === 'current' && r.snapshot_digest !== currentSnapshot) continue;
    const key = `${r.surface}/${r.phase}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ receiptId: r.id, surface: r.surface, phase: r.phase, exitCode: r.exit_code, capabilities: JSON.parse(r.capabilities) as string[], outputDigest: r.output_digest });
  }
  return out;
}
