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

export const INCLUSION_FORMAT = 'governed/tlog-inclusion-proof';
export const CONSISTENCY_FORMAT = 'governed/tlog-consistency-proof';

export interface ProofEntry {
  readonly seq: number;
  readonly time: number;
  readonly type: string;
  readonly unit: string | null;
  readonly payload_digest: string;
  readonly prev_hash: string;
}

export interface InclusionProof {
  readonly format: typeof INCLUSION_FORMAT;
  readonly version: 1;
  readonly origin: string;
  readonly tree_size: number;
  /** 0-based: entry seq − 1. */
  readonly leaf_index: number;
  readonly entry: ProofEntry;
  /** For a run_receipt entry: base64 of its payload bytes (they record the receipt id); else null. */
  readonly payload: string | null;
  readonly root: string;
  readonly hashes: readonly string[];
}

export interface ConsistencyProof {
  readonly format: typeof CONSISTENCY_FORMAT;
  readonly version: 1;
  readonly origin: string;
  readonly old_size: number;
  readonly old_root: string;
  readonly new_size: number;
  readonly new_root: string;
  readonly hashes: readonly string[];
}

const b64 = (h: Hash): string => h.toString('base64');

function hashOf(s: unknown): Hash | null {
  if (typeof s !== 'string' || !/^[A-Za-z0-9+/]{43}=$/.test(s)) return null;
  const b = Buffer.from(s, 'base64');
  return b.length === 32 && b.toString('base64') === s ? b : null;
}

const isSize = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
const DIGEST = /^sha256:[0-9a-f]{64}$/;

function exactKeys(o: unknown, keys: string): o is Record<string, unknown> {
  return typeof o === 'object' && o !== null && !Array.isArray(o) && Object.keys(o).sort().join(',') === keys;
}

function hashList(v: unknown): Hash[] | null {
  if (!Array.isArray(v) || v.length > 128) return null;
  const out: Hash[] = [];
  for (const s of v) {
    const h = hashOf(s);
    if (h === null) return null;
    out.push(h);
  }
  return out;
}

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

/** Parse an inclusion proof file; `tlog_proof_invalid [id]` when it is not of the format. */
export function parseInclusionProof(text: string, id: string): InclusionProof & { hashList: Hash[] } {
  let v: unknown;
  try {
    v = parseJsonStrict(text);
  } catch {
    fail('tlog_proof_invalid', [id]);
  }
  if (!exactKeys(v, 'entry,format,hashes,leaf_index,origin,payload,root,tree_size,version')) fail('tlog_proof_invalid', [id]);
  const o = v as Record<string, unknown>;
  const e = o.entry;
  const ok =
    o.format === INCLUSION_FORMAT &&
    o.version === 1 &&
    typeof o.origin === 'string' &&
    isSize(o.tree_size) &&
    isSize(o.leaf_index) &&
    (o.payload === null || typeof o.payload === 'string') &&
    hashOf(o.root) !== null &&
    exactKeys(e, 'payload_digest,prev_hash,seq,time,type,unit') &&
    isSize(e.seq) &&
    isSize(e.time) &&
    typeof e.type === 'string' &&
    (e.unit === null || typeof e.unit === 'string') &&
    typeof e.payload_digest === 'string' &&
    DIGEST.test(e.payload_digest) &&
    typeof e.prev_hash === 'string' &&
    DIGEST.test(e.prev_hash) &&
    e.seq === (o.leaf_index as number) + 1;
  const hashes = hashList(o.hashes);
  if (!ok || hashes === null) fail('tlog_proof_invalid', [id]);
  return { ...(o as unknown as InclusionProof), hashList: hashes };
}

export function parseConsistencyProof(text: string, id: string): ConsistencyProof & { hashList: Hash[] } {
  let v: unknown;
  try {
    v = parseJsonStrict(text);
  } catch {
    fail('tlog_proof_invalid', [id]);
  }
  if (!exactKeys(v, 'format,hashes,new_root,new_size,old_root,old_size,origin,version')) fail('tlog_proof_invalid', [id]);
  const o = v as Record<string, unknown>;
  const ok = o.format === CONSISTENCY_FORMAT && o.version === 1 && typeof o.origin === 'string' && isSize(o.old_size) && isSize(o.new_size) && hashOf(o.old_root) !== null && hashOf(o.new_root) !== null;
  const hashes = hashList(o.hashes);
  if (!ok || hashes === null) fail('tlog_proof_invalid', [id]);
  return { ...(o as unknown as ConsistencyProof), hashList: hashes };
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
