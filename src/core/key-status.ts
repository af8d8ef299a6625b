// When a trusted key counts (docs/policy.md#policy-and-trust-root). Zod-free, shared by src/core/trust-root.ts users and the
// lean gate path.
import type { PublicKey } from './ed25519.js';
import { fail } from './errors.js';
import type { KeyRole, TrustedKey, TrustRoot } from './trust-root.js';

export type KeyStatus = 'ok' | 'revoked' | 'outside_validity';

/**
 * Status of a key at `at`. A key with any `revoked_at` at or before `at` is revoked. Offline
 * (no log position) callers pass `offline: true`: then any revocation counts, because without a
 * trusted signing time a record cannot prove it predates the revocation (fail closed).
 */
export function keyStatusAt(key: TrustedKey, at: string, offline: boolean): KeyStatus {
  if (key.revokedAt !== undefined && (offline || key.revokedAt <= at)) return 'revoked';
  if (at < key.notBefore || !(at < key.notAfter)) return 'outside_validity';
  return 'ok';
}

/**
 * The public key a credential signs with, as `trust` holds it for `role` and valid at `at` (not
 * revoked by then): what a signer's returned signature must verify under (docs/formats.md#attestors: the signed
 * decision's `gate` key, the checkpoint's `log` key). Exit 6 otherwise, naming the key id.
 */
export function trustedKeyFor(trust: TrustRoot, keyId: string, role: KeyRole, at: string): PublicKey {
  const key = trust.keys.get(keyId);
  if (key === undefined) fail('key_unknown', [keyId]);
  if (!key.roles.has(role)) fail('key_wrong_role', [keyId]);
  const status = keyStatusAt(key, at, false);
  if (status === 'revoked') fail('key_revoked', [keyId]);
  if (status === 'outside_validity') fail('key_outside_validity', [keyId]);
  return key.publicKey;
}
