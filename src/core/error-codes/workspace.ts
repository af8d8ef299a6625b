// Error and reason codes owned by the workspace domain (docs/commands.md#exit-codes, docs/contract.md#workspace-digest). Add entries here only.
// Summaries are fixed text: a path or file content never appears in a message (docs/threat-model.md#rules-that-hold-everywhere).
import { def, type ErrorDef } from './def.js';

export const WORKSPACE_ERRORS = {
  // --- 1 internal -------------------------------------------------------------------------
  workspace_git_failed: def(1, 'A hardened git command failed, timed out or printed malformed output.'),

  // --- 2 usage / configuration -----------------------------------------------------------
  workspace_root_invalid: def(2, 'The workspace root is not an existing absolute directory.'),
  workspace_root_not_toplevel: def(
    2,
    'The workspace root lies inside a git repository but is not its top level; name the top level.',
  ),
  workspace_scope_invalid: def(
    2,
    'A product root, exclude prefix or requested path is not a normalized repository-relative path.',
  ),
  workspace_submodule_refused: def(2, 'The workspace or commit contains a submodule or a nested git repository.'),
  workspace_special_file_refused: def(2, 'The workspace contains a FIFO, socket or device file; it was not opened.'),
  workspace_path_not_utf8: def(2, 'A workspace or commit path is not valid UTF-8.'),
  workspace_file_unreadable: def(2, 'A workspace file could not be read.'),
  workspace_revision_unresolved: def(2, 'The revision does not name a commit in this repository.'),
  workspace_commit_path_missing: def(2, 'A requested path is not a regular file in the commit.'),

  // --- 4 verification ---------------------------------------------------------------------
  workspace_file_changed_during_hash: def(
    4,
    'A workspace file changed type, identity or content while it was being hashed.',
  ),
} as const satisfies Record<string, ErrorDef>;

export const WORKSPACE_REASONS = {} as const satisfies Record<string, string>;
