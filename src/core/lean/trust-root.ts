// The trust root (docs/policy.md#policy-and-trust-root) loaded without zod, for the lean gate path. Same acceptance rule as
// src/core/trust-root.ts `loadTrustRoot` (closed schema, every key an acceptable Ed25519 SPKI whose
// id is the sha256 of its DER, unique ids, unique roles per key, not_before < not_after — those key
// rules are ONE shared function, ../trust-root-keys.ts) and the same result type; test/gate-lean-schemas.test.ts runs both over the same valid and mutated
// documents. Pure.
import { fail } from '../errors.js';
import type { KeyRole, TrustRoot } from '../trust-root.js';
import { trustRootFromDocument, type TrustRootDoc } from '../trust-root-keys.js';
import { arr, lit, obj, oneOf, opt, str, isoSeconds, type Check } from './shape.js';

export const KEY_ROLES_LEAN: readonly KeyRole[] = ['reviewer', 'runner', 'probe', 'gate', 'log', 'authority'];
export const HEX64 = /^[0-9a-f]{64}$/;

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

export function loadTrustRootLean(value: unknown): TrustRoot {
  const bad = trustRootShape(value, '$');
  if (bad !== null) fail('trust_root_invalid', [bad]);
  return trustRootFromDocument(value as TrustRootDoc);
}

/** ISO seconds (UTC, `YYYY-MM-DDTHH:MM:SSZ`) of whole seconds since the epoch. */
export function isoOfSeconds(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
