// Change coverage (docs/contract.md#validation-rules last rule): every path changed in the workspace relative to the unit's
// baseline is covered by some implementation, evidence or target path; otherwise
// `contract_change_uncovered`. The changed paths come from the workspace layer.
//
// Only live (active or done) directives cover changes: a change made for a deferred, superseded or
// abandoned directive is work outside the scope being released. Paths name files (docs/contract.md#validation-rules), so a path
// covers exactly itself, never a directory prefix.
import { GovernedError } from '../errors.js';
import type { Contract } from './schema.js';
import { isDisposedState } from './tombstones.js';
import { compareUtf8 } from './ids.js';

export interface ChangeCoverage {
  readonly covered: boolean;
  readonly uncoveredCount: number;
  /**
   * The uncovered paths themselves, sorted by UTF-8 bytes. Paths are not IDs: they never go into an
   * error's ids; the caller decides whether to show or withhold them.
   */
  readonly uncoveredPaths: string[];
  /** The refusal to throw when not covered (ids: `uncovered:<count>`), else null. */
  readonly error: GovernedError | null;
}

/** Every path that a live directive's targets, implementations or evidence name. */
export function coveredPaths(contract: Contract): Set<string> {
  const implementations = new Map(contract.implementations.map((i) => [i.id, i.paths]));
  const evidence = new Map(contract.evidence.map((e) => [e.id, e.paths]));
  const out = new Set<string>();
  for (const d of contract.directives) {
    if (isDisposedState(d.state)) continue;
    for (const t of d.targets) for (const p of t.paths) out.add(p);
    for (const id of d.implementations) for (const p of implementations.get(id) ?? []) out.add(p);
    for (const id of d.evidence) for (const p of evidence.get(id) ?? []) out.add(p);
  }
  return out;
}

export function checkChangeCoverage(contract: Contract, changedPaths: readonly string[]): ChangeCoverage {
  const covered = coveredPaths(contract);
  const uncoveredPaths = [...new Set(changedPaths.filter((p) => !covered.has(p)))].sort(compareUtf8);
  const count = uncoveredPaths.length;
  return {
    covered: count === 0,
    uncoveredCount: count,
    uncoveredPaths,
    // The paths ride in `cause` (never printed by the error writer): the writer-side CLI names them
    // on stderr (src/flows/uncovered-changes.ts); the ids stay a count.
    error: count === 0 ? null : new GovernedError('contract_change_uncovered', { ids: [`uncovered:${count}`], cause: { uncoveredPaths } }),
  };
}

/** Throwing form for flows that refuse outright (e.g. issuing a challenge). */
export function assertChangeCoverage(contract: Contract, changedPaths: readonly string[]): void {
  const result = checkChangeCoverage(contract, changedPaths);
  if (result.error !== null) throw result.error;
}
