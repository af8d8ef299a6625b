// Preservation (docs/bundle.md#the-preservation-section; the `baseline_preservation` and
// `authority_release` views of planning and integration, and integration's `complete` view). The
// reviewer re-judges the evidence it is shown, so a section whose probes show a loss or whose
// destructive surfaces lack matching authority cannot pass a review silently:
//
//   preservation_regression  a preserve/extend surface whose current probe (integration) no longer
//                            starts where the baseline one did, or lacks a baseline capability.
//                            CRITICAL, class preservation (a veto). refs: the surface.
//   authority_mismatch       a destructive surface without a record of its operation that is its
//                            authority_id, names it and signed its expected_diff_digest, or (in
//                            integration) whose real diff digest differs from the expected one.
//                            CRITICAL, class authority (a veto). refs: the surface.
import type { Sections } from '../bundle.js';
import { finding, type Finding } from '../findings.js';

const DESTRUCTIVE: ReadonlySet<string> = new Set(['replace', 'remove', 'disable', 'redirect', 'migrate']);

export function preservationFindings(s: Sections): Finding[] {
  const p = s.preservation;
  if (p === undefined) return [];
  const out: Finding[] = [];
  const probe = (surface: string, phase: 'baseline' | 'current') => p.probes.find((x) => x.surface === surface && x.phase === phase);
  for (const surface of p.surfaces) {
    if (DESTRUCTIVE.has(surface.disposition)) {
      const signed = p.authorities.some(
        (a) => a.record === surface.authorityId && a.operation === surface.disposition && a.surfaces.includes(surface.id) && a.stateAfter === surface.expectedDiffDigest,
      );
      const diffOk = surface.diffDigest === null || surface.diffDigest === surface.expectedDiffDigest;
      if (!signed || !diffOk) out.push(finding('authority_mismatch', 'authority', 'CRITICAL', [surface.id]));
      continue;
    }
    const before = probe(surface.id, 'baseline');
    const now = probe(surface.id, 'current');
    if (before === undefined || now === undefined) continue;
    const lostReach = before.exitCode === 0 && now.exitCode !== 0;
    const has = new Set(now.capabilities);
    if (lostReach || before.capabilities.some((c) => !has.has(c))) out.push(finding('preservation_regression', 'preservation', 'CRITICAL', [surface.id]));
  }
  return out;
}
