// Building the bundle's `preservation` section (./preservation-schema.ts, docs/bundle.md#the-preservation-section)
// and the one rule of which declared surfaces a review can judge (`preservation_surface_unreviewable`).
// Pure: the flow reads the bound contract, the counted probe receipts (src/flows/preservation/evidence.ts),
// the consumed destructive records and the incident history from the store and passes them here.
import { compareUtf8, sortedUnique } from '../contract/ids.js';
import { fail } from '../errors.js';
import type { IncidentItem } from '../preservation/incident.js';
import { surfaceDiffDigest, type ChangeFact, type DispositionAuthorityFact, type ProbeFact } from '../preservation/rules.js';
import { isDestructive, type PreservationContract } from '../preservation/schema.js';
import type { PreservationSection } from './preservation-schema.js';

export interface PreservationSectionInput {
  readonly version: number;
  readonly contractDigest: string;
  readonly contract: PreservationContract;
  /** `none` or the chain digest. */
  readonly incidentHistory: string;
  /** The bound history's items, in log order, with each correction's exact bytes. */
  readonly incidentItems: readonly (IncidentItem & { readonly correction: Uint8Array | null })[];
  /** The counted probe receipts (newest candidate per surface and phase). */
  readonly probes: readonly ProbeFact[];
  /** Consumed destructive-disposition records of the unit. */
  readonly authorities: readonly DispositionAuthorityFact[];
}

/**
 * The section for `stage` (planning or integration). Planning is judged before any change: no diff
 * digests and only baseline probes; integration gets both phases and each surface's real diff
 * digest over `changes` (baseline commit → the content the challenge binds).
 */
export function buildPreservationSection(
  input: PreservationSectionInput,
  stage: 'planning' | 'integration',
  changes: readonly ChangeFact[] | null,
): PreservationSection {
  if ((stage === 'planning') !== (changes === null)) fail('internal_error', ['preservation_section']);
  const c = input.contract;
  const surfaceIds = new Set(c.surfaces.map((s) => s.id));
  const bySurface = new Map(c.surfaces.map((s) => [s.id, s]));
  const probes = input.probes
    .filter((p) => stage === 'integration' || p.phase === 'baseline')
    .map((p) => {
      const s = bySurface.get(p.surface);
      if (s === undefined || s.probe === undefined) return fail('internal_error', ['preservation_probe_surface']);
      return {
        receipt_id: p.receiptId,
        surface: p.surface,
        phase: p.phase,
        evidence_id: p.phase === 'baseline' ? s.baseline_evidence_id : s.current_evidence_id,
        entry: s.probe,
        exit_code: p.exitCode,
        capabilities: [...p.capabilities],
        output_digest: p.outputDigest,
      };
    })
    .sort((a, b) => compareUtf8(a.surface, b.surface) || compareUtf8(a.phase, b.phase));
  return {
    binding: { version: input.version, contract_digest: input.contractDigest, incident_history: input.incidentHistory },
    intent: c.intent,
    surfaces: [...c.surfaces]
      .sort((a, b) => compareUtf8(a.id, b.id))
      .map((s) => ({
        id: s.id,
        kind: s.kind,
        na_reason: s.na_reason ?? null,
        paths: [...s.paths],
        disposition: s.disposition,
        probe: s.probe ?? null,
        baseline_evidence_id: s.baseline_evidence_id,
        current_evidence_id: s.current_evidence_id,
        authority_id: s.authority_id ?? null,
        expected_diff_digest: s.expected_diff_digest ?? null,
        diff_digest: changes === null ? null : surfaceDiffDigest(s, changes),
      })),
    vendor_sources: [...c.vendor_sources]
      .sort((a, b) => compareUtf8(a.id, b.id))
      .map((v) => {
        // A bound contract was validated: every vendor source has its full origin (validate.ts).
        const o = v.origin;
        if (o?.commit === undefined || o.tree_digest === undefined) return fail('internal_error', ['preservation_vendor_origin']);
        return { id: v.id, path: v.path, disposition: v.disposition, origin: { repository: o.repository, commit: o.commit, path: o.path ?? '.', tree_digest: o.tree_digest } };
      }),
    probes,
    // Only records naming a surface of this contract are evidence for it.
    authorities: input.authorities
      .filter((a) => isDestructiveOp(a.operation) && a.ids.some((i) => surfaceIds.has(i)))
      .map((a) => ({ record: a.recordId, operation: a.operation as DestructiveOp, surfaces: sortedUnique(a.ids.filter((i) => surfaceIds.has(i))), state_after: a.stateAfter }))
      .sort((a, b) => compareUtf8(a.record, b.record)),
    incident_history: input.incidentItems.map((i) => ({
      seq: i.seq,
      kind: i.kind,
      entry_hash: i.entryHash,
      correction_b64: i.correction === null ? null : Buffer.from(i.correction).toString('base64'),
    })),
  };
}

type DestructiveOp = 'replace' | 'remove' | 'disable' | 'redirect' | 'migrate';
const isDestructiveOp = (op: string): op is DestructiveOp => isDestructive(op as never);

/**
 * The declared surfaces a review of this section could not judge (docs/bundle.md#the-preservation-section):
 * a surface counts as covered when the evidence for its disposition is in the section —
 * - a destructive surface: a consumed record of its operation that names it and is its `authority_id`;
 * - a surface without a real entry (kind `other`): its explicit N/A reason;
 * - a preserve/extend surface with an entry: its baseline probe receipt, and in integration also
 *   its current one.
 * Every other surface is returned (sorted): the challenge is refused with
 * `preservation_surface_unreviewable` naming them, so no reviewer is asked to judge a surface whose
 * evidence does not exist yet.
 */
export function unreviewableSurfaces(section: PreservationSection, stage: 'planning' | 'integration'): string[] {
  const probed = new Set(section.probes.map((p) => `${p.surface}/${p.phase}`));
  const out: string[] = [];
  for (const s of section.surfaces) {
    let covered: boolean;
    if (isDestructive(s.disposition)) {
      covered = section.authorities.some((a) => a.record === s.authority_id && a.operation === s.disposition && a.surfaces.includes(s.id));
    } else if (s.probe === null) {
      covered = s.na_reason !== null;
    } else {
      covered = probed.has(`${s.id}/baseline`) && (stage === 'planning' || probed.has(`${s.id}/current`));
    }
    if (!covered) out.push(s.id);
  }
  return sortedUnique(out);
}
