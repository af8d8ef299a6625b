// The trust root's key rules and the TrustRoot value (docs/policy.md#policy-and-trust-root), applied by `loadTrustRoot`
// (src/core/trust-root.ts) after its closed schema. Every key must be an acceptable Ed25519 SPKI
// whose id is the sha256 of its DER (so a key id can never point at another key), ids unique,
// roles unique per key, not_before < not_after. Pure.
import { digestOf } from './canonical.js';
import { publicKeyFromPem, type PublicKey } from './ed25519.js';
import { fail } from './errors.js';
import type { KeyRole, TrustedKey, TrustRoot } from './trust-root.js';

/** A trust-root document that passed the closed schema. */
export interface TrustRootDoc {
  readonly expires: string;
  readonly keys: readonly {
    readonly key_id: string;
    readonly public_key: string;
    readonly roles: readonly KeyRole[];
    readonly not_before: string;
    readonly not_after: string;
    readonly revoked_at?: string | undefined;
  }[];
}

export function trustRootFromDocument(doc: TrustRootDoc): TrustRoot {
  const keys = new Map<string, TrustedKey>();
  doc.keys.forEach((k, i) => {
    let publicKey: PublicKey;
    try {
      publicKey = publicKeyFromPem(k.public_key);
    } catch {
      fail('trust_root_invalid', [`keys.${i}.public_key`]);
    }
    if (publicKey.keyId !== k.key_id) fail('trust_root_invalid', [`keys.${i}.key_id`]);
    if (keys.has(k.key_id)) fail('trust_root_invalid', [`keys.${i}.key_id`]);
    if (new Set(k.roles).size !== k.roles.length) fail('trust_root_invalid', [`keys.${i}.roles`]);
    if (!(k.not_before < k.not_after)) fail('trust_root_invalid', [`keys.${i}.not_after`]);
    keys.set(k.key_id, {
      keyId: k.key_id,
      publicKey,
      roles: new Set(k.roles),
      notBefore: k.not_before,
      notAfter: k.not_after,
      revokedAt: k.revoked_at,
    });
  });
  return { digest: digestOf(doc as never), expires: doc.expires, keys };
}
