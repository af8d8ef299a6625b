// The tlog-checkpoint attestor's protocol (docs/audit.md "Checkpoints"): the `log` credential's
// signer of C2SP checkpoints, attestors/src/tlog-note.ts. Not blind: it signs only the exact body
// of a checkpoint (src/core/signed-note.ts) whose origin is the one its pinned config names, with
// an Ed25519 signature over those bytes (the note format's, not DSSE's PAE). Pure.
//   config : { credential: "log", kind: "tlog-checkpoint", key_id, key_ref, origin }
//   stdin  : { payloadType: TLOG_CHECKPOINT_PAYLOAD_TYPE, payload: base64(body) }
//   stdout : { keyid, sig }    exit 0 signed, 3 refused ("refused:<code>"), else failed.
import * as z from 'zod/mini';
import { isKeyName } from './signed-note.js';
import { KEY_ID_RE, KEY_REF_RE } from './attestor-protocol.js';
import { str } from './schema-primitives.js';

export const TLOG_CHECKPOINT_KIND = 'tlog-checkpoint';
export const TLOG_CHECKPOINT_PAYLOAD_TYPE = 'application/vnd.c2sp.tlog-checkpoint';

/** The config: the attestor config's key fields (./attestor-protocol.ts, one rule each) and the log's origin. */
export const tlogAttestorConfigSchema = z.strictObject({
  credential: z.literal('log'),
  kind: z.literal(TLOG_CHECKPOINT_KIND),
  key_id: str({ re: KEY_ID_RE }),
  key_ref: str({ re: KEY_REF_RE }),
  // The origin is also the log's key name in the note's signature line.
  origin: z.string().check(z.refine(isKeyName, { message: 'origin' })),
});
export type TlogAttestorConfig = z.infer<typeof tlogAttestorConfigSchema>;

/** The config, or null when it is not exactly this shape. */
export function parseTlogAttestorConfig(v: unknown): TlogAttestorConfig | null {
  const r = tlogAttestorConfigSchema.safeParse(v);
  return r.success ? r.data : null;
}
