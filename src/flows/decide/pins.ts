// The pinned policy and trust root in force (docs/commands.md#what-each-command-guarantees init, docs/policy.md#policy-and-trust-root), read for a decision. The pinned
// bytes must still be the document whose digest was pinned (`pin_integrity_failed`, exit 4: the
// store was edited); the policy is then loaded by `loadPolicy`.
import { digestOf } from '../../core/canonical.js';
import { fail, isGovernedError } from '../../core/errors.js';
import type { Policy } from '../../core/policy.js';
import type { TrustRoot } from '../../core/trust-root.js';
import type { Db } from '../../store/store.js';
import { loadPolicy } from '../../core/policy.js';
import { loadTrustRoot } from '../../core/trust-root.js';
import { parseStructuredLazy } from '../../core/structured.js';
import { decodeUtf8 } from '../../core/utf8.js';

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
    value = await parseStructuredLazy(decodeUtf8(row.bytes, 'policy'), '');
  } catch (e) {
    if (isGovernedError(e)) fail('pin_integrity_failed', ['policy']);
    throw e;
  }
  if (digestOf(value) !== row.digest) fail('pin_integrity_failed', ['policy']);
  return loadPolicy(value);
}

/**
 * The digest of the pinned trust root in force: what every counted receipt must be bound to
 * (docs/contract.md#the-states-a-receipt-is-judged-against). Its keys are not used by the gate (it verifies under the deploy side's `--trust`), so
 * the bytes are not parsed here; a row whose digest was edited only makes receipts stop counting.
 */
export function readPinnedTrustDigest(db: Db): string {
  return pinRow(db, 'trust').digest;
}

/** The pinned trust root's bytes (for `status`, which verifies under the pinned trust root). */
export function readPinnedTrustBytes(db: Db): { digest: string; bytes: Buffer } {
  return pinRow(db, 'trust');
}

async function trustRootOfPinned(bytes: Buffer, digest: string): Promise<TrustRoot> {
  let value: unknown;
  try {
    value = await parseStructuredLazy(decodeUtf8(bytes, 'trust'), '');
  } catch (e) {
    if (isGovernedError(e)) fail('pin_integrity_failed', ['trust']);
    throw e;
  }
  if (digestOf(value) !== digest) fail('pin_integrity_failed', ['trust']);
  return loadTrustRoot(value);
}

/**
 * Every trust root the store has had in force — the init pin, then each `trust_update` from its log
 * position on (docs/state.md#the-store, docs/policy.md#policy-and-trust-root) — as a function of a log position: the trust root a record at that
 * position is judged under. Each document must still be the one whose digest was pinned.
 */
export async function trustRootsByPosition(db: Db): Promise<(seq: number) => TrustRoot> {
  const init = db.prepare("SELECT payload FROM log WHERE seq = 1 AND type = 'store_init'").pluck().get() as Buffer | undefined;
  if (init === undefined) fail('store_missing', ['trust']);
  let pinned: { digest: string; bytes_b64: string };
  try {
    pinned = (JSON.parse(init.toString('utf8')) as { trust: { digest: string; bytes_b64: string } }).trust;
  } catch {
    return fail('pin_integrity_failed', ['trust']);
  }
  if (typeof pinned?.digest !== 'string' || typeof pinned.bytes_b64 !== 'string') fail('pin_integrity_failed', ['trust']);
  const versions: { since: number; trust: TrustRoot }[] = [{ since: 1, trust: await trustRootOfPinned(Buffer.from(pinned.bytes_b64, 'base64'), pinned.digest) }];
  const updates = db.prepare("SELECT seq, digest, bytes FROM pin_updates WHERE kind = 'trust' ORDER BY seq").all() as { seq: number; digest: string; bytes: Buffer }[];
  for (const u of updates) versions.push({ since: u.seq, trust: await trustRootOfPinned(u.bytes, u.digest) });
  return (seq) => {
    let found = versions[0] as { since: number; trust: TrustRoot };
    for (const v of versions) if (v.since <= seq) found = v;
    return found.trust;
  };
}
