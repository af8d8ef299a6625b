// When a trusted key counts (SPEC §13). Zod-free, shared by src/core/trust-root.ts users and the
// lean gate path.
import type { TrustedKey } from './trust-root.js';

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
