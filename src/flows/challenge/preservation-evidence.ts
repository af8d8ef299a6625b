// The preservation evidence a planning or integration bundle carries (docs/bundle.md#the-preservation-section):
// the unit's bound contract, the probe receipts the check would count now (each re-verified, as
// `preservation check` does: src/flows/preservation/evidence.ts), the consumed destructive records,
// and the bound incident history item by item, re-derived from the log (an edited binding is
// `incident_history_mismatch`). Read-only; the pure section builder is src/core/bundle/preservation.ts.
import type { PreservationSectionInput } from '../../core/bundle/preservation.js';
import { fail } from '../../core/errors.js';
import type { Policy } from '../../core/policy.js';
import { incidentItems } from '../../store/incident-history.js';
import { getPreservation, verifyIncidentBinding } from '../../store/preservation.js';
import type { Db } from '../../store/index.js';
import { trustRootsByPosition } from '../decide/pins.js';
import { dispositionAuthorityFacts, probeFactsOf, type SnapshotDigests } from '../preservation/evidence.js';
import { probeSignerOf } from '../preservation/check.js';

/** Null when the unit has no preservation contract bound (the bundle then has no such section). */
export async function preservationEvidenceOf(db: Db, unit: string, policy: Policy, snapshots: SnapshotDigests): Promise<PreservationSectionInput | null> {
  const b = getPreservation(db, unit);
  if (b === null) return null;
  verifyIncidentBinding(db, b);
  const items =
    b.incidentHistory === 'none'
      ? []
      : incidentItems(db, unit, b.incidentUpto).map((i) => ({ ...i, correction: i.kind === 'correction' ? correctionBytes(db, unit, i.seq) : null }));
  const signer = probeSignerOf(policy, await trustRootsByPosition(db));
  return {
    version: b.version,
    contractDigest: b.contractDigest,
    contract: b.contract,
    incidentHistory: b.incidentHistory,
    incidentItems: items,
    probes: probeFactsOf(db, unit, b, snapshots, policy.doc.preservation_adapters?.sha256 ?? [], signer),
    authorities: dispositionAuthorityFacts(db, unit),
  };
}

/** A correction's exact bytes, from its log entry (the row the history item's entry hash names). */
function correctionBytes(db: Db, unit: string, seq: number): Uint8Array {
  const payload = db.prepare("SELECT payload FROM log WHERE seq = ? AND type = 'incident_correction'").pluck().get(seq) as Buffer | undefined;
  let b64: unknown;
  try {
    b64 = payload === undefined ? undefined : (JSON.parse(payload.toString('utf8')) as { correction_b64?: unknown }).correction_b64;
  } catch {
    b64 = undefined;
  }
  if (typeof b64 !== 'string') return fail('incident_history_mismatch', [unit]);
  return Buffer.from(b64, 'base64');
}
