// DSSE v1 (docs/formats.md#receipt): the envelope and its Pre-Authentication Encoding.
// Signatures are over PAE(payloadType, payload), never over a re-serialisation (docs/formats.md#receipt).
import { decodeBase64Strict } from './base64.js';
import { fail } from './errors.js';
import { parseJsonStrict } from './strict-json.js';
import { checkFormat } from './format/interpret.js';
import { ENVELOPE } from './format/compiled.js';
import { formatOf } from './format/node.js';
import type { Envelope } from './dsse-schema.js';

export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';

export { pae } from './pae.js';

export type { Envelope };

/** The envelope's one definition is ./dsse-schema.ts; this is its compiled form (docs/architecture.md#compiled-formats). */
const ENVELOPE_FORMAT = /* @__PURE__ */ formatOf<Envelope>(ENVELOPE);

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
  const parsed = checkFormat(ENVELOPE_FORMAT, value);
  if (!parsed.success) fail('envelope_invalid', parsed.paths);
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
