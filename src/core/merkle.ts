// The RFC 6962 Merkle tree over the log (docs/audit.md "Transparency log"): leaf hash =
// SHA-256(0x00 ‖ leaf bytes), node hash = SHA-256(0x01 ‖ left ‖ right). The tree is stored as the
// table of "stored hashes" of Go's golang.org/x/mod/sumdb/tlog (every complete subtree's hash,
// indexed by StoredHashIndex), so an append adds 1 + (trailing ones of its 0-based index) hashes
// and every tree hash and proof for any size ≤ the log is a few O(log n) reads. This file is a
// line-by-line port of that package's index math, proofs and checks (the Go code itself verifies
// governed's output in test/tlog-checkpoint-proofs.test.ts). Pure: hashes are read through `HashReader`.
import { createHash } from 'node:crypto';
import { TLOG_PROOF_MAX_HASHES } from './limits.js';

export const HASH_SIZE = 32;
export type Hash = Buffer;
/** Reads the stored hashes at these indexes, in order (throws if one is missing). */
export type HashReader = (indexes: readonly number[]) => Hash[];

export class ProofError extends Error {}

export function leafHash(data: Uint8Array): Hash {
  return createHash('sha256').update(Buffer.of(0x00)).update(data).digest();
}

export function nodeHash(left: Hash, right: Hash): Hash {
  return createHash('sha256').update(Buffer.of(0x01)).update(left).update(right).digest();
}

/** RFC 6962's hash of the empty tree: SHA-256 of nothing. */
export const EMPTY_TREE_HASH: Hash = createHash('sha256').digest();

const pow2 = (l: number): number => 2 ** l;
const shr = (n: number, l: number): number => Math.floor(n / pow2(l));

function trailingOnes(n: number): number {
  let c = 0;
  while (n % 2 === 1) {
    c++;
    n = Math.floor(n / 2);
  }
  return c;
}

/** k = the largest power of two < n, and its level. */
function maxpow2(n: number): { k: number; l: number } {
  let l = 0;
  while (pow2(l + 1) < n) l++;
  return { k: pow2(l), l };
}

/** Index in the stored-hash table of the hash of the level-`level` subtree number `n`. */
export function storedHashIndex(level: number, n: number): number {
  for (let l = level; l > 0; l--) n = 2 * n + 1;
  let i = 0;
  for (; n > 0; n = Math.floor(n / 2)) i += n;
  return i + level;
}

/** Number of stored hashes of a tree of n leaves. */
export function storedHashCount(n: number): number {
  if (n === 0) return 0;
  return storedHashIndex(0, n - 1) + 1 + trailingOnes(n - 1);
}

/**
 * The hashes to store when appending leaf number `n` (0-based) with leaf hash `h`, in index order
 * starting at storedHashIndex(0, n): the leaf, then each subtree it completes.
 */
export function storedHashesForLeaf(n: number, h: Hash, read: HashReader): Hash[] {
  const hashes = [h];
  const m = trailingOnes(n);
  const indexes: number[] = new Array<number>(m);
  for (let i = 0; i < m; i++) indexes[m - 1 - i] = storedHashIndex(i, shr(n, i) - 1);
  const old = m === 0 ? [] : read(indexes);
  if (old.length !== m) throw new ProofError('missing stored hashes');
  let acc = h;
  for (let i = 0; i < m; i++) {
    acc = nodeHash(old[m - 1 - i] as Hash, acc);
    hashes.push(acc);
  }
  return hashes;
}

function subTreeIndex(lo: number, hi: number, need: number[]): number[] {
  while (lo < hi) {
    const { k, l } = maxpow2(hi - lo + 1);
    if (lo % k !== 0) throw new ProofError('bad math');
    need.push(storedHashIndex(l, shr(lo, l)));
    lo += k;
  }
  return need;
}

function subTreeHash(lo: number, hi: number, hashes: Hash[]): [Hash, Hash[]] {
  let numTree = 0;
  while (lo < hi) {
    const { k } = maxpow2(hi - lo + 1);
    if (lo % k !== 0 || lo >= hi) throw new ProofError('bad math');
    numTree++;
    lo += k;
  }
  if (hashes.length < numTree || numTree === 0) throw new ProofError('bad math');
  let h = hashes[numTree - 1] as Hash;
  for (let i = numTree - 2; i >= 0; i--) h = nodeHash(hashes[i] as Hash, h);
  return [h, hashes.slice(numTree)];
}

function readExact(read: HashReader, indexes: number[]): Hash[] {
  const hashes = indexes.length === 0 ? [] : read(indexes);
  if (hashes.length !== indexes.length) throw new ProofError('missing stored hashes');
  return hashes;
}

/** Root hash of the tree of the first n leaves (RFC 6962 MTH). */
export function treeHash(n: number, read: HashReader): Hash {
  if (n === 0) return EMPTY_TREE_HASH;
  const [h, rest] = subTreeHash(0, n, readExact(read, subTreeIndex(0, n, [])));
  if (rest.length !== 0) throw new ProofError('bad math');
  return h;
}

function leafProofIndex(lo: number, hi: number, n: number, need: number[]): number[] {
  if (lo + 1 === hi) return need;
  const { k } = maxpow2(hi - lo);
  if (n < lo + k) {
    leafProofIndex(lo, lo + k, n, need);
    subTreeIndex(lo + k, hi, need);
  } else {
    subTreeIndex(lo, lo + k, need);
    leafProofIndex(lo + k, hi, n, need);
  }
  return need;
}

function leafProof(lo: number, hi: number, n: number, hashes: Hash[]): [Hash[], Hash[]] {
  if (lo + 1 === hi) return [[], hashes];
  const { k } = maxpow2(hi - lo);
  let p: Hash[];
  let th: Hash;
  if (n < lo + k) {
    [p, hashes] = leafProof(lo, lo + k, n, hashes);
    [th, hashes] = subTreeHash(lo + k, hi, hashes);
  } else {
    [th, hashes] = subTreeHash(lo, lo + k, hashes);
    [p, hashes] = leafProof(lo + k, hi, n, hashes);
  }
  return [[...p, th], hashes];
}

const isIndex = (x: number): boolean => Number.isSafeInteger(x) && x >= 0;

/** Inclusion proof of leaf n (0-based) in the tree of t leaves (RFC 6962 PATH, Go's ProveRecord). */
export function proveInclusion(t: number, n: number, read: HashReader): Hash[] {
  if (!isIndex(t) || !isIndex(n) || n >= t) throw new ProofError('invalid inputs');
  const [p, rest] = leafProof(0, t, n, readExact(read, leafProofIndex(0, t, n, [])));
  if (rest.length !== 0) throw new ProofError('bad math');
  return p;
}

function runInclusion(p: readonly Hash[], lo: number, hi: number, n: number, leaf: Hash): Hash {
  if (lo + 1 === hi) {
    if (p.length !== 0) throw new ProofError('proof failed');
    return leaf;
  }
  if (p.length === 0) throw new ProofError('proof failed');
  const { k } = maxpow2(hi - lo);
  const last = p[p.length - 1] as Hash;
  if (n < lo + k) return nodeHash(runInclusion(p.slice(0, -1), lo, lo + k, n, leaf), last);
  return nodeHash(last, runInclusion(p.slice(0, -1), lo + k, hi, n, leaf));
}

/** True when `p` proves leaf hash `leaf` is leaf n of the tree of t leaves whose root is `root`. */
export function checkInclusion(p: readonly Hash[], t: number, root: Hash, n: number, leaf: Hash): boolean {
  if (!isIndex(t) || !isIndex(n) || n >= t || p.length > 64) return false;
  try {
    return runInclusion(p, 0, t, n, leaf).equals(root);
  } catch (e) {
    if (e instanceof ProofError) return false;
    throw e;
  }
}

function treeProofIndex(lo: number, hi: number, n: number, need: number[]): number[] {
  if (n === hi) return lo === 0 ? need : subTreeIndex(lo, hi, need);
  const { k } = maxpow2(hi - lo);
  if (n <= lo + k) {
    treeProofIndex(lo, lo + k, n, need);
    subTreeIndex(lo + k, hi, need);
  } else {
    subTreeIndex(lo, lo + k, need);
    treeProofIndex(lo + k, hi, n, need);
  }
  return need;
}

function treeProof(lo: number, hi: number, n: number, hashes: Hash[]): [Hash[], Hash[]] {
  if (n === hi) {
    if (lo === 0) return [[], hashes];
    const [th, rest] = subTreeHash(lo, hi, hashes);
    return [[th], rest];
  }
  const { k } = maxpow2(hi - lo);
  let p: Hash[];
  let th: Hash;
  if (n <= lo + k) {
    [p, hashes] = treeProof(lo, lo + k, n, hashes);
    [th, hashes] = subTreeHash(lo + k, hi, hashes);
  } else {
    [th, hashes] = subTreeHash(lo, lo + k, hashes);
    [p, hashes] = treeProof(lo + k, hi, n, hashes);
  }
  return [[...p, th], hashes];
}

/** Consistency proof from the tree of n leaves to the tree of t leaves (RFC 6962 PROOF, Go's ProveTree). */
export function proveConsistency(t: number, n: number, read: HashReader): Hash[] {
  if (!isIndex(t) || !isIndex(n) || n < 1 || n > t) throw new ProofError('invalid inputs');
  const [p, rest] = treeProof(0, t, n, readExact(read, treeProofIndex(0, t, n, [])));
  if (rest.length !== 0) throw new ProofError('bad math');
  return p;
}

function runConsistency(p: readonly Hash[], lo: number, hi: number, n: number, old: Hash): [Hash, Hash] {
  if (n === hi) {
    if (lo === 0) {
      if (p.length !== 0) throw new ProofError('proof failed');
      return [old, old];
    }
    if (p.length !== 1) throw new ProofError('proof failed');
    return [p[0] as Hash, p[0] as Hash];
  }
  if (p.length === 0) throw new ProofError('proof failed');
  const { k } = maxpow2(hi - lo);
  const last = p[p.length - 1] as Hash;
  if (n <= lo + k) {
    const [oh, th] = runConsistency(p.slice(0, -1), lo, lo + k, n, old);
    return [oh, nodeHash(th, last)];
  }
  const [oh, th] = runConsistency(p.slice(0, -1), lo + k, hi, n, old);
  return [nodeHash(last, oh), nodeHash(last, th)];
}

/** True when `p` proves the tree (n, oldRoot) is a prefix of the tree (t, newRoot). */
export function checkConsistency(p: readonly Hash[], t: number, newRoot: Hash, n: number, oldRoot: Hash): boolean {
  if (!isIndex(t) || !isIndex(n) || n < 1 || n > t || p.length > TLOG_PROOF_MAX_HASHES) return false;
  try {
    const [oh, th] = runConsistency(p, 0, t, n, oldRoot);
    return oh.equals(oldRoot) && th.equals(newRoot);
  } catch (e) {
    if (e instanceof ProofError) return false;
    throw e;
  }
}
