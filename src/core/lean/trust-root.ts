// The trust root (SPEC §13) loaded without zod, for the lean gate path. Same acceptance rule as
// src/core/trust-root.ts `loadTrustRoot` (closed schema, every key an acceptable Ed25519 SPKI whose
// id is the sha256 of its DER, unique ids, unique roles per key, not_before < not_after) and the
// same result type; test/gate-lean-schemas.test.ts runs both over the same valid and mutated
// documents. Pure.
import { digestOf } from '../canonical.js';
import { fail } from '../errors.js';
import { publicKeyFromPem, type PublicKey } from '../ed25519.js';
import type { KeyRole, TrustedKey, TrustRoot } from '../trust-root.js';
import { arr, lit, obj, oneOf, opt, str, type Check } from './shape.js';

export const KEY_ROLES_LEAN: readonly KeyRole[] = ['reviewer', 'runner', 'probe', 'gate', 'log', 'authority'];
export const HEX64 = /^[0-9a-f]{64}$/;
export const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

const isoSeconds = str({ re: ISO_SECONDS });

export const trustRootShape: Check = obj({
  version: lit(1),
  expires: isoSeconds,
  keys: arr(
    obj({
      key_id: str({ re: HEX64 }),
      public_key: str({ min: 1, max: 1024 }),
      roles: arr(oneOf(KEY_ROLES_LEAN), 1, KEY_ROLES_LEAN.length),
      not_before: isoSeconds,
      not_after: isoSeconds,
      revoked_at: opt(isoSeconds),
      reason: opt(str({ max: 200 })),
    }),
    1,
    256,
  ),
});

interface TrustKeyDoc {
  key_id: string;
  public_key: string;
  roles: KeyRole[];
  not_before: string;
  not_after: string;
  revoked_at?: string;
}

export function loadTrustRootLean(value: unknown): TrustRoot {
  const bad = trustRootShape(value, '$');
  if (bad !== null) fail('trust_root_invalid', [bad]);
  const doc = value as { expires: string; keys: TrustKeyDoc[] };
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
  return { digest: digestOf(value), expires: doc.expires, keys };
}

/** ISO seconds (UTC, `YYYY-MM-DDTHH:MM:SSZ`) of whole seconds since the epoch. */
export function isoOfSeconds(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
