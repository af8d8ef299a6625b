// Verification of one authority record (docs/authority.md#human-authority-records, docs/policy.md#policy-and-trust-root): a DSSE envelope signed by exactly ONE key
// whose trust-root role is `authority`, over the canonical bytes of an authority statement. Pure:
// the caller passes the trust root in force and the time the record is judged at (its log
// position's time; offline: now, where any revocation counts).
//
// Order: the envelope and its one signature first (nothing is parsed from unauthenticated bytes),
// then the statement's closed schema and rules, then the trust root's own expiry. What the record is *used for* is judged separately
// (judge.ts), at the log position where it is consumed.
import { fail } from '../errors.js';
import { assertTrustRootCurrent, type TrustRoot } from '../trust-root.js';
import { decodeCanonicalPayload, verifySignatures, type VerifyOptions } from '../verify-receipt.js';
import { parseEnvelopeBytes, IN_TOTO_PAYLOAD_TYPE } from '../dsse.js';
import { sha256Digest } from '../canonical.js';
import {
  AUTHORITY_PREDICATE_TYPE,
  authorityStatementSchema,
  authorityStatementViolation,
  type AuthorityPredicate,
  type AuthorityStatement,
} from './predicate.js';
import { recordIdOf } from './ids.js';

export const AUTHORITY_ROLES = ['authority'] as const;
/** An authority record is a small JSON file; anything bigger is refused before parsing. */
import { AUTHORITY_RECORD_MAX_BYTES as MAX_AUTHORITY_RECORD_BYTES } from '../limits.js';

export interface VerifiedAuthority {
  /** `REC-<24 hex>` (ids.ts). */
  readonly recordId: string;
  /** `sha256:` of the exact payload bytes. */
  readonly payloadDigest: string;
  readonly payload: Buffer;
  readonly statement: AuthorityStatement;
  readonly predicate: AuthorityPredicate;
  /** The one authority key that signed. */
  readonly keyId: string;
}

function issuePaths(issues: readonly { path: readonly PropertyKey[] }[]): string[] {
  return issues.slice(0, 4).map((i) => i.path.map(String).join('.') || '$');
}

/**
 * Parse the canonical payload of an envelope as an authority statement: closed schema, rules,
 * subject. Used after the signature check, and by `authority sign` on the unsigned presentation.
 */
export function parseAuthorityStatement(value: unknown): AuthorityStatement {
  if (value === null || typeof value !== 'object' || (value as { predicateType?: unknown }).predicateType !== AUTHORITY_PREDICATE_TYPE) {
    fail('authority_record_invalid', ['predicateType']);
  }
  const parsed = authorityStatementSchema.safeParse(value);
  if (!parsed.success) fail('authority_record_invalid', issuePaths(parsed.error.issues));
  const broken = authorityStatementViolation(parsed.data);
  if (broken !== null) fail('authority_record_invalid', [broken]);
  return parsed.data;
}

/** Verify envelope bytes as an authority record under `trust` at `opts.at`. */
export function verifyAuthorityRecordBytes(bytes: Uint8Array, trust: TrustRoot, opts: VerifyOptions): VerifiedAuthority {
  if (bytes.length > MAX_AUTHORITY_RECORD_BYTES) fail('input_too_large', []);
  const env = parseEnvelopeBytes(bytes);
  if (env.payloadType !== IN_TOTO_PAYLOAD_TYPE) fail('payload_type_invalid', []);
  // Exactly one signature, by a key holding the authority role, valid at `opts.at` (docs/authority.md#human-authority-records, docs/policy.md#policy-and-trust-root).
  const [signed] = verifySignatures(env, trust, AUTHORITY_ROLES, opts);
  if (signed === undefined) fail('signature_missing', ['authority']);
  const statement = parseAuthorityStatement(decodeCanonicalPayload(env));
  // Last: a stale trust root (5) must not hide a verification failure (4) or an untrusted key (6)
  // (docs/commands.md#exit-codes precedence).
  assertTrustRootCurrent(trust, opts.at);
  return {
    recordId: recordIdOf(env.payload),
    payloadDigest: sha256Digest(env.payload),
    payload: env.payload,
    statement,
    predicate: statement.predicate,
    keyId: signed.keyId,
  };
}
