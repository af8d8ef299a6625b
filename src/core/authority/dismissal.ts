// What a `dismiss` or `dismiss_veto` record must name to be used (docs/authority.md "Dismissals"):
// pure, over the unit's candidates the caller read at THIS log position.
//
//   dismiss       every id is a DIRTY receipt or an ABORTED run of the unit (docs/decision.md#the-rules-in-short), all
//                 judged on one reviewed content (the decision's `reviewedContentOf`:
//                 planning-state digest for planning, else content digest), the record's state_before;
//   dismiss_veto  at least one id is a receipt of the unit with veto findings (docs/decision.md#6-vetoes); every
//                 other id is a ref of a veto finding of a named receipt; each named receipt has at
//                 least one finding all of whose refs are named (so the record lifts something of
//                 it: docs/decision.md#6-vetoes); the named receipts share one reviewed content, the
//                 record's state_before.
// A record that names anything else would be consumed for nothing or for something it does not
// say, so it is refused (`authority_dismiss_target_invalid`, naming the first offending id, or
// `content` when the targets were judged on different contents).
import type { AuthorityOperation } from './operations.js';

export interface DismissalCandidates {
  /** DIRTY receipts and ABORTED runs of the unit: id → the reviewed content it was judged on. */
  readonly blocks: ReadonlyMap<string, string>;
  /** Receipts of the unit with veto findings: id → reviewed content and each finding's refs. */
  readonly vetoes: ReadonlyMap<string, { readonly contentDigest: string; readonly findingRefs: readonly (readonly string[])[] }>;
}

export type DismissalCheck =
  | { readonly ok: true; readonly stateBefore: string }
  | { readonly ok: false; readonly ids: readonly string[] };

/** The dismissal operations and what each lifts. */
export const DISMISSAL_OPERATIONS = ['dismiss', 'dismiss_veto'] as const satisfies readonly AuthorityOperation[];
export type DismissalOperation = (typeof DISMISSAL_OPERATIONS)[number];

function oneContent(digests: readonly string[]): DismissalCheck {
  const distinct = [...new Set(digests)];
  if (distinct.length !== 1) return { ok: false, ids: ['content'] };
  return { ok: true, stateBefore: distinct[0] as string };
}

/**
 * Whether `ids` (a record's covered IDs) name a use of `operation` on this unit, and the
 * state_before such a record must carry.
 */
export function checkDismissal(operation: DismissalOperation, ids: readonly string[], c: DismissalCandidates): DismissalCheck {
  if (ids.length === 0) return { ok: false, ids: ['ids'] };
  if (operation === 'dismiss') {
    const bad = ids.find((id) => !c.blocks.has(id));
    if (bad !== undefined) return { ok: false, ids: [bad] };
    return oneContent(ids.map((id) => c.blocks.get(id) as string));
  }
  const receipts = ids.filter((id) => c.vetoes.has(id));
  if (receipts.length === 0) return { ok: false, ids: ['receipt'] };
  const named = new Set(ids);
  const refs = new Set(receipts.flatMap((id) => c.vetoes.get(id)?.findingRefs.flat() ?? []));
  const bad = ids.find((id) => !c.vetoes.has(id) && !refs.has(id));
  if (bad !== undefined) return { ok: false, ids: [bad] };
  const liftsNothing = receipts.find((id) => !(c.vetoes.get(id)?.findingRefs ?? []).some((f) => f.every((ref) => named.has(ref))));
  if (liftsNothing !== undefined) return { ok: false, ids: [liftsNothing] };
  return oneContent(receipts.map((id) => c.vetoes.get(id)?.contentDigest as string));
}
