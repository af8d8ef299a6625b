// Standard containers for governed's DSSE envelopes (docs/formats.md "Standard containers"), so
// tools that know in-toto or Sigstore verify governed's records without governed. Pure.
//
// - `.intoto.jsonl`: the in-toto attestation bundle format — one DSSE envelope per line (here one
//   line: the envelope exactly as stored, in its JSON form).
// - Sigstore bundle v0.3 (`application/vnd.dev.sigstore.bundle.v0.3+json`), ONE PER SIGNATURE: a
//   bundle's DSSE envelope carries one signature, and its verification material is a public-key
//   hint (the key id of the trust root) — no certificate, no transparency-log entry, no timestamp.
//   A Sigstore verifier therefore needs the public key out of band (the trust root) and must be
//   told to require no log entry or timestamp (`@sigstore/verify`: thresholds 0): the bundle proves
//   that key signed those bytes, nothing about when, and nothing is logged publicly.
// zod-free on purpose: `gate --export` writes these on the gate's cold path (test/gate-cold-imports),
// from envelopes the gate has just re-verified.
import { fail } from './errors.js';
import { parseJsonStrict } from './strict-json.js';

/** The fields of a stored DSSE envelope (JSON form: payload and sig in base64). */
export interface EnvelopeJson {
  readonly payloadType: string;
  readonly payload: string;
  readonly signatures: readonly { readonly keyid: string; readonly sig: string }[];
}

function envelopeJsonOf(value: unknown): EnvelopeJson {
  const v = value as Partial<EnvelopeJson> | null;
  const ok =
    typeof v === 'object' && v !== null && typeof v.payloadType === 'string' && typeof v.payload === 'string' && Array.isArray(v.signatures) &&
    v.signatures.length > 0 && v.signatures.every((s) => typeof s?.keyid === 'string' && typeof s?.sig === 'string');
  if (!ok) fail('envelope_invalid', []);
  return v as EnvelopeJson;
}

export const SIGSTORE_BUNDLE_MEDIA_TYPE = 'application/vnd.dev.sigstore.bundle.v0.3+json';

export interface SigstoreBundleV03 {
  readonly mediaType: typeof SIGSTORE_BUNDLE_MEDIA_TYPE;
  readonly verificationMaterial: {
    readonly publicKey: { readonly hint: string };
    readonly tlogEntries: readonly never[];
    readonly timestampVerificationData: { readonly rfc3161Timestamps: readonly never[] };
  };
  readonly dsseEnvelope: {
    readonly payload: string;
    readonly payloadType: string;
    readonly signatures: readonly [{ readonly sig: string; readonly keyid: string }];
  };
}

/** One Sigstore bundle v0.3 per signature of the envelope (in signature order). */
export function sigstoreBundles(env: EnvelopeJson): SigstoreBundleV03[] {
  return env.signatures.map((s) => ({
    mediaType: SIGSTORE_BUNDLE_MEDIA_TYPE,
    verificationMaterial: { publicKey: { hint: s.keyid }, tlogEntries: [], timestampVerificationData: { rfc3161Timestamps: [] } },
    dsseEnvelope: { payload: env.payload, payloadType: env.payloadType, signatures: [{ sig: s.sig, keyid: s.keyid }] },
  }));
}

/** The `.intoto.jsonl` line of an envelope: its JSON on one line, then a newline. */
export function intotoJsonl(env: EnvelopeJson): string {
  return `${JSON.stringify({ payloadType: env.payloadType, payload: env.payload, signatures: env.signatures.map((s) => ({ keyid: s.keyid, sig: s.sig })) })}\n`;
}

/**
 * The standard containers of a stored envelope named `<base>.json`, by their path in a record:
 * `intoto/<base>.intoto.jsonl` and `sigstore/<base>.<i>.sigstore.json` (one per signature). Kept
 * out of the envelope's own directory, so `governed verify DIR/receipts/*` still names only
 * envelopes.
 */
export function containersOf(envelopeBytes: Uint8Array, base: string): Map<string, Buffer> {
  const env = envelopeJsonOf(parseJsonStrict(Buffer.from(envelopeBytes).toString('utf8')));
  const out = new Map<string, Buffer>();
  out.set(`intoto/${base}.intoto.jsonl`, Buffer.from(intotoJsonl(env), 'utf8'));
  sigstoreBundles(env).forEach((b, i) => out.set(`sigstore/${base}.${i}.sigstore.json`, Buffer.from(`${JSON.stringify(b)}\n`, 'utf8')));
  return out;
}
