// `governed verify [RECEIPT] --inclusion-proof P --checkpoint F` (docs/audit.md "Proofs"): checks,
// without the log, that F is a checkpoint signed by a log key of the trust root (now, offline),
// that P proves its entry is in F's tree, and — with one receipt — that the entry records it.
import { fail } from '../core/errors.js';
import { verifyCheckpointNote } from '../core/tlog-checkpoint.js';
import { checkInclusionProof, parseInclusionProof } from '../core/tlog-proof.js';
import { isoSecondsOf, type TrustRoot } from '../core/trust-root.js';
import { readInputFile } from './read-input.js';

export interface InclusionResult {
  readonly proof: string;
  readonly checkpoint: string;
  readonly origin: string;
  readonly tree_size: number;
  readonly seq: number;
  readonly receipt: string | null;
}

export function verifyInclusionFiles(proofFile: string, checkpointFile: string | undefined, trust: TrustRoot, now: Date, receipt: string | undefined): InclusionResult {
  if (checkpointFile === undefined) fail('usage_error', ['--checkpoint']);
  const { cp } = verifyCheckpointNote(readInputFile(checkpointFile, 1024 * 1024), checkpointFile, trust, isoSecondsOf(now));
  const p = parseInclusionProof(readInputFile(proofFile, 16 * 1024 * 1024).toString('utf8'), proofFile);
  checkInclusionProof(p, cp, proofFile, receipt);
  return { proof: proofFile, checkpoint: checkpointFile, origin: cp.origin, tree_size: cp.size, seq: p.entry.seq, receipt: receipt ?? null };
}
