// The pinned policy and trust root in force (SPEC §4.1 init, §13), read for a decision. The pinned
// bytes must still be the document whose digest was pinned (`pin_integrity_failed`, exit 4: the
// store was edited); the policy is then loaded with the lean loader (same rule as `loadPolicy`).
import { digestOf } from '../../core/canonical.js';
import { fail, isGovernedError } from '../../core/errors.js';
import type { Policy } from '../../core/policy.js';
import type { Db } from '../../store/store.js';
import { loadPolicyLean } from './lean/policy.js';
import { decodeUtf8, parseStructuredLean } from './lean/structured.js';

function pinRow(db: Db, kind: 'policy' | 'trust'): { digest: string; bytes: Buffer } {
  const row = db.prepare('SELECT digest, bytes FROM pins WHERE kind = ?').get(kind) as { digest: string; bytes: Buffer } | undefined;
  if (row === undefined) fail('store_missing', [kind]);
  return row;
}

/** The pinned policy, proved to be the pinned document, and validated. */
export async function readPinnedPolicy(db: Db): Promise<Policy> {
  const row = pinRow(db, 'policy');
  let value: unknown;
  try {
    value = await parseStructuredLean(decodeUtf8(row.bytes, 'policy'), '');
  } catch (e) {
    if (isGovernedError(e)) fail('pin_integrity_failed', ['policy']);
    throw e;
  }
  if (digestOf(value) !== row.digest) fail('pin_integrity_failed', ['policy']);
  return loadPolicyLean(value);
}

/**
 * The digest of the pinned trust root in force: what every counted receipt must be bound to
 * (SPEC §6.2). Its keys are not used by the gate (it verifies under the deploy side's `--trust`), so
 * the bytes are not parsed here; a row whose digest was edited only makes receipts stop counting.
 */
export function readPinnedTrustDigest(db: Db): string {
  return pinRow(db, 'trust').digest;
}

/** The pinned trust root's bytes (for `status`, which verifies under the pinned trust root). */
export function readPinnedTrustBytes(db: Db): { digest: string; bytes: Buffer } {
  return pinRow(db, 'trust');
}
