// The preservation evidence governed itself recorded for a unit: the baseline surface inventory of the
// allowlisted project adapter and the signed probe receipts (docs/preservation.md#probes). There is no
// command that ingests either from outside: both are written only by governed's own adapter runs
// (`preservation probe`), and each counts only for the exact sealed snapshot it ran on and while its
// adapter is still on the policy's allowlist.
import type { InventoryEntry, ProbeFact } from '../../core/preservation/rules.js';
import type { Db } from '../../store/index.js';
import type { PreservationBinding } from '../../store/preservation.js';
import { probePredicateOfEnvelope } from '../../store/reducers/preservation.js';
import { isGovernedError } from '../../core/errors.js';
import type { TrustRoot } from '../../core/trust-root.js';
import { verifyStatementEnvelope } from '../../core/verify-receipt.js';

/** Who must have signed a probe receipt: the policy's probe key, valid in this trust root at `at`. */
export interface ProbeSigner {
  readonly trust: TrustRoot;
  readonly keyId: string;
  readonly at: string;
}

/** The envelope verifies under the trust root with role `probe`, signed by exactly the policy's probe key. */
function signedByProbeKey(envelope: Buffer, signer: ProbeSigner): boolean {
  try {
    const v = verifyStatementEnvelope(envelope, signer.trust, ['probe'], { at: signer.at, offline: false });
    return v.signedBy.length === 1 && v.signedBy[0]?.keyId === signer.keyId;
  } catch (e) {
    if (isGovernedError(e)) return false;
    throw e;
  }
}

export interface SnapshotDigests {
  /** Manifest digest of the baseline commit (what a baseline probe must have run on). */
  readonly baseline: string;
  /** Manifest digest of the workspace now (what a current probe must have run on). */
  readonly current: string;
}

/** The latest baseline inventory of an allowlisted adapter on the baseline snapshot, or null. */
export function inventoryOf(db: Db, unit: string, snapshots: SnapshotDigests, allowlist: readonly string[]): InventoryEntry[] | null {
  const rows = db.prepare('SELECT entries, snapshot_digest, adapter_sha256 FROM surface_inventories WHERE unit = ? ORDER BY log_seq DESC').all(unit) as {
    entries: string;
    snapshot_digest: string;
    adapter_sha256: string;
  }[];
  const row = rows.find((r) => r.snapshot_digest === snapshots.baseline && allowlist.includes(r.adapter_sha256));
  if (row === undefined) return null;
  return (JSON.parse(row.entries) as { entry: string; kind: string }[]).map((e) => ({ entry: e.entry, kind: e.kind }));
}

/**
 * The newest probe receipt per surface and phase, for probe-able surfaces of the bound contract, that
 * ran on the snapshot of its phase (a probe of a stale snapshot does not count), names the surface's
 * evidence id and its real entry, was made by an adapter still allowlisted, and whose envelope verifies
 * under the trust root with the policy's probe key. The fields are re-read from the stored envelope,
 * not trusted from the table.
 */
export function probeFactsOf(db: Db, unit: string, b: PreservationBinding, snapshots: SnapshotDigests, allowlist: readonly string[], signer: ProbeSigner | null): ProbeFact[] {
  const rows = db.prepare('SELECT id, envelope FROM probe_receipts WHERE unit = ? ORDER BY log_seq DESC').all(unit) as { id: string; envelope: Buffer }[];
  const bySurface = new Map(b.contract.surfaces.filter((s) => s.probe !== undefined).map((s) => [s.id, s]));
  const seen = new Set<string>();
  const out: ProbeFact[] = [];
  for (const r of rows) {
    const p = probePredicateOfEnvelope(r.envelope);
    if (p === null || p.unit !== unit || !allowlist.includes(p.adapter_sha256)) continue;
    if (p.snapshot_digest !== (p.phase === 'baseline' ? snapshots.baseline : snapshots.current)) continue;
    // Re-verified here, not trusted from the table: signed by the policy's probe key, valid now.
    if (signer === null || !signedByProbeKey(r.envelope, signer)) continue;
    for (const x of p.results) {
      const s = bySurface.get(x.surface);
      if (s === undefined || x.entry !== s.probe) continue;
      if (x.evidence_id !== (p.phase === 'baseline' ? s.baseline_evidence_id : s.current_evidence_id)) continue;
      const key = `${x.surface}/${p.phase}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ receiptId: r.id, surface: x.surface, phase: p.phase, exitCode: x.exit_code, capabilities: x.capabilities, outputDigest: x.output_digest });
    }
  }
  return out;
}
