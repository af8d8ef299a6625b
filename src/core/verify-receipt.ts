// Offline verification of one review receipt (SPEC §8). Pure and synchronous: bytes in, a
// verified receipt or a coded error out. Each step cites the rule it enforces.
import { canonicalJson, isCanonicalJsonText, sha256Digest } from './canonical.js';
import { pae, parseEnvelopeBytes, IN_TOTO_PAYLOAD_TYPE, type DecodedEnvelope } from './dsse.js';
import { fail } from './errors.js';
import { verifyEd25519 } from './ed25519.js';
import { statementSchema, type Statement } from './intoto.js';
import {
  REVIEW_RECEIPT_PREDICATE_TYPE,
  reviewReceiptPredicateSchema,
  predicateRuleViolation,
  type ReviewReceiptPredicate,
} from './receipt-predicate.js';
import { keyStatusAt, type KeyRole, type TrustRoot, type TrustedKey } from './trust-root.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export interface VerifyOptions {
  /** The time the record is judged at (ISO seconds): its log position's time, or now offline. */
  readonly at: string;
  /** True when `at` is "now" rather than a trusted log time (then any revocation counts). */
  readonly offline: boolean;
}

export interface SignedBy {
  readonly role: KeyRole;
  readonly keyId: string;
}

export interface VerifiedStatement {
  /** `sha256:<hex>` of the payload bytes: the record's id (SPEC §8 receipt_id). */
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
 * string per statement, so no whitespace or duplicate-key channel exists (SPEC §3, §8).
 */
export function decodeCanonicalStatement(env: DecodedEnvelope): Statement {
  const st = statementSchema.safeParse(decodeCanonicalPayload(env));
  if (!st.success) fail('statement_invalid', issuePaths(st.error.issues));
  return st.data;
}

/** The canonical JSON value of the payload (SPEC §8: exact RFC 8785 bytes, valid UTF-8). */
export function decodeCanonicalPayload(env: DecodedEnvelope): unknown {
  if (env.payloadType !== IN_TOTO_PAYLOAD_TYPE) fail('payload_type_invalid', []);
  let text: string;
  try {
    text = utf8.decode(env.payload);
  } catch {
    fail('payload_not_canonical', []);
  }
  const { canonical, value } = isCanonicalJsonText(text);
  if (!canonical) fail('payload_not_canonical', []);
  return value;
}

function issuePaths(issues: readonly { path: readonly PropertyKey[] }[]): string[] {
  return issues.slice(0, 4).map((i) => i.path.map(String).join('.') || '$');
}

// One schema pass over statement and predicate together (the hot path of bulk verification).
const receiptStatementSchema = statementSchema.extend({ predicate: reviewReceiptPredicateSchema });

/**
 * Check the signatures: every signature present must verify over PAE with a trusted key; each
 * required role needs its own distinct key (a key counts once however often it signs: tuf-js
 * style Set of key ids); the keys must hold the role and be valid at `at` (SPEC §8, §13).
 * Failures are collected and the highest-precedence one is thrown (SPEC §4.2: 4 before 6).
 */
export function verifySignatures(
  env: DecodedEnvelope,
  trust: TrustRoot,
  requiredRoles: readonly KeyRole[],
  opts: VerifyOptions,
): SignedBy[] {
  if (env.signatures.length > requiredRoles.length) fail('signature_extra', []);
  const message = pae(env.payloadType, env.payload);
  const verified = new Map<string, TrustedKey>();
  const unknown: string[] = [];
  for (const s of env.signatures) {
    const key = trust.keys.get(s.keyid);
    if (key === undefined) {
      unknown.push(s.keyid);
      continue;
    }
    if (!verifyEd25519(key.publicKey, message, s.sig)) fail('signature_invalid', [s.keyid]);
    verified.set(key.keyId, key);
  }
  if (unknown.length > 0) fail('key_unknown', unknown);
  for (const key of verified.values()) {
    const status = keyStatusAt(key, opts.at, opts.offline);
    if (status === 'revoked') fail('key_revoked', [key.keyId]);
    if (status === 'outside_validity') fail('key_outside_validity', [key.keyId]);
  }
  if (verified.size < requiredRoles.length) fail('signature_missing', requiredRoles.slice(verified.size));
  const assignment = assignRoles([...verified.values()], requiredRoles);
  if (assignment === null) fail('key_wrong_role', [...verified.keys()]);
  return assignment;
}

/** Assign each required role to a distinct key holding it (tiny bipartite search: ≤ 2 roles). */
function assignRoles(keys: readonly TrustedKey[], roles: readonly KeyRole[]): SignedBy[] | null {
  const used = new Set<string>();
  const out: SignedBy[] = [];
  const search = (i: number): boolean => {
    if (i === roles.length) return true;
    const role = roles[i] as KeyRole;
    for (const k of keys) {
      if (used.has(k.keyId) || !k.roles.has(role)) continue;
      used.add(k.keyId);
      out.push({ role, keyId: k.keyId });
      if (search(i + 1)) return true;
      used.delete(k.keyId);
      out.pop();
    }
    return false;
  };
  return search(0) ? out : null;
}

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

/** Verify a review receipt (SPEC §8): two signatures, reviewer and runner, distinct keys. */
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
  // The subject is the reviewed workspace, and it must be the one the predicate binds (SPEC §8).
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
