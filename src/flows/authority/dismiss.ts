// `governed unit dismiss` / `governed unit dismiss-veto` (docs/authority.md "Dismissals"): consume a
// recorded `dismiss` / `dismiss_veto` authority record for a unit, once, at this log position.
// Inside one transaction: the unit exists; the record is judged by the one consumption rule
// (`consumeAuthorityIn`: signature under the trust root in force now, operation, unit, IDs, state
// digests, not replayed, not expired) with the IDs it names and the state_before those IDs imply;
// and what it names must be dismissable now (`checkDismissal`: DIRTY receipts / ABORTED runs, or a
// vetoing receipt and its refs, of this unit, on one reviewed content). Among several failures the
// docs/commands.md#exit-codes precedence picks the code; any refusal rolls the consumption back (store unchanged).
// The decision rules then read the consumption like every authority fact (docs/decision.md#3-blocks, docs/decision.md#6-vetoes).
//
// `dryRun` with `ids`: records nothing and prints the state_before an `authority request` for those
// IDs must carry (the request names them; the command consumes the signed record later).
import { checkDismissal, type DismissalOperation } from '../../core/authority/dismissal.js';
import { fail, GovernedError, isGovernedError, worstError } from '../../core/errors.js';
import { closeStore, consumeAuthorityIn, getAuthorityRecord, getUnit, mutate, openStore } from '../../store/index.js';
import { dismissalCandidates } from '../../store/dismissal.js';

export interface DismissArgs {
  readonly home: string;
  readonly unit: string;
  readonly operation: DismissalOperation;
  /** The record to consume (required unless dryRun). */
  readonly recordId?: string;
  /** dryRun only: the IDs a request would name. */
  readonly ids?: readonly string[];
  readonly dryRun: boolean;
  readonly now: number;
}

export interface DismissResult {
  readonly dryRun: boolean;
  readonly operation: DismissalOperation;
  readonly unit: string;
  readonly recordId: string | null;
  readonly ids: readonly string[];
  readonly stateBefore: string;
  readonly consumedSeq: number | null;
}

export function dismissFlow(args: DismissArgs): DismissResult {
  const store = openStore(args.home);
  try {
    if (args.dryRun) {
      getUnit(store, args.unit); // unit_unknown (7)
      const ids = [...(args.ids ?? [])];
      const check = checkDismissal(args.operation, ids, dismissalCandidates(store.db, args.unit));
      if (!check.ok) fail('authority_dismiss_target_invalid', check.ids);
      return { dryRun: true, operation: args.operation, unit: args.unit, recordId: null, ids, stateBefore: check.stateBefore, consumedSeq: null };
    }
    const recordId = args.recordId ?? fail('usage_error', ['--authority']);
    return mutate(store, args.now, (tx) => {
      getUnit(tx.db, args.unit); // unit_unknown (7)
      const info = getAuthorityRecord(tx.db, recordId);
      const ids = info?.ids ?? [];
      const check = info === null ? null : checkDismissal(args.operation, ids, dismissalCandidates(tx.db, args.unit));
      const errors: GovernedError[] = [];
      let consumedSeq: number | null = null;
      try {
        consumedSeq = consumeAuthorityIn(tx, {
          recordId,
          operation: args.operation,
          ids,
          unit: args.unit,
          // What the named IDs imply; when they imply nothing, the target refusal below says why.
          stateBefore: check?.ok === true ? check.stateBefore : (info?.stateBefore ?? null),
          stateAfter: null,
        }).consumedSeq;
      } catch (e) {
        if (!isGovernedError(e)) throw e;
        // The authority_consume reducer re-asserts the same target rule (log_entry_not_applicable);
        // when the live check below already failed, its own code is the one to report.
        if (!(check !== null && !check.ok && e.code === 'log_entry_not_applicable')) errors.push(e);
      }
      if (check !== null && !check.ok) errors.push(new GovernedError('authority_dismiss_target_invalid', { ids: [recordId, ...check.ids] }));
      const failure = worstError(errors);
      if (failure !== null) throw failure; // rolls back the consumption, if any
      if (consumedSeq === null || check === null || !check.ok) fail('internal_error', ['dismiss']);
      return { dryRun: false, operation: args.operation, unit: args.unit, recordId, ids, stateBefore: check.stateBefore, consumedSeq };
    });
  } finally {
    closeStore(store);
  }
}
