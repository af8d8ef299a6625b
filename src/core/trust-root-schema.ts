// The trust root's one definition (docs/policy.md#policy-and-trust-root). Read at run time through
// its compiled form (./trust-root.ts, docs/architecture.md#compiled-formats).
import * as z from 'zod/mini';
import { hex64, isoSeconds, list, str } from './schema-primitives.js';
import { TRUST_MAX_KEYS, TRUST_PUBLIC_KEY_MAX_CHARS, TRUST_REASON_MAX_CHARS } from './limits.js';
import { KEY_ROLES } from './trust-root.js';

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
