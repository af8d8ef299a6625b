// Offline verification of governed's own signed records other than receipts (docs/gate.md#3-the-signed-decision---attest-file
// "Verifying a signed decision"): a signed decision (SLSA VSA v1, ./vsa.ts) and a log checkpoint
// (./checkpoint.ts). Pure: the caller reads the bytes and passes the trust root and the time.
//
// Each: exactly ONE signature, by a key the trust root holds in the right role (`gate` for a
// decision, `log` for a checkpoint), valid at `at` (offline: a revoked key is refused whenever it
// was revoked); the payload the exact RFC 8785 bytes of an in-toto Statement v1; the predicate type
// and closed predicate of that kind; its cross-field rules. Signatures are checked before anything
// deeper than the envelope is parsed (./verify-receipt.ts `verifyStatementEnvelope`).
import { fail } from './errors.js';
import type { TrustRoot } from './trust-root.js';
import { verifyStatementEnvelope, type SignedBy } from './verify-receipt.js';
import { VSA_EXTENSION_KEY, VSA_PREDICATE_TYPE, vsaRuleViolation, type VsaPredicate, VSA_PREDICATE_FORMAT } from './vsa.js';
import { checkFormat } from './format/interpret.js';
import { checkpointViolation, type CheckpointPredicate } from './checkpoint.js';

export interface VerifiedVsa {
  /** `sha256:` of the signed payload. */
  readonly payloadDigest: string;
  readonly predicate: VsaPredicate;
  readonly subject: { readonly commit: string; readonly manifestDigest: string };
  readonly signedBy: readonly SignedBy[];
}

export interface VerifiedCheckpoint {
  readonly payloadDigest: string;
  readonly predicate: CheckpointPredicate;
  readonly signedBy: readonly SignedBy[];
}

/**
 * A signed decision: one `gate` signature, a VSA statement whose predicate passes its closed schema
 * and rules; with `subject`, the decision must be about that commit (`vsa_subject_mismatch`).
 * A FAILED decision verifies too — it is a genuine signed FAILED: the caller reads the result.
 */
export function verifyVsaBytes(bytes: Uint8Array, trust: TrustRoot, opts: { readonly at: string; readonly subject?: string | undefined }): VerifiedVsa {
  const v = verifyStatementEnvelope(bytes, trust, ['gate'], { at: opts.at, offline: true });
  if (v.statement.predicateType !== VSA_PREDICATE_TYPE) fail('statement_invalid', ['predicateType']);
  const parsed = checkFormat(VSA_PREDICATE_FORMAT, v.statement.predicate);
  if (!parsed.success) fail('predicate_invalid', parsed.paths);
  const broken = vsaRuleViolation({ subject: v.statement.subject, predicate: parsed.data });
  if (broken !== null) fail('predicate_invalid', [broken]);
  const facts = parsed.data[VSA_EXTENSION_KEY];
  if (opts.subject !== undefined && opts.subject !== facts.subject.commit) fail('vsa_subject_mismatch', []);
  return { payloadDigest: v.id, predicate: parsed.data, subject: { commit: facts.subject.commit, manifestDigest: facts.subject.manifest_digest }, signedBy: v.signedBy };
}

/** A log checkpoint: one `log` signature and a closed checkpoint statement (its subject the head it names). */
export function verifyCheckpointBytes(bytes: Uint8Array, trust: TrustRoot, opts: { readonly at: string }): VerifiedCheckpoint {
  const v = verifyStatementEnvelope(bytes, trust, ['log'], { at: opts.at, offline: true });
  const broken = checkpointViolation(v.statement);
  if (broken !== null) fail('predicate_invalid', [broken]);
  return { payloadDigest: v.id, predicate: v.statement.predicate as unknown as CheckpointPredicate, signedBy: v.signedBy };
}
