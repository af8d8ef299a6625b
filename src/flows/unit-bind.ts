// `governed unit bind --unit U --contract F [--authority REC ...] [--dry-run]` (docs/commands.md#what-each-command-guarantees, docs/contract.md#scope-history;
// docs/state.md#commands).
//
// The new contract is compared with the unit's current scope version (`diffScope`):
// - pure additions and progress (active→done) bind freely;
// - narrowing needs signed authority: the records given with `--authority` must each be cited in
//   the new contract's `authorities[]` (the contract carries its own history, docs/contract.md#scope-history), cover
//   disjoint IDs whose union is exactly the narrowed IDs, and each is consumed through the
//   authority API (`consumeNarrowingAuthorityIn`), judged at this log position, for the operation
//   the contract cites, this unit, state_before = the current contract digest and state_after =
//   `authorityScopeDigest(new contract)` (docs/authority.md);
// - directives, sources, authorities and tombstones never disappear, authorities and tombstones are
//   never edited (`diffScope` refuses both).
// Then the new contract is validated (docs/contract.md#validation-rules) against the baseline source bytes — tombstones
// judged valid only for records consumed for this unit — and the next scope version is bound. All
// of it is one transaction: a refusal consumes nothing and records nothing.
//
// `--dry-run` prints the diff and the two state digests an authority request needs, and records
// nothing. It also reports whether the contract would validate with its cited authorities assumed
// valid, so a disposal can be planned before its record exists (docs/state.md "Planning a bind").
import { resolve } from 'node:path';
import { fail, isGovernedError, type ErrorCode } from '../core/errors.js';
import { authorityScopeDigest } from '../core/authority/index.js';
import { RECORD_ID_RE } from '../core/authority/index.js';
import { sortedUnique } from '../core/contract/ids.js';
import { contractDigest } from '../core/contract/digests.js';
import { diffScope, requireAuthorityForNarrowing, type ScopeDiff } from '../core/contract/scope-diff.js';
import type { Contract } from '../core/contract/schema.js';
import { validateContract } from '../core/contract/validate.js';
import { sourcesDigest } from '../core/bundle/index.js';
import { consumeNarrowingAuthorityIn, getAuthorityRecord } from './authority/consume.js';
import { bindScopeIn, closeStore, getScopeVersion, getUnit, mutate, openStore, type Tx } from '../store/index.js';
import { loadPinned } from './challenge/pinned.js';
import { readBaselineSources } from './challenge/baseline-sources.js';
import { consumedAuthorityValidator, parseContractBytes, readContractFile } from './unit-contract.js';
import { uncoveredChanges } from './uncovered-changes.js';

export interface UnitBindArgs {
  readonly home: string;
  readonly unit: string;
  readonly contractFile: string;
  readonly repo: string;
  readonly authorities: readonly string[];
  readonly dryRun: boolean;
  readonly now: number;
}

export interface UnitBindResult {
  readonly unit: string;
  readonly dryRun: boolean;
  /** The version bound (or that would be bound). */
  readonly scopeVersion: number;
  readonly scopeEpoch: number;
  readonly workRevision: number;
  readonly scopeChanged: boolean;
  readonly additions: readonly string[];
  readonly narrowing: readonly string[];
  readonly progress: readonly string[];
  readonly authorities: readonly string[];
  readonly contractDigest: string;
  /** What an authority record for this bind must name (docs/authority.md). */
  readonly stateBefore: string;
  readonly stateAfter: string;
  /**
   * Dry run only: the docs/contract.md#validation-rules verdict on the new contract with every cited authority assumed valid
   * (null when it would validate). A bind that disposes of a directive can be planned before its
   * tombstone exists; the real bind judges everything.
   */
  readonly validation: { readonly code: ErrorCode; readonly ids: readonly string[] } | null;
  /**
   * Dry run only: changed paths of the workspace (against the baseline) that the new contract
   * leaves uncovered — review-challenge would refuse them (docs/contract-init.md "Uncovered changes").
   */
  readonly uncoveredChanges?: readonly string[];
}

const safeRecordIds = (ids: readonly string[]): string[] => ids.filter((id) => RECORD_ID_RE.test(id));

/**
 * Inside the bind transaction: check and consume the authority records for the narrowing of `diff`.
 * Returns the consumed record ids.
 */
function consumeNarrowingAuthority(
  tx: Tx,
  args: { unit: string; previous: Contract; next: Contract; diff: ScopeDiff; records: readonly string[] },
): string[] {
  const records = sortedUnique(args.records);
  if (records.length === 0) {
    requireAuthorityForNarrowing(args.diff, null);
    return [];
  }
  const cited = records.map((rec) => {
    const entry = args.next.authorities.find((a) => a.record === rec);
    if (entry === undefined) fail('unit_authority_not_cited', safeRecordIds([rec]));
    return entry;
  });
  const infos = records.map((rec) => {
    const info = getAuthorityRecord(tx.db, rec);
    if (info === null) fail('authority_record_unknown', safeRecordIds([rec]));
    return info;
  });
  const union = infos.flatMap((i) => i.ids);
  // Records cover disjoint parts of the narrowing: one ID authorised twice is ambiguous.
  if (new Set(union).size !== union.length) fail('contract_narrowing_authority_mismatch', ['overlap']);
  requireAuthorityForNarrowing(args.diff, union);
  // Each record is judged here, at this log position, for its share of the narrowing and the
  // operation the contract cites (state_before/after: the current and the new scope).
  infos.forEach((info, i) => {
    consumeNarrowingAuthorityIn(tx, {
      recordId: info.recordId,
      unit: args.unit,
      previous: args.previous,
      next: args.next,
      narrowing: info.ids,
      operations: [(cited[i] as (typeof cited)[number]).operation],
    });
  });
  return records;
}

export async function bindUnitFlow(args: UnitBindArgs): Promise<UnitBindResult> {
  const store = openStore(args.home);
  try {
    const pinned = loadPinned(store, args.now);
    const unit = getUnit(store.db, args.unit);
    const current = getScopeVersion(store.db, unit.unitId);
    const previous = parseContractBytes(current.contractBytes);
    if (contractDigest(previous) !== current.contractDigest) fail('scope_integrity_failed', [`scope:${current.version}`]);
    const { bytes, contract: next } = readContractFile(args.contractFile);
    const root = resolve(args.repo);
    const sources = await readBaselineSources(root, unit.baselineCommit, next);
    const diff = diffScope(previous, next);
    const digest = contractDigest(next);
    const stateBefore = current.contractDigest;
    const stateAfter = authorityScopeDigest(next);
    const productRoots = pinned.policy.doc.product_roots;
    const plan = {
      unit: unit.unitId,
      scopeVersion: current.version + 1,
      scopeEpoch: unit.scopeEpoch + (diff.scopeChanged ? 1 : 0),
      workRevision: unit.workRevision + 1,
      scopeChanged: diff.scopeChanged,
      additions: diff.additions,
      narrowing: diff.narrowing,
      progress: diff.progress,
      contractDigest: digest,
      stateBefore,
      stateAfter,
    };
    if (args.dryRun) {
      let validation: UnitBindResult['validation'] = null;
      try {
        validateContract(next, { sourceBytes: sources.bytes, productRoots, isValidAuthority: () => true });
      } catch (e) {
        if (!isGovernedError(e)) throw e;
        validation = { code: e.code, ids: e.ids };
      }
      const uncovered = await uncoveredChanges(root, unit.baselineCommit, next, { productRoots, exclude: pinned.policy.doc.exclude });
      return { ...plan, dryRun: true, validation, uncoveredChanges: uncovered, authorities: sortedUnique(args.authorities.filter((a) => RECORD_ID_RE.test(a))) };
    }
    const srcDigest = sourcesDigest(sources.digests);
    return mutate(store, args.now, (tx) => {
      // The diff was computed against `current`; a bind that committed meanwhile invalidates it.
      if (getScopeVersion(tx.db, unit.unitId).version !== current.version) fail('unit_scope_moved', [unit.unitId]);
      const consumed = consumeNarrowingAuthority(tx, { unit: unit.unitId, previous, next, diff, records: args.authorities });
      validateContract(next, {
        sourceBytes: sources.bytes,
        productRoots,
        isValidAuthority: consumedAuthorityValidator(tx.db, unit.unitId),
      });
      const v = bindScopeIn(tx, {
        unit: unit.unitId,
        contractBytes: bytes,
        contractDigest: digest,
        sources: sources.digests,
        sourcesDigest: srcDigest,
        diff: { additions: diff.additions, narrowing: diff.narrowing, progress: diff.progress },
        scopeChanged: diff.scopeChanged,
        authorities: consumed,
      });
      return {
        ...plan,
        dryRun: false,
        validation: null,
        scopeVersion: v.version,
        scopeEpoch: v.scopeEpoch,
        workRevision: v.workRevision,
        authorities: consumed,
      };
    });
  } finally {
    closeStore(store);
  }
}
