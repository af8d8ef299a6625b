// Offline verification of one review receipt (docs/formats.md#receipt). Pure and synchronous: bytes in, a
// verified receipt or a coded error out. Each step cites the rule it enforces.
import { canonicalJson, sha256Digest } from './canonical.js';
import { parseEnvelopeBytes, IN_TOTO_PAYLOAD_TYPE, type DecodedEnvelope } from './dsse.js';
import { fail } from './errors.js';
import { statementSchema, type Statement } from './intoto.js';
import {
  REVIEW_RECEIPT_PREDICATE_TYPE,
  reviewReceiptPredicateSchema,
  predicateRuleViolation,
  type ReviewReceiptPredicate,
} from './receipt-predicate.js';
import type { KeyRole, TrustRoot } from './trust-root.js';
import { verifySignatures, type SignedBy } from './verify-signatures.js';
import { decodeCanonicalPayloadLean as decodeCanonicalPayload } from './lean/receipt.js';

export interface VerifyOptions {
  /** The time the record is judged at (ISO seconds): its log position's time, or now offline. */
  readonly at: string;
  /** True when `at` is "now" rather than a trusted log time (then any revocation counts). */
  readonly offline: boolean;
}

export interface VerifiedStatement {
  /** `sha256:<hex>` of the payload bytes: the record's id (docs/formats.md#receipt receipt_id). */
  readonly id: string;
  readonly payload: Buffer;
  readonly statement: Statement;
  readonly signedBy: readonly SignedBy[];
}

export interface VerifiedReceipt extends VerifiedStatement {
  readonly predicate: ReviewReceiptPredicate;
}

/**
 * Decode the payload and require it to be exactly the RFC 8785 form of its JSON value: one byte
 * string per statement, so no whitespace or duplicate-key channel exists (docs/threat-model.md#rules-that-hold-everywhere, docs/formats.md#receipt).
 */
export function decodeCanonicalStatement(env: DecodedEnvelope): Statement {
  const st = statementSchema.safeParse(decodeCanonicalPayload(env));
  if (!st.success) fail('statement_invalid', issuePaths(st.error.issues));
  return st.data;
}

/** The canonical JSON value of the payload (docs/formats.md#receipt: exact RFC 8785 bytes, valid UTF-8): one
 * implementation, zod-free, shared with the lean receipt check. */
export { decodeCanonicalPayload };

function issuePaths(issues: readonly { path: readonly PropertyKey[] }[]): string[] {
  return issues.slice(0, 4).map((i) => i.path.map(String).join('.') || '$');
}

// One schema pass over statement and predicate together (the hot path of bulk verification).
const receiptStatementSchema = statementSchema.extend({ predicate: reviewReceiptPredicateSchema });

export { verifySignatures, type SignedBy };

export const RECEIPT_ROLES: readonly KeyRole[] = ['reviewer', 'runner'];

/** Verify an envelope of any governed kind: structure, canonical statement, signatures. */
export function verifyStatementEnvelope(
  bytes: Uint8Array,
  trust: TrustRoot,
  requiredRoles: readonly KeyRole[],
  opts: VerifyOptions,
): VerifiedStatement {
  const env = parseEnvelopeBytes(bytes);
  if (env.payloadType !== IN_TOTO_PAYLOAD_TYPE) fail('payload_type_invalid', []);
  // Signatures first: nothing deeper than the envelope is parsed from unauthenticated bytes.
  const signedBy = verifySignatures(env, trust, requiredRoles, opts);
  const statement = decodeCanonicalStatement(env);
  return { id: sha256Digest(env.payload), payload: env.payload, statement, signedBy };
}

/** Verify a review receipt (docs/formats.md#receipt): two signatures, reviewer and runner, distinct keys. */
export function verifyReceiptBytes(bytes: Uint8Array, trust: TrustRoot, opts: VerifyOptions): VerifiedReceipt {
  const env = parseEnvelopeBytes(bytes);
  if (env.payloadType !== IN_TOTO_PAYLOAD_TYPE) fail('payload_type_invalid', []);
  // Signatures first: nothing deeper than the envelope is parsed from unauthenticated bytes.
  const signedBy = verifySignatures(env, trust, RECEIPT_ROLES, opts);
  const value = decodeCanonicalPayload(env) as { predicateType?: unknown } | null;
  if (value === null || typeof value !== 'object' || value.predicateType !== REVIEW_RECEIPT_PREDICATE_TYPE) {
    fail('statement_invalid', ['predicateType']);
  }
  const parsed = receiptStatementSchema.safeParse(value);
  if (!parsed.success) {
    const onPredicate = parsed.error.issues.every((i) => i.path[0] === 'predicate');
    fail(onPredicate ? 'predicate_invalid' : 'statement_invalid', issuePaths(parsed.error.issues));
  }
  const statement = parsed.data;
  const predicate = statement.predicate;
  const broken = predicateRuleViolation(predicate, canonicalJson);
  if (broken !== null) fail('predicate_invalid', [broken]);
  // The subject is the reviewed workspace, and it must be the one the predicate binds (docs/formats.md#receipt).
  const [subject, ...rest] = statement.subject;
  if (
    subject === undefined ||
    rest.length > 0 ||
    subject.name !== 'workspace' ||
    `sha256:${subject.digest.sha256}` !== predicate.inputs.workspace_digest
  ) {
    fail('statement_invalid', ['subject']);
  }
  return { id: sha256Digest(env.payload), payload: env.payload, statement, predicate, signedBy };
}
