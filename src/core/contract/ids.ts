// Identifier syntax of the request contract (docs/contract.md#validation-rules) and the `FROM>TO` relation IDs of the
// coverage edges (docs/reviewers.md#the-reviewers-world). IDs are what errors, bundles and reviewer output may carry, so their
// alphabet is closed and short: no text can hide in one.

import { AUTHORITY_RECORD_ID_RE, CONTRACT_ID_RE } from '../ids.js';

/** docs/contract.md#validation-rules: IDs are unique across the contract and match this pattern. */
export { CONTRACT_ID_RE };

/**
 * The id of a signed authority record (what `authority record` prints, docs/authority.md#human-authority-records). It is not an item
 * of the contract, so it is not bound by the 24-character suffix limit (a record id may carry a full
 * hex digest), but it keeps the same closed alphabet so it is safe to show.
 */
export { AUTHORITY_RECORD_ID_RE };

/** Relation separator of docs/reviewers.md#the-reviewers-world coverage edges: `ATOM-1>DIR-1`. `>` is outside the ID alphabet. */
export const RELATION_SEPARATOR = '>';

export function isContractId(value: string): boolean {
  return CONTRACT_ID_RE.test(value);
}

export function relationId(from: string, to: string): string {
  return `${from}${RELATION_SEPARATOR}${to}`;
}

/** True for `FROM>TO` where both ends are contract IDs. */
export function isRelationId(value: string): boolean {
  const parts = value.split(RELATION_SEPARATOR);
  return parts.length === 2 && parts.every((p) => CONTRACT_ID_RE.test(p));
}

/** Order by UTF-8 bytes (docs/reviewers.md#reviewer-output "every list sorted (by UTF-8 bytes)"). */
export function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Sorted, de-duplicated copy by UTF-8 bytes. */
export function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort(compareUtf8);
}
