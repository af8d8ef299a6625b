// Changing a bound preservation contract follows the request contract's narrowing rules
// (docs/preservation.md#binding-a-contract): pure additions bind freely; any other edit of an
// existing surface or vendor source — removed, a fixed field edited, a path dropped, extend→preserve,
// a destructive disposition moved again — is narrowing and needs an `authorize` record naming exactly
// those ids. A surface that only turns from preserve/extend to a destructive disposition is not
// narrowing here: its own destructive authority record (named by authority_id) covers it.
import { canonicalJson } from '../canonical.js';
import { sortedUnique } from '../contract/ids.js';
import { isDestructive, type PreservationContract, type Surface } from './schema.js';

/** The id an edited `intent` is named by in the narrowing list (an authority covers it like an item). */
export const INTENT_ID = 'INTENT-1';

function fixedOf(s: Surface): string {
  return canonicalJson({
    kind: s.kind,
    na_reason: s.na_reason ?? null,
    probe: s.probe ?? null,
    baseline_evidence_id: s.baseline_evidence_id,
    current_evidence_id: s.current_evidence_id,
  });
}

function destructiveFields(s: Surface): string {
  return canonicalJson({ disposition: s.disposition, authority_id: s.authority_id ?? null, expected_diff_digest: s.expected_diff_digest ?? null });
}

export interface PreservationDiff {
  readonly additions: string[];
  readonly narrowing: string[];
  /** Surfaces newly turned destructive: each needs its own destructive authority record. */
  readonly newlyDestructive: string[];
}

export function diffPreservation(previous: PreservationContract, next: PreservationContract): PreservationDiff {
  const additions: string[] = [];
  const narrowing: string[] = [];
  const newlyDestructive: string[] = [];
  if (previous.intent !== next.intent) narrowing.push(INTENT_ID);
  const after = new Map(next.surfaces.map((s) => [s.id, s]));
  for (const old of previous.surfaces) {
    const now = after.get(old.id);
    if (now === undefined) {
      narrowing.push(old.id);
      continue;
    }
    let narrowed = fixedOf(old) !== fixedOf(now) || old.paths.some((p) => !now.paths.includes(p));
    const grew = now.paths.some((p) => !old.paths.includes(p));
    if (old.disposition !== now.disposition) {
      if (!isDestructive(old.disposition) && isDestructive(now.disposition)) newlyDestructive.push(old.id);
      else if (!(old.disposition === 'preserve' && now.disposition === 'extend')) narrowed = true;
    } else if (isDestructive(old.disposition) && destructiveFields(old) !== destructiveFields(now)) {
      narrowed = true;
    }
    if (narrowed) narrowing.push(old.id);
    else if (grew || old.disposition !== now.disposition) additions.push(old.id);
  }
  const before = new Set(previous.surfaces.map((s) => s.id));
  for (const s of next.surfaces) if (!before.has(s.id)) additions.push(s.id);
  const vendorsAfter = new Map(next.vendor_sources.map((v) => [v.id, canonicalJson(v)]));
  for (const v of previous.vendor_sources) if (vendorsAfter.get(v.id) !== canonicalJson(v)) narrowing.push(v.id);
  const vendorsBefore = new Set(previous.vendor_sources.map((v) => v.id));
  for (const v of next.vendor_sources) if (!vendorsBefore.has(v.id)) additions.push(v.id);
  return { additions: sortedUnique(additions), narrowing: sortedUnique(narrowing), newlyDestructive: sortedUnique(newlyDestructive) };
}
