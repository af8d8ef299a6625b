// Proof files of the transparency log (docs/audit.md "Proof files"): an inclusion proof of one log
// entry in the tree of a checkpoint, and a consistency proof between two checkpoints. JSON, one
// object, hashes in standard base64 (as in a checkpoint). The roots they carry are informative: a
// verifier checks each proof against the root of a signed checkpoint it was given, never against
// the file's own. Pure.
import { sha256Digest } from './canonical.js';
import { leafBytesOf } from './tlog-leaf.js';
export { leafBytesOf } from './tlog-leaf.js';
import { fail } from './errors.js';
import { checkConsistency, checkInclusion, leafHash, type Hash } from './merkle.js';
import { parseJsonStrict } from './strict-parse.js';
import type { Checkpoint } from './signed-note.js';
import * as z from 'zod/mini';
import { count, digestString, list } from './schema-primitives.js';

// The format names and the two writers live in ./tlog-proof-file.ts (no parser, no zod: the gate's
// deploy record writes proofs on its cold path); the types they write are this module's schemas'.
import { CONSISTENCY_FORMAT, INCLUSION_FORMAT } from './tlog-proof-file.js';
import { TLOG_PROOF_MAX_HASHES } from './limits.js';
import { HASH32_BASE64_RE } from './ids.js';
export { CONSISTENCY_FORMAT, INCLUSION_FORMAT, consistencyProofFile, inclusionProofFile } from './tlog-proof-file.js';

/** A tree hash as governed's log files carry it (proofs, the witness state): standard padded base64 of
 * exactly 32 bytes, canonical (it re-encodes to itself). */
export const proofHash = z.string().check(
  z.regex(HASH32_BASE64_RE),
  z.refine((s) => Buffer.from(s, 'base64').toString('base64') === s, { message: 'canonical_base64' }),
  z.meta({ description: 'standard padded base64 of a 32-byte SHA-256 hash; canonical: it re-encodes to the same text' }),
);
const hashes = list(proofHash, 0, TLOG_PROOF_MAX_HASHES);

/** The log entry an inclusion proof is about: exactly the fields its leaf hashes (./tlog-leaf.ts). */
export const proofEntrySchema = z.strictObject({
  seq: count,
  time: count,
  type: z.string(),
  unit: z.nullable(z.string()),
  payload_digest: digestString,
  prev_hash: digestString,
});
export type ProofEntry = z.infer<typeof proofEntrySchema>;

/** The inclusion proof file (docs/audit.md "Proof files"), one definition: written by `audit prove`, read by `verify --inclusion-proof`. */
export const inclusionProofSchema = z
  .strictObject({
    format: z.literal(INCLUSION_FORMAT),
    version: z.literal(1),
    origin: z.string(),
    tree_size: count,
    /** 0-based: entry seq − 1. */
    leaf_index: count,
    entry: proofEntrySchema,
    /** For a run_receipt entry: base64 of its payload bytes (they record the receipt id); else null. */
    payload: z.nullable(z.string()),
    root: proofHash,
    hashes,
  })
  .check(z.refine((p) => p.entry.seq === p.leaf_index + 1, { message: 'seq_is_leaf_index_plus_one' }));
export type InclusionProof = z.infer<typeof inclusionProofSchema>;

/** The consistency proof file (docs/audit.md "Proof files"): written by `audit prove --from --to`, read by `audit cosign --proof`. */
export const consistencyProofSchema = z.strictObject({
  format: z.literal(CONSISTENCY_FORMAT),
  version: z.literal(1),
  origin: z.string(),
  old_size: count,
  old_root: proofHash,
  new_size: count,
  new_root: proofHash,
  hashes,
});
export type ConsistencyProof = z.infer<typeof consistencyProofSchema>;

const hashBytes = (list: readonly string[]): Hash[] => list.map((s) => Buffer.from(s, 'base64'));

function parseProof<T extends { hashes: string[] }>(schema: z.ZodMiniType<T>, text: string, id: string): T & { hashList: Hash[] } {
  let v: unknown;
  try {
    v = parseJsonStrict(text);
  } catch {
    fail('tlog_proof_invalid', [id]);
  }
  const r = schema.safeParse(v);
  if (!r.success) fail('tlog_proof_invalid', [id]);
  return { ...r.data, hashList: hashBytes(r.data.hashes) };
}

/** Parse an inclusion proof file; `tlog_proof_invalid [id]` when it is not of the format. */
export function parseInclusionProof(text: string, id: string): InclusionProof & { hashList: Hash[] } {
  return parseProof(inclusionProofSchema, text, id);
}

export function parseConsistencyProof(text: string, id: string): ConsistencyProof & { hashList: Hash[] } {
  return parseProof(consistencyProofSchema, text, id);
}

/**
 * An inclusion proof against a signed checkpoint: same origin (tlog_origin_mismatch), same tree
 * size (tlog_proof_size_mismatch), and the path from the entry's leaf hash to the checkpoint's root
 * (tlog_proof_invalid). `receipt`, when given, must be what the entry records: a run_receipt entry
 * whose payload (its bytes hash to payload_digest) names that receipt id (tlog_proof_entry_mismatch).
 */
export function checkInclusionProof(p: InclusionProof & { hashList: Hash[] }, cp: Checkpoint, id: string, receipt?: string): void {
  if (p.origin !== cp.origin) fail('tlog_origin_mismatch', [id]);
  if (p.tree_size !== cp.size) fail('tlog_proof_size_mismatch', [id, `size:${p.tree_size}`, `checkpoint:${cp.size}`]);
  if (!checkInclusion(p.hashList, cp.size, cp.root, p.leaf_index, leafHash(leafBytesOf(p.entry)))) fail('tlog_proof_invalid', [id]);
  if (receipt === undefined) return;
  if (p.entry.type !== 'run_receipt' || p.payload === null) fail('tlog_proof_entry_mismatch', [id]);
  const bytes = Buffer.from(p.payload as string, 'base64');
  if (bytes.toString('base64') !== p.payload || sha256Digest(bytes) !== p.entry.payload_digest) fail('tlog_proof_entry_mismatch', [id]);
  let recorded: unknown;
  try {
    recorded = (parseJsonStrict(bytes.toString('utf8')) as { receipt?: unknown }).receipt;
  } catch {
    fail('tlog_proof_entry_mismatch', [id]);
  }
  if (recorded !== receipt) fail('tlog_proof_entry_mismatch', [id]);
}

/** A consistency proof between two signed checkpoints of one origin (old.size ≤ new.size). */
export function checkConsistencyProof(p: ConsistencyProof & { hashList: Hash[] }, oldCp: Checkpoint, newCp: Checkpoint, id: string): void {
  if (p.origin !== oldCp.origin || p.origin !== newCp.origin) fail('tlog_origin_mismatch', [id]);
  if (p.old_size !== oldCp.size || p.new_size !== newCp.size) fail('tlog_proof_size_mismatch', [id]);
  if (!checkConsistency(p.hashList, newCp.size, newCp.root, oldCp.size, oldCp.root)) fail('tlog_fork', [id]);
}
