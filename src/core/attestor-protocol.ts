// The attestor protocol (docs/formats.md#attestors), shared by the host (runner/attestor-host.ts) and the
// attestor programs (attestors/src/*.ts, bundled self-contained). Its one definition is
// ./attestor-protocol-schema.ts, checked here through its compiled form (docs/architecture.md#compiled-formats). Pure.
//   config file : { credential, kind, key_id, key_ref }  (strict JSON, pinned by digest in the policy)
//   stdin       : { payloadType, payload (base64) }
//   stdout      : { keyid, sig (base64) }
//   exit        : 0 signed; 3 refused (stderr: "refused:<code>"); anything else failed.
import { ATTESTOR_REQUEST_MAX_BYTES } from './limits.js';
import { HEX64_RE, NAME_RE } from './ids.js';
import { ATTESTOR_CONFIG, ATTESTOR_REQUEST } from './format/compiled.js';
import { formatOf } from './format/node.js';
import type { AttestorConfig, AttestorRequest } from './attestor-protocol-schema.js';
export type { AttestorConfig, AttestorRequest } from './attestor-protocol-schema.js';

/** The kinds of statement an attestor may sign, each with its predicate type. */
export const ATTESTOR_KINDS = {
  'review-receipt': 'https://governed.dev/review-receipt/v1',
  // The gate's signed decision (docs/commands.md#what-each-command-guarantees `gate --attest`): a SLSA VSA v1 (src/core/vsa.ts).
  decision: 'https://slsa.dev/verification_summary/v1',
  // The log checkpoint (docs/commands.md#what-each-command-guarantees `audit checkpoint`, src/core/checkpoint.ts).
  checkpoint: 'https://governed.dev/log-checkpoint/v1',
  // A preservation probe receipt (src/core/preservation/probe.ts, docs/preservation.md#probes).
  probe: 'https://governed.dev/probe-receipt/v1',
} as const;
export type AttestorKind = keyof typeof ATTESTOR_KINDS;

export const CREDENTIAL_RE = NAME_RE;
export const KEY_ID_RE = HEX64_RE;
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
  // Probe receipts are signed by the probe credential only; its own digest is `predicate.attestor_sha256`.
  if (kind === 'probe' && credential === 'probe') return 'attestor_sha256';
  return null;
}

// The warm attestor of separated mode (`--serve`, docs/runnerd.md "Warm attestors"): one request
// line in (the object above), one line out. The first line out says the key loaded and which
// program bytes are running; the host compares `self` with the digest it pinned.
/** The largest request line a serving attestor accepts (as the one-shot stdin cap; src/core/limits.ts). */
export const SERVE_MAX_LINE = ATTESTOR_REQUEST_MAX_BYTES;

/** The config and request formats' compiled forms (docs/architecture.md#compiled-formats). */
export const ATTESTOR_CONFIG_FORMAT = /* @__PURE__ */ formatOf<AttestorConfig>(ATTESTOR_CONFIG);
export const ATTESTOR_REQUEST_FORMAT = /* @__PURE__ */ formatOf<AttestorRequest>(ATTESTOR_REQUEST);
