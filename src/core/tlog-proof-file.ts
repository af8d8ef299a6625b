// Writing the proof files of the transparency log (docs/audit.md "Proof files"): the formats and
// the two writers, with no parser (the gate's deploy record writes proofs on its lean path; the
// readers are in ./tlog-proof.ts, which re-exports these). Pure.
import type { Hash } from './merkle.js';

export const INCLUSION_FORMAT = 'governed/tlog-inclusion-proof';
export const CONSISTENCY_FORMAT = 'governed/tlog-consistency-proof';

// The file types are the one definition's (./tlog-proof.ts schemas); a type import is erased, so
// this module still loads no zod.
import type { ConsistencyProof, InclusionProof } from './tlog-proof.js';
export type { ConsistencyProof, InclusionProof, ProofEntry } from './tlog-proof.js';

const b64 = (h: Hash): string => h.toString('base64');

export function inclusionProofFile(p: Omit<InclusionProof, 'format' | 'version' | 'hashes' | 'root'> & { root: Hash; hashes: readonly Hash[] }): string {
  const doc: InclusionProof = { format: INCLUSION_FORMAT, version: 1, ...p, root: b64(p.root), hashes: p.hashes.map(b64) };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

export function consistencyProofFile(p: { origin: string; old_size: number; old_root: Hash; new_size: number; new_root: Hash; hashes: readonly Hash[] }): string {
  const doc: ConsistencyProof = {
    format: CONSISTENCY_FORMAT,
    version: 1,
    origin: p.origin,
    old_size: p.old_size,
    old_root: b64(p.old_root),
    new_size: p.new_size,
    new_root: b64(p.new_root),
    hashes: p.hashes.map(b64),
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

