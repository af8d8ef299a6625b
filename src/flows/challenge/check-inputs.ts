// A check slot's inputs, fixed at issuance (docs/reviewers.md#check-reviewers): the policy's
// command and report format, the adapter's time budget, and the dependency root's digest, read now
// from the repository. They go into the bundle, whose digest the challenge binds — so the run can
// prove that the dependency tree it seals is the one bound here (a swapped tree is
// `review_post_launch_drift` [dependency_root]).
import { join } from 'node:path';
import { fail } from '../../core/errors.js';
import { CHECK_BUDGET_PER_MILLE } from '../../core/limits.js';
import type { CheckInputs } from '../../core/bundle/schema.js';
import type { CheckConfig } from '../../core/policy.js';
import { digestDirectory } from '../../workspace/snapshot.js';

/** The command's share of the sandbox timeout: the adapter must report a timeout before it is killed. */
export function checkBudgetMs(sandboxTimeoutSeconds: number): number {
  return Math.max(1000, Math.floor(sandboxTimeoutSeconds * CHECK_BUDGET_PER_MILLE));
}

/** The dependency root must hold no file of the reviewed workspace (it is bound over the snapshot). */
export function assertDependencyRootOutside(dependencyRoot: string, paths: readonly { readonly path: string }[]): void {
  if (paths.some((e) => e.path === dependencyRoot || e.path.startsWith(`${dependencyRoot}/`))) fail('check_dependency_root_in_workspace', [dependencyRoot]);
}

export function checkInputsAtIssue(o: {
  readonly root: string;
  readonly check: CheckConfig;
  readonly workspace: readonly { readonly path: string }[];
  readonly sandboxTimeoutSeconds: number;
}): CheckInputs {
  const dep = o.check.dependency_root;
  let dependencyRoot: CheckInputs['dependency_root'] = null;
  if (dep !== undefined) {
    assertDependencyRootOutside(dep, o.workspace);
    dependencyRoot = { path: dep, digest: digestDirectory(join(o.root, dep)).digest };
  }
  return {
    command: [...o.check.command],
    snapshot: '/snapshot',
    dependency_root: dependencyRoot,
    report: o.check.report ?? 'exit-code',
    timeout_ms: checkBudgetMs(o.sandboxTimeoutSeconds),
  };
}
