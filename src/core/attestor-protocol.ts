// The attestor protocol (docs/formats.md#attestors), shared by the host (runner/attestor-host.ts) and the
// attestor programs (attestors/src/*.ts, bundled self-contained). Pure.
//   config file : { credential, kind, key_id, key_ref }  (strict JSON, pinned by digest in the policy)
//   stdin       : { payloadType, payload (base64) }
//   stdout      : { keyid, sig (base64) }
//   exit        : 0 signed; 3 refused (stderr: "refused:<code>"); anything else failed.
// Vocabulary and zod-free twins of these schemas: ./lean/attestor-protocol.ts.
import * as z from 'zod';
import { ATTESTOR_KINDS, CREDENTIAL_RE, KEY_ID_RE, KEY_REF_RE, SIG_B64_RE, type AttestorKind } from './lean/attestor-protocol.js';

// The vocabulary lives in the zod-free module (shared with the attestor program); the zod schemas
// below stay the reference that test/lean-attestor.test.ts checks the lean shapes against.
export {
  ATTESTOR_EXIT_REFUSED,
  ATTESTOR_KINDS,
  ATTESTOR_REFUSALS,
  CREDENTIAL_RE,
  selfDigestField,
  type AttestorKind,
  type AttestorRefusal,
} from './lean/attestor-protocol.js';

export const attestorConfigSchema = z.strictObject({
  credential: z.string().regex(CREDENTIAL_RE),
  kind: z.enum(Object.keys(ATTESTOR_KINDS) as [AttestorKind, ...AttestorKind[]]),
  key_id: z.string().regex(KEY_ID_RE),
  key_ref: z.string().regex(KEY_REF_RE), // absolute path of the PKCS#8 PEM file
});
export type AttestorConfig = z.infer<typeof attestorConfigSchema>;

export const attestorRequestSchema = z.strictObject({
  payloadType: z.string().min(1).max(200),
  payload: z.string().min(1),
});

export const attestorResponseSchema = z.strictObject({
  keyid: z.string().regex(KEY_ID_RE),
  sig: z.string().regex(SIG_B64_RE),
});
