// The state digests a scope authority binds (docs/contract.md#scope-history, docs/authority.md#human-authority-records "State digests").
//
//   state_before = contractDigest(current contract)  — the scope version the human looked at
//   state_after  = authorityScopeDigest(new contract) — the scope the human approves
//
// state_after cannot be the plain contract digest of the new contract: that contract cites the
// record itself (`authorities[].record`) and its tombstones, and the record id is derived from the
// signed bytes, which contain state_after — a cycle. So the approved scope is the new contract
// WITHOUT its `authorities` and `tombstones` lists. Those lists are immutable history checked by
// their own rules (scope-diff: never edited or dropped; tombstones: `disposes` is exactly what the
// directive's state implies), so leaving them out does not let anything unapproved in.
import { digestOf, type CanonicalValue } from '../canonical.js';
import type { Contract } from '../contract/schema.js';

export function authorityScopeDigest(contract: Contract): string {
  const { authorities: _authorities, tombstones: _tombstones, ...scope } = contract;
  return digestOf({ kind: 'governed/authority-scope', version: 1, contract: scope as unknown as CanonicalValue });
}
