// The review bundle's preservation section: its rules beyond its shape (docs/bundle.md#the-preservation-section).
// The shape's one definition is ./preservation-schema.ts. zod-free, for the pinned reviewers. Pure.
import type { PreservationSection } from './preservation-schema.js';

const sortedUnique = (xs: readonly string[]): boolean => xs.every((x, i) => i === 0 || Buffer.compare(Buffer.from(xs[i - 1] as string), Buffer.from(x)) < 0);

/**
 * The section's rules beyond its shape, for a bundle of `stage` (docs/bundle.md#the-preservation-section):
 * the first broken rule's name, or null. Only planning and integration carry the section; diff
 * digests exist exactly in integration (where changes are judged); planning shows baseline probes
 * only; every probe and every authority names a declared surface; capabilities are sorted and unique;
 * the incident history is in strictly ascending log order, and exactly its corrections carry their
 * bytes, in canonical base64.
 */
export function preservationSectionViolation(p: PreservationSection, stage: string): string | null {
  if (stage !== 'planning' && stage !== 'integration') return 'stage';
  if (p.surfaces.some((s) => (s.diff_digest === null) !== (stage === 'planning'))) return 'diff_digest';
  const known = new Set(p.surfaces.map((s) => s.id));
  for (const x of p.probes) {
    if (stage === 'planning' && x.phase !== 'baseline') return 'probes.phase';
    if (!known.has(x.surface)) return 'probes.surface';
    if (!sortedUnique(x.capabilities)) return 'probes.capabilities';
  }
  if (p.authorities.some((a) => a.surfaces.some((n) => !known.has(n)))) return 'authorities.surfaces';
  let last = 0;
  for (const i of p.incident_history) {
    if (i.seq <= last) return 'incident_history.seq';
    last = i.seq;
    if ((i.correction_b64 !== null) !== (i.kind === 'correction')) return 'incident_history.correction_b64';
    if (i.correction_b64 !== null && Buffer.from(i.correction_b64, 'base64').toString('base64') !== i.correction_b64) return 'incident_history.correction_b64';
  }
  return null;
}
