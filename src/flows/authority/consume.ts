// How other flows use authority records (docs/contract.md#scope-history, docs/authority.md#human-authority-records): the stable entry points for `unit bind`
// (narrowing, tombstones), the decision rules (dismiss, dismiss_veto) and the gate. See
// docs/authority.md "API" for the contract of each function.
//
// Order inside a bind transaction (one `mutate`): read the record (`getAuthorityRecord`) to know
// the IDs it names, run `requireAuthorityForNarrowing`, then `consumeNarrowingAuthorityIn`, then
// validate the new contract with `tombstoneAuthorityValidator` (the record is consumed by then, in
// the same transaction), then append the bind's own entries. Any refusal rolls everything back,
// the consumption included: the record stays unused.
import { contractDigest } from '../../core/contract/digests.js';
import type { Contract } from '../../core/contract/schema.js';
import type { AuthorityValidator } from '../../core/contract/tombstones.js';
import { authorityScopeDigest } from '../../core/authority/scope-digest.js';
import type { AuthorityOperation } from '../../core/authority/operations.js';
import {
  consumeAuthorityIn,
  getAuthorityRecord,
  isAuthorityConsumedFor,
  type ConsumedAuthority,
  type Db,
  type Store,
  type Tx,
} from '../../store/index.js';

export {
  consumeAuthorityIn,
  getAuthorityRecord,
  isAuthorityConsumedFor,
  listAuthorityRecords,
  readAuthorityEnvelope,
  lastPinUpdateSeq,
  pinUpdates,
  pinInForceAt,
  trustRootAt,
  type AuthorityRecordInfo,
  type ConsumeAuthorityArgs,
  type ConsumedAuthority,
  type PinUpdate,
} from '../../store/index.js';
export { authorityScopeDigest } from '../../core/authority/scope-digest.js';

/** The operations that change a request contract's scope (docs/contract.md#scope-history, docs/authority.md#human-authority-records). */
export const SCOPE_OPERATIONS: readonly AuthorityOperation[] = ['authorize', 'add', 'replace', 'supersede', 'defer', 'abandon'];

export interface NarrowingAuthorityArgs {
  readonly recordId: string;
  readonly unit: string;
  /** The contract of the current scope version. */
  readonly previous: Contract;
  /** The contract being bound. */
  readonly next: Contract;
  /** `diffScope(previous, next).narrowing`: exactly the IDs the record must name. */
  readonly narrowing: readonly string[];
  /** The operations acceptable for this bind (default: every scope operation). */
  readonly operations?: readonly AuthorityOperation[];
}

/**
 * Consume the authority of a narrowing bind (docs/contract.md#scope-history): the record must name exactly the narrowed
 * IDs of this unit, with state_before = contractDigest(previous) and state_after =
 * authorityScopeDigest(next) (docs/authority.md "State digests").
 */
export function consumeNarrowingAuthorityIn(tx: Tx, args: NarrowingAuthorityArgs): ConsumedAuthority {
  return consumeAuthorityIn(tx, {
    recordId: args.recordId,
    operation: args.operations ?? SCOPE_OPERATIONS,
    ids: args.narrowing,
    unit: args.unit,
    stateBefore: contractDigest(args.previous),
    stateAfter: authorityScopeDigest(args.next),
  });
}

/**
 * The `isValidAuthority` verdict of `validateContract` / `assertDisposals` for one unit: a
 * tombstone's record is valid when it was consumed for this unit with the tombstone's operation —
 * judged once, at its consumption; later binds carry it as history (docs/authority.md#human-authority-records).
 */
export function tombstoneAuthorityValidator(x: Store | Db, unit: string): AuthorityValidator {
  return (recordId, operation, covers) => {
    if (!isAuthorityConsumedFor(x, { recordId, operation, unit })) return false;
    const named = new Set(getAuthorityRecord(x, recordId)?.ids ?? []);
    return covers.every((id) => named.has(id));
  };
}
