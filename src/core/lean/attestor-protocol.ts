// The attestor protocol's vocabulary and its zod-free message checks (docs/formats.md#attestors). The attestor
// program (attestors/src/ed25519-file.ts, bundled self-contained) imports only this and the other
// lean checks, so it starts without building zod schemas (bench/runner: the two attestors ran in
// parallel with the reviewer and each cost about twice a bare `node -e ''` start, mostly zod).
// src/core/attestor-protocol.ts re-exports the vocabulary and keeps the zod schemas as the
// reference: test/lean-attestor.test.ts proves both accept exactly the same values. Pure.
//   config file : { credential, kind, key_id, key_ref }  (strict JSON, pinned by digest in the policy)
//   stdin       : { payloadType, payload (base64) }
//   stdout      : { keyid, sig (base64) }
//   exit        : 0 signed; 3 refused (stderr: "refused:<code>"); anything else failed.
import { obj, oneOf, str, type Check } from './shape.js';

/** The kinds of statement an attestor may sign, each with its predicate type. */
export const ATTESTOR_KINDS = {
  'review-receipt': 'https://governed.dev/review-receipt/v1',
  // The gate's signed decision (docs/commands.md#what-each-command-guarantees `gate --attest`): a SLSA VSA v1 (src/core/vsa.ts).
  decision: 'https://slsa.dev/verification_summary/v1',
  // The log checkpoint (docs/commands.md#what-each-command-guarantees `audit checkpoint`, src/core/checkpoint.ts).
  checkpoint: 'https://governed.dev/log-checkpoint/v1',
} as const;
export type AttestorKind = keyof typeof ATTESTOR_KINDS;

export const CREDENTIAL_RE = /^[a-z][a-z0-9_-]{0,31}$/;
export const KEY_ID_RE = /^[0-9a-f]{64}$/;
/** Absolute path of the PKCS#8 PEM file. */
export const KEY_REF_RE = /^\/[^\0]{1,4095}$/;
/** A raw 64-byte Ed25519 signature in canonical, padded base64. */
export const SIG_B64_RE = /^[A-Za-z0-9+/]{86}==$/;

export const ATTESTOR_EXIT_REFUSED = 3;

/** Refusal codes an attestor prints as `refused:<code>` (closed list; no values). */
export const ATTESTOR_REFUSALS = [
  'config_invalid',
  'key_file_exposed',
  'key_invalid',
  'key_id_mismatch',
  'request_invalid',
  'payload_type',
  'payload_not_canonical',
  'statement_invalid',
  'foreign_kind',
  'predicate_invalid',
  'self_digest_mismatch',
  'credential_role',
] as const;
export type AttestorRefusal = (typeof ATTESTOR_REFUSALS)[number];

/** Which predicate field carries this credential's own attestor sha256 (docs/formats.md#attestors "not blind"). */
export function selfDigestField(kind: AttestorKind, credential: string): string | null {
  if (kind === 'review-receipt') {
    if (credential === 'reviewer') return 'reviewer_sha256';
    if (credential === 'runner') return 'runner_sha256';
  }
  // Decisions are signed by the gate credential only (docs/formats.md#receipt: never by reviewer or runner keys);
  // its own digest is `predicate.governed.attestor_sha256`.
  if (kind === 'decision' && credential === 'gate') return 'attestor_sha256';
  // Checkpoints are signed by the log credential only; its own digest is `predicate.attestor_sha256`.
  if (kind === 'checkpoint' && credential === 'log') return 'attestor_sha256';
  return null;
}

export interface AttestorConfigLean {
  readonly credential: string;
  readonly kind: AttestorKind;
  readonly key_id: string;
  readonly key_ref: string;
}

/** `attestorConfigSchema` of src/core/attestor-protocol.ts. */
export const attestorConfigShape: Check = obj({
  credential: str({ re: CREDENTIAL_RE }),
  kind: oneOf(Object.keys(ATTESTOR_KINDS)),
  key_id: str({ re: KEY_ID_RE }),
  key_ref: str({ re: KEY_REF_RE }),
});

/** `attestorRequestSchema`. */
export const attestorRequestShape: Check = obj({
  payloadType: str({ min: 1, max: 200 }),
  payload: str({ min: 1 }),
});

/** `attestorResponseSchema`. */
export const attestorResponseShape: Check = obj({
  keyid: str({ re: KEY_ID_RE }),
  sig: str({ re: SIG_B64_RE }),
});
