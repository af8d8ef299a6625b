// Receipt verification (docs/formats.md#receipt) without zod, for the lean gate path (docs/gate.md#6-the-lean-gate-path). It is the
// same acceptance rule, in the same order and with the same error codes, as
// src/core/verify-receipt.ts `verifyReceiptBytes` (whose modules build zod schemas at load):
//   1. closed DSSE envelope, canonical base64 (envelope_invalid), in-toto payload type;
//   2. signatures before anything else is parsed from the payload: every signature verifies over
//      PAE with a trusted key, keys not revoked and inside their window at `at`, reviewer and runner
//      held by two distinct keys (4 before 6, docs/commands.md#exit-codes);
//   3. the payload is exactly RFC 8785 (payload_not_canonical);
//   4. closed statement and review-receipt predicate (statement_invalid / predicate_invalid);
//   5. the predicate's cross-field rules, and the subject is the workspace the predicate binds.
// test/gate-lean-schemas.test.ts checks acceptance equality with verifyReceiptBytes over valid
// receipts and hundreds of mutations. Pure: node:crypto verification only.
import { FINDING_CODES, FINDING_CLASSES, SEVERITIES } from '../review-vocabulary.js';
import { canonicalJson, isCanonicalJsonText, sha256Digest } from '../canonical.js';
import { decodeBase64Strict } from '../base64.js';
import { fail } from '../errors.js';
import type { ReviewReceiptPredicate } from '../receipt-predicate.js';
import { parseJsonStrict } from '../strict-json.js';
import type { KeyRole, TrustRoot } from '../trust-root.js';
import { arr, bool, int, isPlainObject, lit, obj, oneOf, record, str, isoSeconds, type Check } from './shape.js';
import { HEX64 } from './trust-root.js';
import { verifySignatures } from '../verify-signatures.js';
import type { DecodedEnvelope } from '../dsse.js';

export const IN_TOTO_PAYLOAD_TYPE_LEAN = 'application/vnd.in-toto+json';
export const STATEMENT_TYPE_LEAN = 'https://in-toto.io/Statement/v1';
export const REVIEW_RECEIPT_TYPE_LEAN = 'https://governed.dev/review-receipt/v1';
const RECEIPT_ROLES: readonly KeyRole[] = ['reviewer', 'runner'];

/** The decoded envelope shape of src/core/dsse.ts (a type-only import: no zod at run time). */
export type LeanEnvelope = DecodedEnvelope;

const hex64 = str({ re: HEX64 });
const digest = str({ re: /^sha256:[0-9a-f]{64}$/ });
const count = int(0, Number.MAX_SAFE_INTEGER);

const envelopeShape: Check = obj({
  payloadType: str({ min: 1 }),
  payload: str(),
  signatures: arr(obj({ keyid: str({ re: HEX64 }), sig: str({ min: 1 }) }), 0, 16),
});

/** src/core/dsse.ts `parseEnvelopeBytes`: duplicate keys refused, closed object, canonical base64. */
export function parseEnvelopeLean(bytes: Uint8Array): LeanEnvelope {
  let value: unknown;
  try {
    // Decoded in place (a copy of the bytes first would change nothing but the cost, bench/gate).
    value = parseJsonStrict(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch {
    fail('envelope_invalid', ['$']);
  }
  const bad = envelopeShape(value, '$');
  if (bad !== null) fail('envelope_invalid', [bad]);
  const env = value as { payloadType: string; payload: string; signatures: { keyid: string; sig: string }[] };
  return {
    payloadType: env.payloadType,
    payload: decodeBase64Strict(env.payload, 'envelope_invalid', 'payload'),
    signatures: env.signatures.map((s, i) => ({ keyid: s.keyid, sig: decodeBase64Strict(s.sig, 'envelope_invalid', `signatures.${i}.sig`) })),
  };
}

/** Stateless when not streaming: one decoder serves every payload. A BOM is content (not canonical). */
const UTF8_FATAL = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The canonical JSON value of the payload (src/core/verify-receipt.ts `decodeCanonicalPayload`). */
export function decodeCanonicalPayloadLean(env: LeanEnvelope): unknown {
  if (env.payloadType !== IN_TOTO_PAYLOAD_TYPE_LEAN) fail('payload_type_invalid', []);
  let text: string;
  try {
    text = UTF8_FATAL.decode(env.payload);
  } catch {
    fail('payload_not_canonical', []);
  }
  const { canonical, value } = isCanonicalJsonText(text);
  if (!canonical) fail('payload_not_canonical', []);
  return value;
}

const contractIdRe = /^[A-Z][A-Z0-9]{1,7}-[A-Za-z0-9._-]{1,24}$/;
const finding = obj({
  code: oneOf(FINDING_CODES),
  class: oneOf(FINDING_CLASSES),
  severity: oneOf(SEVERITIES),
  refs: arr(str({ re: contractIdRe }), 1, 4),
});
const gitId = str({ re: /^[0-9a-f]{40}$|^[0-9a-f]{64}$/ });
const identity = {
  boot_id: str({ re: /^[0-9a-f-]{36}$/ }),
  pid: int(1, 4194304),
  start_time: str({ re: /^\d{1,20}$/ }),
};

/** src/core/receipt-predicate.ts `reviewReceiptPredicateSchema`, closed at every level. */
export const receiptPredicateShape: Check = obj({
  trust_mode: oneOf(['co-located', 'separated']),
  unit: str({ re: /^UNIT-[0-9a-f]{32}$/ }),
  stage: oneOf(['planning', 'development', 'test', 'integration']),
  slot: str({ re: /^[a-z][a-z0-9_-]{0,31}$/ }),
  challenge_id: str({ re: /^CHL-[0-9a-f]{32}$/ }),
  run_id: str({ re: /^RUN-[0-9a-f]{32}$/ }),
  execution_id: str({ re: /^EXE-[0-9a-f]{32}$/ }),
  verdict: oneOf(['CLEAN', 'DIRTY']),
  findings: arr(finding, 0, 32),
  vetoes: arr(finding, 0, 32),
  coverage_matched: lit(true),
  bundle_digest: digest,
  view_digest: digest,
  planning_state_digest: digest,
  content_digest: digest,
  work_state_digest: digest,
  inputs: obj({
    contract_digest: digest,
    sources_digest: digest,
    workspace_digest: digest,
    baseline: obj({ commit: gitId, tree: gitId }),
    policy_digest: digest,
    trust_digest: digest,
    scope_epoch: count,
    work_revision: count,
  }),
  reviewer: obj({
    name: str({ re: /^[a-z][a-z0-9_-]{0,31}$/ }),
    sha256: hex64,
    interpreter: str({ re: /^\/usr\/[A-Za-z0-9._/+-]{1,200}$/ }),
  }),
  sandbox: obj({ bwrap_sha256: hex64, profile_digest: digest, seccomp_digest: digest, uid: int(0, 4294967294), uid_separated: bool() }),
  attestors: obj({ reviewer_sha256: hex64, runner_sha256: hex64 }),
  reviewer_process: obj({
    ...identity,
    namespaces: obj({ cgroup: count, ipc: count, mnt: count, net: count, pid: count, user: count, uts: count }),
  }),
  writers: arr(obj({ ...identity, writer_session: str({ re: /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/ }) }), 0, 64),
  times: obj({ issued_at: isoSeconds, started_at: isoSeconds, finished_at: isoSeconds }),
});

/** src/core/intoto.ts `statementSchema` with the predicate checked by `predicate`. */
export function statementShape(predicate: Check): Check {
  return obj({
    _type: lit(STATEMENT_TYPE_LEAN),
    subject: arr(obj({ name: str({ min: 1, max: 256 }), digest: obj({ sha256: hex64 }) }), 1, 16),
    predicateType: str({ min: 1 }),
    predicate,
  });
}

const receiptStatementShape = statementShape(receiptPredicateShape);
/** Any plain object (z.record(z.string(), z.unknown())). */
export const anyObject: Check = record(str(), () => null);
export const genericStatementShape = statementShape(anyObject);

const VETO_CLASSES: ReadonlySet<string> = new Set(['preservation', 'scope', 'authority', 'release']);

/** src/core/receipt-predicate.ts `predicateRuleViolation`. */
export function predicateRuleViolationLean(p: ReviewReceiptPredicate): string | null {
  if ((p.verdict === 'CLEAN') !== (p.findings.length === 0)) return 'verdict';
  const keys = p.findings.map((f) => canonicalJson(f));
  for (let i = 1; i < keys.length; i++) if (!((keys[i - 1] as string) < (keys[i] as string))) return 'findings';
  for (const f of p.findings) {
    for (let i = 1; i < f.refs.length; i++) if (!((f.refs[i - 1] as string) < (f.refs[i] as string))) return 'findings.refs';
  }
  const expectedVetoes = p.findings.filter((f) => f.severity === 'CRITICAL' && VETO_CLASSES.has(f.class)).map((f) => canonicalJson(f));
  const vetoes = p.vetoes.map((f) => canonicalJson(f));
  if (expectedVetoes.length !== vetoes.length || expectedVetoes.some((v, i) => v !== vetoes[i])) return 'vetoes';
  const t = p.times;
  if (!(t.issued_at <= t.started_at && t.started_at <= t.finished_at)) return 'times';
  return null;
}

export interface LeanVerifiedReceipt {
  /** `sha256:<hex>` of the payload bytes (docs/formats.md#receipt receipt_id). */
  readonly id: string;
  readonly predicate: ReviewReceiptPredicate;
}

/** Verify a review receipt (docs/formats.md#receipt) exactly as `verifyReceiptBytes` does. */
export function verifyReceiptLean(bytes: Uint8Array, trust: TrustRoot, opts: { readonly at: string; readonly offline: boolean }): LeanVerifiedReceipt {
  const env = parseEnvelopeLean(bytes);
  if (env.payloadType !== IN_TOTO_PAYLOAD_TYPE_LEAN) fail('payload_type_invalid', []);
  verifySignatures(env, trust, RECEIPT_ROLES, opts);
  const value = decodeCanonicalPayloadLean(env);
  if (!isPlainObject(value) || value.predicateType !== REVIEW_RECEIPT_TYPE_LEAN) fail('statement_invalid', ['predicateType']);
  const bad = receiptStatementShape(value, '$');
  if (bad !== null) fail(bad === 'predicate' || bad.startsWith('predicate.') ? 'predicate_invalid' : 'statement_invalid', [bad]);
  const statement = value as unknown as {
    subject: { name: string; digest: { sha256: string } }[];
    predicate: ReviewReceiptPredicate;
  };
  const predicate = statement.predicate;
  const broken = predicateRuleViolationLean(predicate);
  if (broken !== null) fail('predicate_invalid', [broken]);
  const [subject, ...rest] = statement.subject;
  if (subject === undefined || rest.length > 0 || subject.name !== 'workspace' || `sha256:${subject.digest.sha256}` !== predicate.inputs.workspace_digest) {
    fail('statement_invalid', ['subject']);
  }
  return { id: sha256Digest(env.payload), predicate };
}
