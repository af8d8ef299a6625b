// RFC 6962 tree hashes and proofs of src/core/merkle.ts against the standard test vectors (the
// certificate-transparency merkle_tree test data: 8 leaves, every root, PATH and PROOF vectors),
// and every proof for every (size, index) up to 40 leaves checks — and fails on one changed byte.
import { describe, expect, it } from 'vitest';
import {
  checkConsistency,
  checkInclusion,
  leafHash,
  proveConsistency,
  proveInclusion,
  storedHashCount,
  storedHashesForLeaf,
  storedHashIndex,
  treeHash,
  EMPTY_TREE_HASH,
  type Hash,
  type HashReader,
} from '../src/core/merkle.js';

const LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map((h) => Buffer.from(h, 'hex'));
const ROOTS = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];

/** A stored-hash table built by appending each leaf, as the store does. */
function build(leaves: readonly Buffer[]): { read: HashReader; table: Map<number, Hash> } {
  const table = new Map<number, Hash>();
  const read: HashReader = (ix) => ix.map((i) => {
    const h = table.get(i);
    if (h === undefined) throw new Error(`missing ${i}`);
    return h;
  });
  leaves.forEach((data, n) => {
    const hs = storedHashesForLeaf(n, leafHash(data), read);
    hs.forEach((h, j) => table.set(storedHashIndex(0, n) + j, h));
    expect(table.size).toBe(storedHashCount(n + 1));
  });
  return { read, table };
}

const hex = (hs: Hash[]): string[] => hs.map((h) => h.toString('hex'));

describe('RFC 6962 vectors', () => {
  const { read } = build(LEAVES);
  it('tree hashes of sizes 0..8', () => {
    expect(treeHash(0, read).toString('hex')).toBe(EMPTY_TREE_HASH.toString('hex'));
    expect(EMPTY_TREE_HASH.toString('hex')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    for (let n = 1; n <= 8; n++) expect(treeHash(n, read).toString('hex')).toBe(ROOTS[n - 1]);
  });
  it('inclusion (PATH) vectors', () => {
    expect(hex(proveInclusion(8, 0, read))).toEqual([
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ]);
    expect(hex(proveInclusion(1, 0, read))).toEqual([]);
  });
  it('consistency (PROOF) vectors', () => {
    expect(hex(proveConsistency(8, 1, read))).toEqual([
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ]);
    expect(hex(proveConsistency(8, 6, read))).toEqual([
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ]);
    expect(hex(proveConsistency(8, 8, read))).toEqual([]);
  });
});

describe('every proof up to 40 leaves', () => {
  const leaves = Array.from({ length: 40 }, (_, i) => Buffer.from(`leaf ${i}`));
  const { read } = build(leaves);
  const flip = (hs: Hash[], i: number): Hash[] => hs.map((h, j) => (j === i ? Buffer.from(h.map((b, k) => (k === 0 ? b ^ 1 : b))) : h));
  it('inclusion and consistency check, and refuse a changed byte, another size or another index', () => {
    for (let t = 1; t <= 40; t++) {
      const root = treeHash(t, read);
      for (let n = 0; n < t; n++) {
        const p = proveInclusion(t, n, read);
        expect(checkInclusion(p, t, root, n, leafHash(leaves[n] as Buffer))).toBe(true);
        for (let i = 0; i < p.length; i++) expect(checkInclusion(flip(p, i), t, root, n, leafHash(leaves[n] as Buffer))).toBe(false);
        expect(checkInclusion(p, t, root, n, leafHash(Buffer.from('other')))).toBe(false);
        if (t > 1) expect(checkInclusion(p, t, root, (n + 1) % t, leafHash(leaves[n] as Buffer))).toBe(false);
        const c = proveConsistency(t, n + 1, read);
        const old = treeHash(n + 1, read);
        expect(checkConsistency(c, t, root, n + 1, old)).toBe(true);
        for (let i = 0; i < c.length; i++) expect(checkConsistency(flip(c, i), t, root, n + 1, old)).toBe(false);
        if (n + 1 < t) expect(checkConsistency(c, t, root, n + 1, root)).toBe(false);
      }
    }
  });
});
