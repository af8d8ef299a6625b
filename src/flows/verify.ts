// `governed verify` (docs/commands.md#what-each-command-guarantees, docs/formats.md#receipt): offline verification of receipt files under a trust root.
import { fail, GovernedError, highestPrecedence, EXIT, type ExitCode } from '../core/errors.js';
import { loadTrustRoot, assertTrustRootCurrent, isoSecondsOf, type TrustRoot } from '../core/trust-root.js';
import { verifyReceiptBytes, RECEIPT_ROLES } from '../core/verify-receipt.js';
import { assertSignedByCredentials, receiptCredentialKeys, type CredentialKeys } from '../core/verify-signatures.js';
import { loadPolicy } from '../core/policy.js';
import { readInputFile, readStructuredFile } from './read-input.js';
import { parseStructured } from '../core/strict-parse.js';
import { verifyCheckpointBytes, verifyVsaBytes } from '../core/verify-decision.js';
import { VSA_EXTENSION_KEY } from '../core/vsa.js';
import { openStoreReadOnly, closeStore, readPin } from '../store/index.js';

/** Defined once in zod/mini (src/core/command-output.ts verifySchema); type imports only. */
export type { ReceiptVerdict } from '../core/command-output.js';
import type { ReceiptVerdict, VerifyJson } from '../core/command-output.js';

/** The report `governed verify --json` prints, before the command adds `ok` (and `inclusion`). */
export type VerifyReport = Omit<VerifyJson, 'ok' | 'inclusion'>;

import { PIN_DOCUMENT_MAX_BYTES, RECEIPT_FILE_MAX_BYTES as MAX_RECEIPT_BYTES } from '../core/limits.js';

export function loadTrustRootFile(path: string, now: Date): TrustRoot {
  const { value } = readStructuredFile(path, PIN_DOCUMENT_MAX_BYTES);
  return trustRootFromValue(value, now);
}

/** The trust root pinned in a state directory (docs/commands.md#what-each-command-guarantees: `verify`'s default). */
export function loadPinnedTrustRoot(home: string, now: Date): TrustRoot {
  let bytes: Buffer;
  try {
    // Read-only: verifying a receipt must not take the write lock or migrate the store (docs/threat-model.md#rules-that-hold-everywhere).
    const store = openStoreReadOnly(home);
    try {
      bytes = readPin(store, 'trust').bytes;
    } finally {
      closeStore(store);
    }
  } catch (e) {
    if (e instanceof GovernedError && e.code === 'store_missing') fail('trust_root_missing', []);
    throw e;
  }
  return trustRootFromValue(parseStructured(bytes.toString('utf8'), ''), now);
}

function trustRootFromValue(value: unknown, now: Date): TrustRoot {
  let trust: TrustRoot;
  try {
    trust = loadTrustRoot(value);
  } catch (e) {
    if (e instanceof GovernedError) throw e;
    fail('trust_root_invalid', []);
  }
  assertTrustRootCurrent(trust, isoSecondsOf(now));
  return trust;
}

/**
 * `--policy FILE`: the receipt signing keys it names (docs/gate.md §4). With them, every receipt's
 * reviewer signature must be by the policy's reviewer key and its runner signature by its runner
 * key, each holding that role in the trust root (`signature_not_credential_key`, 6).
 */
export function loadPolicyCredentialKeys(path: string): CredentialKeys {
  return receiptCredentialKeys(loadPolicy(readStructuredFile(path, 1024 * 1024).value).doc.credentials);
}

export function verifyReceiptFiles(files: readonly string[], trust: TrustRoot, now: Date, credentials?: CredentialKeys): VerifyReport {
  const at = isoSecondsOf(now);
  const receipts: ReceiptVerdict[] = files.map((file) => {
    try {
      const bytes = readInputFile(file, MAX_RECEIPT_BYTES);
      const r = verifyReceiptBytes(bytes, trust, { at, offline: true });
      if (credentials !== undefined) assertSignedByCredentials(r.signedBy.map((x) => x.keyId), trust, RECEIPT_ROLES, credentials);
      return {
        file,
        valid: true,
        receipt_id: r.id,
        unit: r.predicate.unit,
        stage: r.predicate.stage,
        slot: r.predicate.slot,
        verdict: r.predicate.verdict,
        trust_mode: r.predicate.trust_mode,
        signed_by: r.signedBy.map((s) => ({ role: s.role, key_id: s.keyId })),
      };
    } catch (e) {
      if (!(e instanceof GovernedError)) throw e;
      return { file, valid: false, error: { code: e.code, exit: e.exit, ids: [...e.ids] } };
    }
  });
  const exits = receipts.flatMap((r) => (r.error ? [r.error.exit as ExitCode] : []));
  return {
    exit: exits.length === 0 ? EXIT.ok : highestPrecedence(exits),
    trust_digest: trust.digest,
    evaluated_at: at,
    receipts,
  };
}

/** `governed verify --vsa FILE`: one signed decision (docs/gate.md §3 "Verifying a signed decision"). */
export function verifyVsaFile(file: string, trust: TrustRoot, now: Date, subject?: string): Record<string, unknown> & { exit: ExitCode } {
  const at = isoSecondsOf(now);
  try {
    const v = verifyVsaBytes(readInputFile(file, MAX_VSA_FILE_BYTES), trust, { at, subject });
    const facts = v.predicate[VSA_EXTENSION_KEY];
    return {
      exit: EXIT.ok,
      kind: 'vsa',
      file,
      valid: true,
      trust_digest: trust.digest,
      evaluated_at: at,
      payload_digest: v.payloadDigest,
      verification_result: v.predicate.verificationResult,
      verified_levels: v.predicate.verifiedLevels,
      verifier_id: v.predicate.verifier.id,
      resource_uri: v.predicate.resourceUri,
      unit: facts.unit,
      state: facts.state,
      reasons: facts.reasons,
      subject: { commit: v.subject.commit, manifest_digest: v.subject.manifestDigest },
      policy_digest: facts.policy_digest,
      signed_by: v.signedBy.map((s) => ({ role: s.role, key_id: s.keyId })),
    };
  } catch (e) {
    if (!(e instanceof GovernedError)) throw e;
    return { exit: e.exit, kind: 'vsa', file, valid: false, trust_digest: trust.digest, evaluated_at: at, error: { code: e.code, exit: e.exit, ids: e.ids } };
  }
}

/** `governed verify --checkpoint FILE`: one signed log checkpoint (its signature and statement only). */
export function verifyCheckpointFile(file: string, trust: TrustRoot, now: Date): Record<string, unknown> & { exit: ExitCode } {
  const at = isoSecondsOf(now);
  try {
    const v = verifyCheckpointBytes(readInputFile(file, MAX_RECEIPT_BYTES), trust, { at });
    return {
      exit: EXIT.ok,
      kind: 'checkpoint',
      file,
      valid: true,
      trust_digest: trust.digest,
      evaluated_at: at,
      payload_digest: v.payloadDigest,
      log_entries: v.predicate.log_entries,
      log_head: v.predicate.log_head,
      made_at: v.predicate.made_at,
      signed_by: v.signedBy.map((s) => ({ role: s.role, key_id: s.keyId })),
    };
  } catch (e) {
    if (!(e instanceof GovernedError)) throw e;
    return { exit: e.exit, kind: 'checkpoint', file, valid: false, trust_digest: trust.digest, evaluated_at: at, error: { code: e.code, exit: e.exit, ids: e.ids } };
  }
}

/** A VSA envelope is at most its payload bound (src/core/vsa.ts) in base64 plus the frame. */
export const MAX_VSA_FILE_BYTES = 4 * 1024 * 1024;
