// The attestor protocol's one definition (docs/formats.md#attestors): config, request, response and
// the warm attestor's lines. Read through their compiled forms where the attestor and the cold
// paths check them (docs/architecture.md#compiled-formats).
import * as z from 'zod/mini';
import { str } from './schema-primitives.js';
import { DSSE_PAYLOAD_TYPE_MAX_CHARS } from './limits.js';
import { ATTESTOR_KINDS, ATTESTOR_REFUSALS, CREDENTIAL_RE, KEY_ID_RE, KEY_REF_RE, SIG_B64_RE, type AttestorKind } from './attestor-protocol.js';

export const attestorConfigSchema = z.strictObject({
  credential: str({ re: CREDENTIAL_RE }),
  kind: z.enum(Object.keys(ATTESTOR_KINDS) as [AttestorKind, ...AttestorKind[]]),
  key_id: str({ re: KEY_ID_RE }),
  key_ref: str({ re: KEY_REF_RE }), // absolute path of the PKCS#8 PEM file
});
export type AttestorConfig = z.infer<typeof attestorConfigSchema>;

export const attestorRequestSchema = z.strictObject({
  payloadType: str({ min: 1, max: DSSE_PAYLOAD_TYPE_MAX_CHARS }),
  payload: str({ min: 1 }),
});
export type AttestorRequest = z.infer<typeof attestorRequestSchema>;

export const attestorResponseSchema = z.strictObject({
  keyid: str({ re: KEY_ID_RE }),
  sig: str({ re: SIG_B64_RE }),
});

export const attestorReadySchema = z.strictObject({ ready: z.literal(true), keyid: str({ re: KEY_ID_RE }), self: str({ re: KEY_ID_RE }) });
export const attestorServeLineSchema = z.union([
  attestorResponseSchema,
  z.strictObject({ refused: z.enum(ATTESTOR_REFUSALS) }),
  z.strictObject({ failed: z.literal(true) }),
  attestorReadySchema,
]);
