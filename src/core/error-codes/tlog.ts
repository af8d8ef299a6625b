// Error codes of the transparency log (docs/audit.md "Transparency log"): the Merkle tree over the
// log, C2SP checkpoints, inclusion and consistency proofs, witness cosignatures. Add entries here only.
//
// Exit-code choices (docs/commands.md#exit-codes): evidence that does not verify is 4; a checkpoint or cosignature by
// a key the verifier does not trust is 6; no such entry is 7; a bad argument or state file is 2.
import { def, type ErrorDef } from './def.js';

export const TLOG_ERRORS = {
  log_tree_mismatch: def(4, 'The stored Merkle tree of the log differs from the tree its entries give (the tree table was edited).'),
  tlog_checkpoint_invalid: def(4, 'A checkpoint file is not a well-formed C2SP signed note of a tlog checkpoint (origin, size, root hash, signature lines).'),
  tlog_checkpoint_untrusted: def(6, 'A checkpoint carries no valid signature by the log key of the trust root (signed by another key, or the signature does not verify).'),
  tlog_origin_mismatch: def(4, 'A checkpoint or proof names another log origin than the one it is checked against.'),
  tlog_root_mismatch: def(4, 'The log does not have the root hash a signed checkpoint gives for its size: an entry it covers was edited, removed, inserted or reordered.'),
  tlog_log_truncated: def(4, 'The log has fewer entries than a signed checkpoint covers: entries were removed from its end.'),
  tlog_fork: def(4, 'Two signed checkpoints of the same log are not consistent: the same size with different roots, or no valid consistency proof between them (a forked log).'),
  tlog_proof_invalid: def(4, 'An inclusion or consistency proof does not verify against its checkpoint, or is not of the proof file format.'),
  tlog_proof_size_mismatch: def(4, 'A proof is for another tree size than the checkpoint it is checked against.'),
  tlog_proof_entry_mismatch: def(4, 'An inclusion proof is valid but its log entry does not record the receipt being verified.'),
  tlog_witness_insufficient: def(6, 'A checkpoint carries fewer valid cosignatures by the given witness keys than the threshold (a cosignature by an unknown key counts for nothing).'),
  tlog_witness_state_invalid: def(2, "A witness's state file is not of its format, or names another origin or key."),
  tlog_entry_unknown: def(7, 'No log entry has that sequence number or records that receipt, or it is beyond the checkpoint.'),
  tlog_output_exists: def(2, 'The output file already exists; it is never overwritten.'),
} as const satisfies Record<string, ErrorDef>;

export const TLOG_REASONS = {} as const satisfies Record<string, string>;
