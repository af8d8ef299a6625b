// The tlog-checkpoint attestor's protocol (docs/audit.md "Checkpoints"): the `log` credential's
// signer of C2SP checkpoints, attestors/src/tlog-note.ts. Not blind: it signs only the exact body
// of a checkpoint (src/core/signed-note.ts) whose origin is the one its pinned config names, with
// an Ed25519 signature over those bytes (the note format's, not DSSE's PAE). Pure.
//   config : { credential: "log", kind: "tlog-checkpoint", key_id, key_ref, origin }
//   stdin  : { payloadType: TLOG_CHECKPOINT_PAYLOAD_TYPE, payload: base64(body) }
//   stdout : { keyid, sig }    exit 0 signed, 3 refused ("refused:<code>"), else failed.
import { isKeyName } from './signed-note.js';
import { HEX64_RE } from './ids.js';

export const TLOG_CHECKPOINT_KIND = 'tlog-checkpoint';
export const TLOG_CHECKPOINT_PAYLOAD_TYPE = 'application/vnd.c2sp.tlog-checkpoint';

export interface TlogAttestorConfig {
  readonly credential: 'log';
  readonly kind: typeof TLOG_CHECKPOINT_KIND;
  readonly key_id: string;
  readonly key_ref: string;
  readonly origin: string;
}

/** The config, or null when it is not exactly this shape. */
export function parseTlogAttestorConfig(v: unknown): TlogAttestorConfig | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).sort().join(',');
  if (keys !== 'credential,key_id,key_ref,kind,origin') return null;
  if (o.credential !== 'log' || o.kind !== TLOG_CHECKPOINT_KIND) return null;
  if (typeof o.key_id !== 'string' || !HEX64_RE.test(o.key_id)) return null;
  if (typeof o.key_ref !== 'string' || !/^\/[^\0]{1,4095}$/.test(o.key_ref)) return null;
  // The origin is also the log's key name in the note's signature line.
  if (typeof o.origin !== 'string' || !isKeyName(o.origin)) return null;
  return o as unknown as TlogAttestorConfig;
}
