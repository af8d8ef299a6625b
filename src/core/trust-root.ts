// The trust root (docs/policy.md#policy-and-trust-root): which public keys count, for which roles, and when. Pure: callers
// pass the parsed value and the time at which a record is judged (its log position's time, or
// "now" offline).
import * as z from 'zod/mini';
import { fail } from './errors.js';
import type { PublicKey } from './ed25519.js';
import { trustRootFromDocument } from './trust-root-keys.js';
import { hex64, isoSeconds, list, str } from './schema-primitives.js';
import { TRUST_MAX_KEYS, TRUST_PUBLIC_KEY_MAX_CHARS, TRUST_REASON_MAX_CHARS } from './limits.js';

export const KEY_ROLES = ['reviewer', 'runner', 'probe', 'gate', 'log', 'authority'] as const;
export type KeyRole = (typeof KEY_ROLES)[number];

const trustKeySchema = z.strictObject({
  key_id: hex64,
  public_key: str({ min: 1, max: TRUST_PUBLIC_KEY_MAX_CHARS }),
  roles: list(z.enum(KEY_ROLES), 1, KEY_ROLES.length),
  not_before: isoSeconds,
  not_after: isoSeconds,
  revoked_at: z.optional(isoSeconds),
  reason: z.optional(str({ max: TRUST_REASON_MAX_CHARS })),
});

export const trustRootSchema = z.strictObject({
  version: z.literal(1),
  expires: isoSeconds,
  keys: list(trustKeySchema, 1, TRUST_MAX_KEYS),
});

export type TrustRootDocument = z.infer<typeof trustRootSchema>;

export interface TrustedKey {
  readonly keyId: string;
  readonly publicKey: PublicKey;
  readonly roles: ReadonlySet<KeyRole>;
  readonly notBefore: string;
  readonly notAfter: string;
  readonly revokedAt: string | undefined;
}

export interface TrustRoot {
  readonly digest: string;
  readonly expires: string;
  readonly keys: ReadonlyMap<string, TrustedKey>;
}

/**
 * Validate a parsed trust root: closed schema, every key an acceptable Ed25519 SPKI whose id is
 * the sha256 of its DER (so a key id can never point at another key), unique ids, unique roles
 * per key, not_before < not_after.
 */
export function loadTrustRoot(value: unknown): TrustRoot {
  const parsed = trustRootSchema.safeParse(value);
  if (!parsed.success) fail('trust_root_invalid', parsed.error.issues.slice(0, 4).map((i) => i.path.join('.') || '$'));
  return trustRootFromDocument(parsed.data);
}

/** ISO seconds string of a Date (UTC, whole seconds; docs/reviewers.md#reviewer-output "times in whole seconds"). */
export function isoSecondsOf(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** ISO seconds (UTC, `YYYY-MM-DDTHH:MM:SSZ`) of whole seconds since the epoch. */
export function isoOfSeconds(seconds: number): string {
  return isoSecondsOf(new Date(seconds * 1000));
}

/** docs/policy.md#policy-and-trust-root: the trust root itself must not have expired at `at`. */
export function assertTrustRootCurrent(trust: TrustRoot, at: string): void {
  if (!(at < trust.expires)) fail('trust_root_expired', []);
}

export { keyStatusAt, type KeyStatus } from './key-status.js';
