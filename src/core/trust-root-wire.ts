// A validated trust root handed to a worker thread (src/flows/audit/receipt-worker.ts): a
// KeyObject cannot cross a thread, so each key travels as its raw 32 bytes and is imported again
// there with the same acceptance checks (`publicKeyFromRaw`). Nothing is re-judged: the root was
// validated where it was loaded; the worker holds the same keys, roles and validity windows. Pure.
import { publicKeyFromRaw } from './ed25519.js';
import type { KeyRole, TrustRoot, TrustedKey } from './trust-root.js';

export interface TrustRootWire {
  readonly digest: string;
  readonly expires: string;
  readonly keys: readonly { keyId: string; raw: Uint8Array; roles: KeyRole[]; notBefore: string; notAfter: string; revokedAt: string | undefined }[];
}

export function trustRootToWire(t: TrustRoot): TrustRootWire {
  return {
    digest: t.digest,
    expires: t.expires,
    keys: [...t.keys.values()].map((k) => ({ keyId: k.keyId, raw: k.publicKey.raw, roles: [...k.roles], notBefore: k.notBefore, notAfter: k.notAfter, revokedAt: k.revokedAt })),
  };
}

export function trustRootFromWire(w: TrustRootWire): TrustRoot {
  const keys = new Map<string, TrustedKey>();
  for (const k of w.keys) {
    const publicKey = publicKeyFromRaw(k.raw);
    keys.set(k.keyId, { keyId: k.keyId, publicKey, roles: new Set(k.roles), notBefore: k.notBefore, notAfter: k.notAfter, revokedAt: k.revokedAt });
  }
  return { digest: w.digest, expires: w.expires, keys };
}
