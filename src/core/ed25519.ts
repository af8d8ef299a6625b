// Ed25519 public keys and verification with node:crypto (OpenSSL) only — one verifier means one
// acceptance rule (docs/formats.md#receipt; docs/security.md#receipt-verification--governed-verify: noble's ZIP-215 default and OpenSSL's RFC 8032
// cofactorless check disagree on crafted inputs). Our acceptance rule, declared and vector-tested
// (test/ed25519.test.ts):
//   - public key: SPKI DER of id-Ed25519 (1.3.101.112) with a 32-byte key, y < p (canonical), not
//     one of the 8 small-order points, sign bit clear when x = 0;
//   - signature: 64 bytes, S < L (canonical scalar; checked here, not left to the library);
//   - then OpenSSL's RFC 8032 verification over the exact message bytes.
import { createHash, createPublicKey, verify as nodeVerify, type KeyObject } from 'node:crypto';
import { fail } from './errors.js';

/** DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410 §4): SEQ{SEQ{OID 1.3.101.112}, BITSTRING}. */
export const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
/** A PKCS#8 PEM private-key file's one block; group 1 is its base64 body. */
export const PKCS8_PEM_RE = /^-----BEGIN PRIVATE KEY-----\r?\n([A-Za-z0-9+/=\r\n]+?)\r?\n?-----END PRIVATE KEY-----\s*$/;
/** DER prefix of an Ed25519 PKCS#8 PrivateKeyInfo (RFC 8410 §7) before the 32-byte seed. */
export const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

// The canonical encodings of the 8 small-order points of edwards25519 (libsodium's blocklist
// without the non-canonical forms, which the y < p check already refuses).
const SMALL_ORDER = new Set(
  [
    '0100000000000000000000000000000000000000000000000000000000000000', // identity, order 1
    'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // (0,-1), order 2
    '0000000000000000000000000000000000000000000000000000000000000000', // order 4
    '0000000000000000000000000000000000000000000000000000000000000080', // order 4
    'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a', // order 8
    'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa', // order 8
    '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05', // order 8
    '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85', // order 8
  ],
);

const P = (1n << 255n) - 19n;
const L = (1n << 252n) + 27742317777372353535851937790883648493n;

function littleEndianToBigInt(bytes: Uint8Array): bigint {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i] as number);
  return n;
}

/** Refuse small-order and non-canonical encodings of a raw 32-byte Ed25519 public key. */
export function assertAcceptablePublicKey(raw: Uint8Array): void {
  if (raw.length !== 32) fail('key_invalid', ['length']);
  const hex = Buffer.from(raw).toString('hex');
  if (SMALL_ORDER.has(hex)) fail('key_invalid', ['small_order']);
  const y = littleEndianToBigInt(raw) & ((1n << 255n) - 1n);
  if (y >= P) fail('key_invalid', ['non_canonical']);
  // y = ±1 ⇒ x = 0; a set sign bit with x = 0 is a non-canonical encoding (RFC 8032 §5.1.3 step 4).
  if ((raw[31] as number) & 0x80 && (y === 1n || y === P - 1n)) fail('key_invalid', ['non_canonical']);
}

/** Key id = lowercase hex SHA-256 of the DER SubjectPublicKeyInfo (docs/formats.md#receipt). */
export function keyIdOfRaw(raw: Uint8Array): string {
  return createHash('sha256').update(Buffer.concat([ED25519_SPKI_PREFIX, raw])).digest('hex');
}

export interface PublicKey {
  readonly keyId: string;
  readonly raw: Buffer;
  readonly keyObject: KeyObject;
}

/** Import a raw 32-byte public key after the acceptance checks; the KeyObject is made once. */
export function publicKeyFromRaw(raw: Uint8Array): PublicKey {
  assertAcceptablePublicKey(raw);
  const der = Buffer.concat([ED25519_SPKI_PREFIX, raw]);
  let keyObject: KeyObject;
  try {
    keyObject = createPublicKey({ key: der, format: 'der', type: 'spki' });
  } catch {
    fail('key_invalid', ['spki']);
  }
  return { keyId: keyIdOfRaw(raw), raw: Buffer.from(raw), keyObject };
}

/** Import an SPKI PEM; anything but a 44-byte Ed25519 SPKI is refused (wrong type or length). */
export function publicKeyFromPem(pem: string): PublicKey {
  const m = /^-----BEGIN PUBLIC KEY-----\r?\n([A-Za-z0-9+/=\r\n]+?)\r?\n?-----END PUBLIC KEY-----\s*$/.exec(pem.trim() + '\n');
  if (!m || m[1] === undefined) fail('key_invalid', ['pem']);
  const der = Buffer.from(m[1].replace(/\s+/g, ''), 'base64');
  return publicKeyFromSpkiDer(der);
}

export function publicKeyFromSpkiDer(der: Uint8Array): PublicKey {
  if (der.length !== 44 || !Buffer.from(der.subarray(0, 12)).equals(ED25519_SPKI_PREFIX)) fail('key_invalid', ['spki']);
  return publicKeyFromRaw(der.subarray(12));
}

export function publicKeyToPem(raw: Uint8Array): string {
  const b64 = Buffer.concat([ED25519_SPKI_PREFIX, raw]).toString('base64');
  return `-----BEGIN PUBLIC KEY-----\n${b64}\n-----END PUBLIC KEY-----\n`;
}

// L as 32 little-endian bytes, for a constant-shape byte comparison on the hot verify path.
const L_BYTES = (() => {
  const out = new Uint8Array(32);
  let n = L;
  for (let i = 0; i < 32; i++) {
    out[i] = Number(n & 0xffn);
    n >>= 8n;
  }
  return out;
})();

/** True iff the 64-byte signature has a canonical S (< L; RFC 8032 §5.1.7 step 1). */
export function hasCanonicalScalar(sig: Uint8Array): boolean {
  if (sig.length !== 64) return false;
  for (let i = 31; i >= 0; i--) {
    const s = sig[32 + i] as number;
    const l = L_BYTES[i] as number;
    if (s < l) return true;
    if (s > l) return false;
  }
  return false; // S == L
}

/** Verify a pure Ed25519 signature with OpenSSL. Returns false rather than throwing. */
export function verifyEd25519(key: PublicKey, message: Uint8Array, sig: Uint8Array): boolean {
  if (!hasCanonicalScalar(sig)) return false;
  try {
    return nodeVerify(null, message, key.keyObject, sig);
  } catch {
    return false;
  }
}
