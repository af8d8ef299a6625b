// Identifiers of the authority domain (docs/authority.md#human-authority-records). All of them have closed alphabets, so they are
// safe to show on a terminal, in errors and in the log (docs/threat-model.md#rules-that-hold-everywhere "No secrets in output").
import { sha256Hex } from '../canonical.js';
import { compareUtf8 } from '../contract/ids.js';
import { HEX64_RE, RECORD_ID_RE, REQUEST_ID_RE, UNIT_ID_RE } from '../ids.js';

/**
 * Record id = `REC-` + the first 24 hex of sha256(payload bytes). It fits both the contract's
 * `authorities[].record` syntax and the contract ID syntax (`^[A-Z][A-Z0-9]{1,7}-[A-Za-z0-9._-]{1,24}$`),
 * so a record id can be cited anywhere an ID can. 96 bits: finding a second payload with the same
 * prefix costs ~2^96 work, and every record is unique in the store (UNIQUE constraint) anyway.
 */
export { RECORD_ID_RE };
/** One request of `authority request`: `ARQ-<32 hex>`, 128 random bits. */
export { REQUEST_ID_RE };
/** The one-time nonce of a request: 256 random bits, hex. */
export const NONCE_RE = HEX64_RE;
export { UNIT_ID_RE };

const ITEM = '[A-Z][A-Z0-9]{1,7}-[A-Za-z0-9._-]{1,64}';
/**
 * What an authority may cover: a contract item ID (`DIR-1`), a relation (`ATOM-1>DIR-1`, docs/reviewers.md#the-reviewers-world),
 * an opaque governed id (`RUN-<hex>`, `CHL-<hex>`) or a receipt id (`sha256:<64 hex>`, docs/formats.md#receipt).
 */
export const COVERED_ID_RE = new RegExp(`^(?:${ITEM}(?:>${ITEM})?|sha256:[0-9a-f]{64})$`);
export { AUTHORITY_MAX_COVERED_IDS as MAX_COVERED_IDS } from '../limits.js';

export function recordIdOf(payload: Uint8Array): string {
  return `REC-${sha256Hex(payload).slice(0, 24)}`;
}

/** True when `ids` is sorted by UTF-8 bytes and has no duplicate (docs/reviewers.md#reviewer-output list order). */
export function isSortedUnique(ids: readonly string[]): boolean {
  for (let i = 1; i < ids.length; i++) if (compareUtf8(ids[i - 1] as string, ids[i] as string) >= 0) return false;
  return true;
}

/** Sorted by UTF-8 bytes, de-duplicated. */
export function sortIds(ids: Iterable<string>): string[] {
  return [...new Set(ids)].sort(compareUtf8);
}
