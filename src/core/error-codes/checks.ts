// Error codes owned by sealed snapshots and check reviewers (docs/sandbox.md#sealed-snapshots,
// docs/reviewers.md#check-reviewers). After a claim every one of them is recorded as ABORTED (a
// check that could not say CLEAN or DIRTY is never CLEAN). The IDs name a check or a policy field,
// never tool output, a path of the reviewed content, or a value.
import { def, type ErrorDef } from './def.js';

export const CHECKS_ERRORS = {
  // --- 2 usage / configuration -----------------------------------------------------------------
  check_dependency_root_invalid: def(2, 'The policy dependency root of a check reviewer is not a real directory in the repository (missing, or a symlink); nothing was issued or run.'),
  check_dependency_root_in_workspace: def(2, 'The policy dependency root holds files of the reviewed workspace; it must be outside the manifest (ignored by git, or excluded by the policy).'),

  // --- 4 verification / tampering --------------------------------------------------------------
  snapshot_altered: def(4, 'A sealed snapshot or sealed dependency root no longer holds exactly the bytes it was sealed with (a file added, removed, changed or re-moded); it is refused and the run was recorded as ABORTED.'),
  check_bundle_invalid: def(4, 'The challenge bundle of a check slot does not carry the check inputs its policy reviewer fixes (command, dependency root); nothing was claimed.'),

  // --- 9 the check did not run to a verdict: the run was recorded as ABORTED -----------------
  check_command_failed: def(9, 'The check command could not be started, crashed, or exited with a status its adapter does not map to CLEAN or DIRTY; the run was recorded as ABORTED.'),
  check_command_timeout: def(9, 'The check command exceeded the adapter time budget inside the sandbox; the run was recorded as ABORTED.'),
  check_output_unparsable: def(9, 'The check command output is not what its adapter parses (TAP, tsc diagnostics, ESLint JSON), or contradicts its exit status; the run was recorded as ABORTED.'),
} as const satisfies Record<string, ErrorDef>;

export const CHECKS_REASONS = {} as const satisfies Record<string, string>;
