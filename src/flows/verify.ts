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
import { parseEnvelopeBytes } from '../core/dsse.js';
import { PROBE_ROLES, probeContractMismatches, receiptKindOfSigners, verifyProbeReceiptBytes } from '../core/preservation/verify-probe.js';
import { parsePreservationBytes, preservationDigest } from '../core/preservation/text.js';
import type { PreservationContract } from '../core/preservation/schema.js';

/** Defined once in zod/mini (src/core/command-output.ts verifySchema); type imports only. */
export type { ReceiptVerdict } from '../core/command-output.js';
import type { ReceiptVerdict, VerifyJson } from '../core/command-output.js';

/** The report `governed verify --json` prints, before the command adds `ok` (and `inclusion`). */
export type VerifyReport = Omit<VerifyJson, 'ok' | 'inclusion'>;

import { PIN_DOCUMENT_MAX_BYTES, PRESERVATION_CONTRACT_MAX_BYTES, RECEIPT_FILE_MAX_BYTES as MAX_RECEIPT_BYTES, VSA_FILE_MAX_BYTES } from '../core/limits.js';

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
 * `--policy FILE`: the receipt signing keys it names (docs/gate.md#4-what-is-re-verified-and-against-what). With them, every receipt's
 * reviewer signature must be by the policy's reviewer key and its runner signature by its runner
 * key, each holding that role in the trust root (`signature_not_credential_key`, 6); a probe
 * receipt's one signature must be by its probe key (`credentials.probe`), and its adapter on the
 * policy's `preservation_adapters` allowlist (docs/preservation.md#verifying-a-probe-receipt-offline).
 */
export interface PolicyReceiptKeys {
  readonly credentials: CredentialKeys;
  /** The policy's adapter allowlist (empty: the policy names none, so no probe receipt passes). */
  readonly adapters: readonly string[];
}

export function loadPolicyCredentialKeys(path: string): PolicyReceiptKeys {
  const doc = loadPolicy(readStructuredFile(path, 1024 * 1024).value).doc;
  const credentials: CredentialKeys = { ...receiptCredentialKeys(doc.credentials), ...(doc.credentials.probe ? { probe: doc.credentials.probe.key_id } : {}) };
  return { credentials, adapters: doc.preservation_adapters?.sha256 ?? [] };
}

/** `--contract FILE`: the preservation contract probe receipts must be bound to (docs/preservation.md#verifying-a-probe-receipt-offline). */
export function loadPreservationContractFile(path: string): { contract: PreservationContract; digest: string } {
  const contract = parsePreservationBytes(readInputFile(path, PRESERVATION_CONTRACT_MAX_BYTES));
  return { contract, digest: preservationDigest(contract) };
}

export interface VerifyReceiptOptions {
  readonly policy?: PolicyReceiptKeys;
  /** Every file must be a probe receipt bound to this contract. */
  readonly contract?: { readonly contract: PreservationContract; readonly digest: string };
}

/** The key ids an envelope claims (unauthenticated; routing only), or [] when it is not an envelope (its verifier then refuses it). */
function claimedKeyIds(bytes: Uint8Array): string[] {
  try {
    return parseEnvelopeBytes(bytes).signatures.map((s) => s.keyid);
  } catch {
    return [];
  }
}

function verifyOneFile(file: string, trust: TrustRoot, at: string, opts: VerifyReceiptOptions): ReceiptVerdict {
  const bytes = readInputFile(file, MAX_RECEIPT_BYTES);
  const kind = receiptKindOfSigners(claimedKeyIds(bytes), trust);
  if (kind === 'review') {
    // --contract binds probe receipts only: a review receipt there is the wrong kind (its signatures still checked first).
    const r = verifyReceiptBytes(bytes, trust, { at, offline: true });
    if (opts.policy !== undefined) assertSignedByCredentials(r.signedBy.map((x) => x.keyId), trust, RECEIPT_ROLES, opts.policy.credentials);
    if (opts.contract !== undefined) fail('receipt_kind_mismatch', [r.id]);
    return {
      file,
      valid: true,
      kind: 'review',
      receipt_id: r.id,
      unit: r.predicate.unit,
      stage: r.predicate.stage,
      slot: r.predicate.slot,
      verdict: r.predicate.verdict,
      trust_mode: r.predicate.trust_mode,
      signed_by: r.signedBy.map((s) => ({ role: s.role, key_id: s.keyId })),
    };
  }
  const v = verifyProbeReceiptBytes(bytes, trust, { at, offline: true });
  if (opts.policy !== undefined) {
    assertSignedByCredentials(v.signedBy.map((x) => x.keyId), trust, PROBE_ROLES, opts.policy.credentials);
    if (!opts.policy.adapters.includes(v.predicate.adapter_sha256)) fail('probe_adapter_not_allowlisted', [v.id]);
  }
  if (opts.contract !== undefined) {
    const unbound = probeContractMismatches(v.predicate, opts.contract.contract);
    if (unbound.length > 0) fail('probe_contract_mismatch', [v.id, ...unbound]);
  }
  return {
    file,
    valid: true,
    kind: 'probe',
    receipt_id: v.id,
    unit: v.predicate.unit,
    phase: v.predicate.phase,
    snapshot_digest: v.predicate.snapshot_digest,
    adapter_sha256: v.predicate.adapter_sha256,
    surfaces: v.predicate.results.map((r) => r.surface),
    ...(opts.contract !== undefined ? { contract_digest: opts.contract.digest } : {}),
    signed_by: v.signedBy.map((s) => ({ role: s.role, key_id: s.keyId })),
  };
}

/**
 * Verify receipt files offline: each is a review receipt or a preservation probe receipt, told apart
 * by the roles its signer keys hold in the trust root (docs/preservation.md#verifying-a-probe-receipt-offline).
 */
export function verifyReceiptFiles(files: readonly string[], trust: TrustRoot, now: Date, opts: VerifyReceiptOptions = {}): VerifyReport {
  const at = isoSecondsOf(now);
  const receipts: ReceiptVerdict[] = files.map((file) => {
    try {
      return verifyOneFile(file, trust, at, opts);
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

/** `governed verify --vsa FILE`: one signed decision (docs/gate.md#3-the-signed-decision---attest-file "Verifying a signed decision"). */
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

/** A VSA envelope is at most its payload bound (src/core/limits.ts) in base64 plus the frame. */
export const MAX_VSA_FILE_BYTES = VSA_FILE_MAX_BYTES;
