// The preservation evidence governed itself recorded for a unit: the baseline surface inventory of the
// allowlisted project adapter and the signed probe receipts (docs/preservation.md#probes). There is no
// command that ingests either from outside: both are written only by governed's own adapter runs
// (`preservation probe`), and each counts only for the exact sealed snapshot it ran on and while its
// adapter is still on the policy's allowlist.
import type { DispositionAuthorityFact, InventoryEntry, ProbeFact } from '../../core/preservation/rules.js';
import type { Db } from '../../store/index.js';
import { dispositionConsumptions, type PreservationBinding } from '../../store/preservation.js';
import { probePredicateOfEnvelope } from '../../store/reducers/preservation.js';
import { fail } from '../../core/errors.js';
import { probeTrustMode } from '../../core/preservation/probe.js';
import { parseEnvelopeBytes } from '../../core/dsse.js';
import { isoOfSeconds, type TrustRoot } from '../../core/trust-root.js';
import { verifyStatementEnvelope } from '../../core/verify-receipt.js';

/**
 * Who must have signed a probe receipt, and under which trust root it is judged: the one rule of every
 * signed record a decision rests on (docs/preservation.md#probes). The gate judges every record under
 * the deploy side's `--trust`; status and `preservation check` under the trust root in force at the
 * record's log position. A probe receipt is judged like a review receipt: at its log time, by that
 * trust root, with role `probe`, signed by exactly the policy's probe key.
 */
export interface ProbeSigner {
  readonly keyId: string;
  readonly trustAt: (seq: number) => TrustRoot;
}

/** The key ids an envelope claims to be signed by (unauthenticated: only used to pick records to verify). */
function claimedSigners(envelope: Buffer): string[] | null {
  try {
    return parseEnvelopeBytes(envelope).signatures.map((s) => s.keyid);
  } catch {
    return null;
  }
}

/**
 * Verify a selected probe receipt (it claims the policy's probe key as its one signer): its log entry
 * is a `probe_record` of this unit carrying exactly these envelope bytes, and its signature verifies
 * under `signer.trustAt(seq)` at the entry's time. Any failure is thrown with its code, as for a review
 * receipt the decision relies on (a store edited behind governed, or a deploy trust root that does not
 * hold the probe key, is an error, never a state).
 */
function verifyProbeRecord(db: Db, unit: string, row: { id: string; envelope: Buffer; log_seq: number }, signer: ProbeSigner): void {
  const entry = db.prepare('SELECT time, type, unit, payload FROM log WHERE seq = ?').get(row.log_seq) as { time: number; type: string; unit: string | null; payload: Buffer } | undefined;
  let logged: { receipt?: unknown; envelope_b64?: unknown } = {};
  try {
    const parsed: unknown = entry === undefined ? {} : JSON.parse(entry.payload.toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null) fail('decision_fact_mismatch', [row.id]);
    logged = parsed as typeof logged;
  } catch {
    fail('decision_fact_mismatch', [row.id]);
  }
  if (entry === undefined || entry.type !== 'probe_record' || entry.unit !== unit || logged.receipt !== row.id || logged.envelope_b64 !== row.envelope.toString('base64')) {
    fail('decision_fact_mismatch', [row.id]);
  }
  const v = verifyStatementEnvelope(row.envelope, signer.trustAt(row.log_seq), ['probe'], { at: isoOfSeconds(entry.time), offline: false });
  if (v.signedBy.length !== 1 || v.signedBy[0]?.keyId !== signer.keyId || v.id !== row.id) fail('decision_fact_mismatch', [row.id]);
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
 * evidence id and its real entry, was made by an adapter still allowlisted, and that names the policy's
 * probe key as its signer; each such receipt must verify (verifyProbeRecord) or the call throws. The
 * fields are re-read from the stored envelope, not trusted from the table.
 */
export function probeFactsOf(db: Db, unit: string, b: PreservationBinding, snapshots: SnapshotDigests, allowlist: readonly string[], signer: ProbeSigner | null): ProbeFact[] {
  const rows = db.prepare('SELECT id, envelope, log_seq FROM probe_receipts WHERE unit = ? ORDER BY log_seq DESC').all(unit) as { id: string; envelope: Buffer; log_seq: number }[];
  const bySurface = new Map(b.contract.surfaces.filter((s) => s.probe !== undefined).map((s) => [s.id, s]));
  const seen = new Set<string>();
  const out: ProbeFact[] = [];
  for (const r of rows) {
    const p = probePredicateOfEnvelope(r.envelope);
    if (p === null || p.unit !== unit || !allowlist.includes(p.adapter_sha256)) continue;
    if (p.snapshot_digest !== (p.phase === 'baseline' ? snapshots.baseline : snapshots.current)) continue;
    // Only a statement that names the policy's probe key as its one signer is a candidate (one signed
    // by another key is not a probe of this policy: it never counts). A candidate is re-verified
    // here, not trusted from the table, and a failure is an error (verifyProbeRecord).
    const claimed = claimedSigners(r.envelope);
    if (signer === null || claimed === null || claimed.length !== 1 || claimed[0] !== signer.keyId) continue;
    verifyProbeRecord(db, unit, r, signer);
    for (const x of p.results) {
      const s = bySurface.get(x.surface);
      if (s === undefined || x.entry !== s.probe) continue;
      if (x.evidence_id !== (p.phase === 'baseline' ? s.baseline_evidence_id : s.current_evidence_id)) continue;
      const key = `${x.surface}/${p.phase}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ receiptId: r.id, surface: x.surface, phase: p.phase, exitCode: x.exit_code, capabilities: x.capabilities, outputDigest: x.output_digest, trustMode: probeTrustMode(p) });
    }
  }
  return out;
}

/** The unit's consumed destructive-disposition records as the rules see them (in force: consumed before expiry). */
export function dispositionAuthorityFacts(db: Db, unit: string): DispositionAuthorityFact[] {
  return dispositionConsumptions(db, unit).map((c) => ({
    recordId: c.recordId,
    operation: c.operation,
    ids: c.ids,
    stateAfter: c.stateAfter,
    inForce: c.expiresAt === null || c.consumedAt < c.expiresAt,
  }));
}
