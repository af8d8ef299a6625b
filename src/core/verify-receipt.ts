// Offline verification of one review receipt (docs/formats.md#receipt): the one receipt verifier, used by every
// path (the full CLI, the cold gate, audit). Pure and synchronous: bytes in, a verified receipt or
// a coded error out. Each step cites the rule it enforces:
//   1. closed DSSE envelope, canonical base64 (envelope_invalid), in-toto payload type;
//   2. signatures before anything else is parsed from the payload: every signature verifies over
//      PAE with a trusted key, keys not revoked and inside their window at `at`, reviewer and runner
//      held by two distinct keys (4 before 6, docs/commands.md#exit-codes);
//   3. the payload is exactly RFC 8785 (payload_not_canonical);
//   4. closed statement and review-receipt predicate (statement_invalid / predicate_invalid);
//   5. the predicate's cross-field rules, and the subject is the workspace the predicate binds.
import { utf8OrNull } from './utf8.js';
import { canonicalJson, isCanonicalJsonText, sha256Digest } from './canonical.js';
import { parseEnvelopeBytes, IN_TOTO_PAYLOAD_TYPE, type DecodedEnvelope } from './dsse.js';
import { fail } from './errors.js';
import { STATEMENT_FORMAT, type Statement } from './intoto.js';
import { checkFormat } from './format/interpret.js';
import {
  REVIEW_RECEIPT_PREDICATE_TYPE,
  RECEIPT_PREDICATE_FORMAT,
  RECEIPT_STATEMENT_FORMAT,
  predicateRuleViolation,
  type ReviewReceiptPredicate,
} from './receipt-predicate.js';
import type { KeyRole, TrustRoot } from './trust-root.js';
import { RECEIPT_ROLES, verifySignatures, type SignedBy } from './verify-signatures.js';

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
  const st = checkFormat(STATEMENT_FORMAT, decodeCanonicalPayload(env));
  if (!st.success) fail('statement_invalid', st.paths);
  return st.data;
}

/** Stateless when not streaming: one decoder serves every payload. A BOM is content (not canonical). */
/** The canonical JSON value of the payload (docs/formats.md#receipt: an in-toto payload type, exact RFC 8785
 * bytes, valid UTF-8). */
export function decodeCanonicalPayload(env: DecodedEnvelope): unknown {
  if (env.payloadType !== IN_TOTO_PAYLOAD_TYPE) fail('payload_type_invalid', []);
  const text = utf8OrNull(env.payload) ?? fail('payload_not_canonical', []);
  const { canonical, value } = isCanonicalJsonText(text);
  if (!canonical) fail('payload_not_canonical', []);
  return value;
}


export { verifySignatures, type SignedBy };

export { RECEIPT_ROLES };

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
  // One pass over statement and predicate together (the hot path of bulk verification).
  const parsed = checkFormat(RECEIPT_STATEMENT_FORMAT, value);
  if (!parsed.success) {
    const onPredicate = parsed.issuePaths.every((p) => p[0] === 'predicate');
    fail(onPredicate ? 'predicate_invalid' : 'statement_invalid', parsed.paths);
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
    subject.digest.gitCommit !== undefined ||
    `sha256:${subject.digest.sha256}` !== predicate.inputs.workspace_digest
  ) {
    fail('statement_invalid', ['subject']);
  }
  return { id: sha256Digest(env.payload), payload: env.payload, statement, predicate, signedBy };
}

/** One veto finding as a stored receipt's predicate carries it (codes and IDs only). */
export interface StoredVeto {
  readonly code: string;
  readonly class: string;
  readonly severity: string;
  readonly refs: readonly string[];
}

/**
 * The veto findings of a stored receipt envelope, its payload shape-checked as a receipt predicate
 * (`predicate_invalid` naming the receipt otherwise); signatures are verified elsewhere. The one
 * reader for the decision loader and the store's dismissal rule.
 */
export function storedVetoes(envelope: Uint8Array, receiptId: string): StoredVeto[] {
  return vetoesOfPredicate(storedPredicate(envelope, receiptId));
}

/** The signed predicate of a stored envelope, parsed by the one schema (`predicate_invalid [id]` otherwise; signatures are verified elsewhere). */
export function storedPredicate(envelope: Uint8Array, receiptId: string): ReviewReceiptPredicate {
  const value = decodeCanonicalPayload(parseEnvelopeBytes(envelope));
  const predicate = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as { predicate?: unknown }).predicate : undefined;
  const parsed = checkFormat(RECEIPT_PREDICATE_FORMAT, predicate);
  if (!parsed.success) fail('predicate_invalid', [receiptId]);
  return parsed.data;
}

export function vetoesOfPredicate(p: ReviewReceiptPredicate): StoredVeto[] {
  return p.vetoes.map((v) => ({ code: v.code, class: v.class, severity: v.severity, refs: [...v.refs] }));
}

