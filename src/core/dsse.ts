// DSSE v1 (docs/formats.md#receipt): the envelope and its Pre-Authentication Encoding.
// Signatures are over PAE(payloadType, payload), never over a re-serialisation (docs/formats.md#receipt).
import * as z from 'zod/mini';
import { list, str } from './schema-primitives.js';
import { decodeBase64Strict } from './base64.js';
import { fail } from './errors.js';
import { parseJsonStrict } from './strict-json.js';
import { HEX64_RE } from './ids.js';

export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';

export { pae } from './pae.js';

const signatureSchema = z.strictObject({
  keyid: str({ re: HEX64_RE }),
  sig: str({ min: 1 }),
});

// Closed objects: an extra field anywhere is refused (docs/threat-model.md#rules-that-hold-everywhere "Closed objects").
export const envelopeSchema = z.strictObject({
  payloadType: str({ min: 1 }),
  payload: z.string(),
  signatures: list(signatureSchema, 0, 16),
});

export type Envelope = z.infer<typeof envelopeSchema>;

export interface DecodedSignature {
  readonly keyid: string;
  readonly sig: Buffer;
}

export interface DecodedEnvelope {
  readonly payloadType: string;
  readonly payload: Buffer;
  readonly signatures: readonly DecodedSignature[];
}

/** Decode an envelope value (already parsed JSON) strictly: closed schema, canonical base64. */
export function decodeEnvelope(value: unknown): DecodedEnvelope {
  const parsed = envelopeSchema.safeParse(value);
  if (!parsed.success) fail('envelope_invalid', parsed.error.issues.slice(0, 4).map((i) => i.path.join('.') || '$'));
  const env = parsed.data;
  return {
    payloadType: env.payloadType,
    payload: decodeBase64Strict(env.payload, 'envelope_invalid', 'payload'),
    signatures: env.signatures.map((s, i) => ({
      keyid: s.keyid,
      sig: decodeBase64Strict(s.sig, 'envelope_invalid', `signatures.${i}.sig`),
    })),
  };
}

/** Parse envelope bytes with duplicate keys refused: with `{"payload":A,"payload":B}` two DSSE
 * readers could disagree on which payload was signed. Any parse failure is `envelope_invalid`. */
export function parseEnvelopeBytes(bytes: Uint8Array): DecodedEnvelope {
  let value: unknown;
  try {
    // Decoded in place (a copy of the bytes first would change nothing but the cost, bench/gate).
    value = parseJsonStrict(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch {
    fail('envelope_invalid', ['$']);
  }
  return decodeEnvelope(value);
}

export function encodeEnvelope(payloadType: string, payload: Uint8Array, signatures: readonly DecodedSignature[]): Envelope {
  return {
    payloadType,
    payload: Buffer.from(payload).toString('base64'),
    signatures: signatures.map((s) => ({ keyid: s.keyid, sig: s.sig.toString('base64') })),
  };
}
