// Judging an authority record against its request and against what it is used for (docs/authority.md#human-authority-records:
// "judged once, at the log position where it is consumed"). Pure: the caller passes the predicate
// of an already verified record and the time of the log position in whole seconds.
import { GovernedError } from '../errors.js';
import { canonicalJson } from '../canonical.js';
import { compareUtf8 } from '../contract/ids.js';
import { secondsOfIso, type AuthorityPredicate } from './predicate.js';
import { sortIds } from './ids.js';
import type { AuthorityOperation } from './operations.js';

/** What a consumer uses a record for; every field must match the record exactly. */
export interface AuthorityUse {
  /** The operation needed, or the operations the consumer accepts (e.g. a bind: defer or abandon). */
  readonly operation: AuthorityOperation | readonly AuthorityOperation[];
  /** Exactly the IDs the record must cover (any order; compared sorted and de-duplicated). */
  readonly ids: readonly string[];
  /** The unit, or null for policy/trust updates. */
  readonly unit: string | null;
  /** Exactly the state digests the record must name (null where its operation binds none). */
  readonly stateBefore: string | null;
  readonly stateAfter: string | null;
}

/** True when the record is no longer usable at `atSeconds` (expiry is exclusive: at ≥ expires). */
export function isExpiredAt(p: AuthorityPredicate, atSeconds: number): boolean {
  const expires = secondsOfIso(p.expires_at);
  return expires === null || atSeconds >= expires;
}

/**
 * The first way the record does not cover `use` (exit 4), or null. Order: operation, unit, IDs,
 * state before, state after. IDs in the error: the expected IDs the record lacks, and only a count
 * of the record's extra ones.
 */
export function useMismatch(p: AuthorityPredicate, use: AuthorityUse): GovernedError | null {
  const ops: readonly AuthorityOperation[] = typeof use.operation === 'string' ? [use.operation] : use.operation;
  if (!ops.includes(p.operation)) return new GovernedError('authority_operation_mismatch', { ids: [p.operation] });
  if (p.unit !== use.unit) return new GovernedError('authority_unit_mismatch', { ids: use.unit === null ? [] : [use.unit] });
  const want = sortIds(use.ids);
  const have = new Set(p.ids);
  const missing = want.filter((id) => !have.has(id));
  const wanted = new Set(want);
  const extra = p.ids.filter((id) => !wanted.has(id)).length;
  if (missing.length > 0 || extra > 0) {
    return new GovernedError('authority_ids_mismatch', {
      ids: [...missing.slice(0, 16).map((id) => `missing:${id}`), ...(extra > 0 ? [`extra_count:${extra}`] : [])],
    });
  }
  if (p.state_before !== use.stateBefore) return new GovernedError('authority_state_mismatch', { ids: ['state_before'] });
  if (p.state_after !== use.stateAfter) return new GovernedError('authority_state_mismatch', { ids: ['state_after'] });
  return null;
}

/**
 * The first predicate field in which a signed statement differs from the one the store issued for
 * its request, or null when they are identical (the presentation was signed as issued).
 */
export function requestMismatchField(signed: AuthorityPredicate, issued: AuthorityPredicate): string | null {
  const keys = Object.keys(issued).sort(compareUtf8) as (keyof AuthorityPredicate)[];
  for (const k of keys) if (canonicalJson(signed[k]) !== canonicalJson(issued[k])) return k;
  return null;
}
