// Error codes owned by the audit domain (`governed audit verify`, docs/commands.md#what-each-command-guarantees, docs/state.md#the-store). Add entries here only.
//
// Exit-code choices (docs/commands.md#exit-codes): a signed record that contradicts the log entry that carries it, or the
// challenge it answers, is a verification failure (4: edited or mis-bound evidence); a challenge used
// twice is a replay (5).
import { def, type ErrorDef } from './def.js';

export const AUDIT_ERRORS = {
  audit_receipt_mismatch: def(
    4,
    'A receipt verifies, but a field of its signed predicate differs from the log entry that recorded it, the claim of its run, or the challenge it answers.',
  ),
  audit_authority_mismatch: def(4, 'An authority record verifies, but its id or signing key differs from the log entry that recorded it.'),
  audit_challenge_reused: def(5, 'A challenge was claimed or answered more than once in the log (single use, docs/runner.md#the-run-step-by-step).'),
  audit_checkpoint_mismatch: def(
    4,
    'The log does not extend a signed checkpoint: the entry at the checkpoint position is missing or its hash differs (the log was rewritten or truncated).',
  ),
  audit_checkpoint_invalid: def(4, 'A checkpoint file is not a signed log checkpoint (wrong predicate type, shape or subject).'),
  audit_checkpoint_output_exists: def(2, 'The checkpoint output file already exists; it is never overwritten.'),
  audit_checkpoint_output_unwritable: def(2, 'The checkpoint output file could not be written.'),
  audit_export_invalid: def(
    4,
    'An audit export directory is not consistent with its own manifest: a listed file is missing or its sha256 differs, a file is not listed, an entry is not a regular file (symlink, FIFO, device), or the manifest or a log.jsonl line is not of the export format.',
  ),
  audit_export_mismatch: def(
    4,
    'A file of an audit export differs from what its log records: a receipt or authority envelope, the pinned policy or trust root at the log head, a public key, a manifest field; or a recorded envelope is missing.',
  ),
  audit_export_output_exists: def(2, 'The export directory already exists; an export is never merged into or written over anything.'),
  audit_export_output_unwritable: def(2, 'The export directory could not be written; nothing was left behind.'),
  audit_state_invalid: def(
    4,
    "The auditor's state directory (audit verify --state) is not of its format or does not match its own signed note: the carry file or the replayed tables differ from the digests the note gives, its replay database is not at the note's size and root, or the note names another trust mode.",
  ),
  audit_state_untrusted: def(6, "The auditor's state note (audit verify --state) carries no valid signature by the --state-key key."),
  audit_orphan_record: def(4, 'A receipt or claim in the log names a challenge or run that no earlier log entry issued or claimed.'),
} as const satisfies Record<string, ErrorDef>;

export const AUDIT_REASONS = {} as const satisfies Record<string, string>;
