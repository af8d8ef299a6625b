// The authority statement (docs/authority.md#human-authority-records): an in-toto Statement v1 whose predicate type is
// `https://governed.dev/authority/v1` and whose predicate is closed. Pure: schema, rules, builder.
//
//   predicate = { operation, ids, unit, state_before, state_after, nonce, request_id, issued_at, expires_at }
//   subject   = [{ name: <unit id> | "policy" | "trust", digest: { sha256: <hex of state_after ?? state_before> } }]
//
// The subject names what the decision is about: the unit (at the state the human approves), or
// for a policy/trust update the new document itself, so its digest is visible to any in-toto tool.
import * as z from 'zod/mini';
import { digestString, isoSeconds, list, str } from '../schema-primitives.js';
import { buildStatement } from '../intoto.js';
import { statementSchema } from '../intoto-schema.js';
import { isoOfSeconds } from '../trust-root.js';
import { AUTHORITY_OPERATIONS, OPERATION_RULES, pinKindOf } from './operations.js';
import { COVERED_ID_RE, isSortedUnique, MAX_COVERED_IDS, NONCE_RE, REQUEST_ID_RE, UNIT_ID_RE } from './ids.js';
import { AUTHORITY_MAX_TTL_SECONDS } from '../limits.js';

export const AUTHORITY_PREDICATE_TYPE = 'https://governed.dev/authority/v1';

/** TTL bounds of a request (seconds): long enough for a human elsewhere, short enough to go stale. */
export const MIN_TTL_SECONDS = 1;
export const MAX_TTL_SECONDS = AUTHORITY_MAX_TTL_SECONDS;
export const DEFAULT_TTL_SECONDS = 3600;

export const authorityPredicateSchema = z.strictObject({
  operation: z.enum(AUTHORITY_OPERATIONS),
  ids: list(str({ re: COVERED_ID_RE }), 0, MAX_COVERED_IDS),
  unit: z.nullable(str({ re: UNIT_ID_RE })),
  state_before: z.nullable(digestString),
  state_after: z.nullable(digestString),
  nonce: str({ re: NONCE_RE }),
  request_id: str({ re: REQUEST_ID_RE }),
  issued_at: isoSeconds,
  expires_at: isoSeconds,
});

export type AuthorityPredicate = z.infer<typeof authorityPredicateSchema>;

export const authorityStatementSchema = z.extend(statementSchema, {
  predicateType: z.literal(AUTHORITY_PREDICATE_TYPE),
  predicate: authorityPredicateSchema,
});

export type AuthorityStatement = z.infer<typeof authorityStatementSchema>;

export { isoOfSeconds };

/** `YYYY-MM-DDTHH:MM:SSZ` → whole seconds, or null for a string that is not a real instant. */
export function secondsOfIso(iso: string): number | null {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms) || ms < 0 || ms % 1000 !== 0) return null;
  const s = ms / 1000;
  return isoOfSeconds(s) === iso ? s : null;
}

/**
 * The cross-field rules of a predicate (beyond its closed schema). Returns the offending field
 * path, or null when the predicate is well-formed.
 */
export function authorityPredicateViolation(p: AuthorityPredicate): string | null {
  const rule = OPERATION_RULES[p.operation];
  if (!isSortedUnique(p.ids)) return 'ids';
  if (rule.unit) {
    if (p.unit === null) return 'unit';
    if (p.ids.length === 0) return 'ids';
  } else {
    if (p.unit !== null) return 'unit';
    if (p.ids.length !== 0) return 'ids';
  }
  if ((rule.stateBefore === 'required') !== (p.state_before !== null)) return 'state_before';
  if ((rule.stateAfter === 'required') !== (p.state_after !== null)) return 'state_after';
  // A pin update that keeps the same document would restart every streak for nothing.
  if (rule.class === 'pin' && p.state_before === p.state_after) return 'state_after';
  const issued = secondsOfIso(p.issued_at);
  const expires = secondsOfIso(p.expires_at);
  if (issued === null) return 'issued_at';
  if (expires === null) return 'expires_at';
  const ttl = expires - issued;
  if (ttl < MIN_TTL_SECONDS || ttl > MAX_TTL_SECONDS) return 'expires_at';
  return null;
}

/** The one subject of an authority statement (see the header). */
export function authoritySubject(p: AuthorityPredicate): { name: string; digest: { sha256: string } } {
  const name = p.unit ?? pinKindOf(p.operation) ?? 'unknown';
  const state = (p.state_after ?? p.state_before ?? '') as string;
  return { name, digest: { sha256: state.slice('sha256:'.length) } };
}

/** Rules of the whole statement: predicate rules, then the subject derived from the predicate. */
export function authorityStatementViolation(s: AuthorityStatement): string | null {
  const broken = authorityPredicateViolation(s.predicate);
  if (broken !== null) return `predicate.${broken}`;
  const want = authoritySubject(s.predicate);
  const [subject, ...rest] = s.subject;
  if (subject === undefined || rest.length > 0 || subject.name !== want.name || subject.digest.sha256 !== want.digest.sha256) {
    return 'subject';
  }
  return null;
}

export function buildAuthorityStatement(p: AuthorityPredicate): AuthorityStatement {
  return buildStatement([authoritySubject(p)], AUTHORITY_PREDICATE_TYPE, p) as AuthorityStatement;
}
