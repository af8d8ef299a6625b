// Pinning the policy and trust root at init (docs/commands.md#what-each-command-guarantees `init`, docs/policy.md#policy-and-trust-root): their canonical digests and
// their exact bytes, as the first log entry.
//
// The digest of a policy or trust root is the docs/threat-model.md#rules-that-hold-everywhere digest of structured data: SHA-256 over the
// RFC 8785 bytes of the strictly parsed document (so YAML formatting does not change it, and
// `gate --policy-digest` compares meaning, not whitespace). Schema validation of the policy and
// trust root belongs to their own modules and is the caller's job before pinning.
import { fail } from '../core/errors.js';
import { parsePinDocument } from '../core/pin-document.js';
import { mutate } from './log.js';
import { openStore } from './open.js';
import { dbOf, type Db, type Store } from './store.js';

export type PinKind = 'policy' | 'trust';

export interface Pin {
  readonly digest: string;
  readonly bytes: Buffer;
  readonly pinnedAt: number;
}

/** Canonical digest of a policy or trust-root document (strict JSON or YAML, auto-detected). */
export function pinDigestOf(bytes: Uint8Array, kind: PinKind): string {
  return parsePinDocument(bytes, kind).digest;
}

export interface PinInitArgs {
  readonly policyBytes: Uint8Array;
  readonly trustBytes: Uint8Array;
  readonly now: number;
}

/** Record the init pin; refused (`store_already_initialized`) once the log has any entry. */
export function pinInit(store: Store, args: PinInitArgs): { policyDigest: string; trustDigest: string } {
  const policyDigest = pinDigestOf(args.policyBytes, 'policy');
  const trustDigest = pinDigestOf(args.trustBytes, 'trust');
  mutate(store, args.now, (tx) => {
    const any = tx.db.prepare('SELECT 1 FROM log LIMIT 1').get();
    if (any !== undefined) fail('store_already_initialized');
    tx.append('store_init', null, {
      policy: { digest: policyDigest, bytes_b64: Buffer.from(args.policyBytes).toString('base64') },
      trust: { digest: trustDigest, bytes_b64: Buffer.from(args.trustBytes).toString('base64') },
      pinned_at: args.now,
    });
  });
  return { policyDigest, trustDigest };
}

/**
 * `governed init` at store level: create the state directory (0700), the database and bundles/,
 * then pin policy and trust root in one logged transaction. Re-init is refused and leaves the store
 * exactly as it was. Returns the open store.
 */
export function initStore(homeDir: string, args: PinInitArgs): Store {
  // Refuse unparseable inputs before anything is created on disk.
  pinDigestOf(args.policyBytes, 'policy');
  pinDigestOf(args.trustBytes, 'trust');
  const store = openStore(homeDir, { create: true });
  try {
    pinInit(store, args);
    return store;
  } catch (e) {
    store.db.close();
    throw e;
  }
}

/** The pinned policy or trust root in force now. */
export function readPin(x: Store | Db, kind: PinKind): Pin {
  const row = dbOf(x).prepare('SELECT digest, bytes, pinned_at FROM pins WHERE kind = ?').get(kind) as
    | { digest: string; bytes: Buffer; pinned_at: number }
    | undefined;
  if (row === undefined) fail('store_missing', [kind]);
  return { digest: row.digest, bytes: row.bytes, pinnedAt: row.pinned_at };
}
