// The trust root (docs/policy.md#policy-and-trust-root): which public keys count, for which roles, and when. Pure: callers
// pass the parsed value and the time at which a record is judged (its log position's time, or
// "now" offline).
import { fail } from './errors.js';
import type { PublicKey } from './ed25519.js';
import { trustRootFromDocument } from './trust-root-keys.js';
import { checkFormat } from './format/interpret.js';
import { TRUST_ROOT } from './format/compiled.js';
import { formatOf } from './format/node.js';
import type { TrustRootDocument } from './trust-root-schema.js';
export type { TrustRootDocument } from './trust-root-schema.js';

export const KEY_ROLES = ['reviewer', 'runner', 'probe', 'gate', 'log', 'authority'] as const;
export type KeyRole = (typeof KEY_ROLES)[number];

/** The trust root's compiled form; its one definition is ./trust-root-schema.ts (docs/architecture.md#compiled-formats). */
const TRUST_ROOT_FORMAT = /* @__PURE__ */ formatOf<TrustRootDocument>(TRUST_ROOT);


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
  const parsed = checkFormat(TRUST_ROOT_FORMAT, value);
  if (!parsed.success) fail('trust_root_invalid', parsed.paths);
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
