// Our Ed25519 acceptance rule, vector-tested (docs/formats.md#receipt): RFC 8032 vectors
// through both noble (the signer) and node:crypto (the one verifier); every noble signature
// verifies under node:crypto; non-canonical S and small-order / non-canonical keys are refused.
import { describe, it, expect } from 'vitest';
import { randomBytes, generateKeyPairSync, sign as nodeSign } from 'node:crypto';
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import {
  publicKeyFromRaw,
  publicKeyFromPem,
  publicKeyToPem,
  verifyEd25519,
  hasCanonicalScalar,
  keyIdOfRaw,
} from '../src/core/ed25519.js';
import { codeAndIdsOf } from './helpers/codes.js';

ed.hashes.sha512 = sha512;
const hex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'hex'));

// RFC 8032 §7.1 TEST 1, 2, 3 and TEST SHA(abc).
const RFC8032 = [
  {
    name: 'TEST 1',
    secret: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    public: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    message: '',
    signature:
      'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  },
  {
    name: 'TEST 2',
    secret: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    public: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    message: '72',
    signature:
      '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  },
  {
    name: 'TEST 3',
    secret: 'c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7',
    public: 'fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025',
    message: 'af82',
    signature:
      '6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a',
  },
];

describe('RFC 8032 vectors', () => {
  for (const v of RFC8032) {
    it(`${v.name}: noble derives the key and signature; node:crypto verifies; tamper fails`, () => {
      expect(Buffer.from(ed.getPublicKey(hex(v.secret))).toString('hex')).toBe(v.public);
      expect(Buffer.from(ed.sign(hex(v.message), hex(v.secret))).toString('hex')).toBe(v.signature);
      const key = publicKeyFromRaw(hex(v.public));
      expect(verifyEd25519(key, hex(v.message), hex(v.signature))).toBe(true);
      expect(verifyEd25519(key, Buffer.concat([hex(v.message), Buffer.from([0])]), hex(v.signature))).toBe(false);
      const bad = Buffer.from(hex(v.signature));
      bad[0] = (bad[0] as number) ^ 1;
      expect(verifyEd25519(key, hex(v.message), bad)).toBe(false);
    });
  }
});

describe('noble signs, node:crypto verifies', () => {
  it('200 random keys and messages agree, and signatures are byte-identical to OpenSSL', () => {
    for (let i = 0; i < 200; i++) {
      const seed = randomBytes(32);
      const msg = randomBytes(i % 97);
      const sig = ed.sign(msg, seed);
      const key = publicKeyFromRaw(ed.getPublicKey(seed));
      expect(verifyEd25519(key, msg, sig)).toBe(true);
      if (i < 20) {
        const { privateKey } = { privateKey: require_pkcs8(seed) };
        expect(Buffer.from(nodeSign(null, msg, privateKey)).equals(Buffer.from(sig))).toBe(true);
      }
    }
  });
});

import { createPrivateKey } from 'node:crypto';
function require_pkcs8(seed: Uint8Array) {
  const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
  return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
}

describe('acceptance edge cases refused by our verify path', () => {
  const seed = randomBytes(32);
  const pub = ed.getPublicKey(seed);
  const key = publicKeyFromRaw(pub);
  const msg = Buffer.from('governed');
  const sig = ed.sign(msg, seed);
  const L = (1n << 252n) + 27742317777372353535851937790883648493n;

  it('non-canonical S (S + L) is refused even though the point equation still holds', () => {
    let s = 0n;
    for (let i = 31; i >= 0; i--) s = (s << 8n) | BigInt(sig[32 + i] as number);
    const s2 = s + L;
    expect(s2 < 1n << 256n).toBe(true);
    const mal = Buffer.from(sig);
    let n = s2;
    for (let i = 0; i < 32; i++) {
      mal[32 + i] = Number(n & 0xffn);
      n >>= 8n;
    }
    expect(hasCanonicalScalar(mal)).toBe(false);
    expect(verifyEd25519(key, msg, mal)).toBe(false);
    expect(hasCanonicalScalar(sig)).toBe(true);
  });

  it('wrong signature lengths are refused', () => {
    expect(verifyEd25519(key, msg, sig.subarray(0, 63))).toBe(false);
    expect(verifyEd25519(key, msg, Buffer.concat([sig, Buffer.from([0])]))).toBe(false);
  });

  it.each([
    ['identity', '0100000000000000000000000000000000000000000000000000000000000000', 'small_order'],
    ['order 2', 'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', 'small_order'],
    ['order 4', '0000000000000000000000000000000000000000000000000000000000000000', 'small_order'],
    ['order 4 (sign)', '0000000000000000000000000000000000000000000000000000000000000080', 'small_order'],
    ['order 8', 'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a', 'small_order'],
    ['order 8 (sign)', '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85', 'small_order'],
    ['y = p (non-canonical identity-like)', 'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', 'non_canonical'],
    ['y = p + 1', 'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', 'non_canonical'],
    ['x = 0 with sign bit', '01000000000000000000000000000000000000000000000000000000000000' + '80', 'non_canonical'],
  ])('refuses public key: %s', (_n, h, why) => {
    expect(codeAndIdsOf(() => publicKeyFromRaw(hex(h)))).toBe(`key_invalid:${why}`);
  });

  it('refuses wrong length and wrong key type in PEM', () => {
    expect(codeAndIdsOf(() => publicKeyFromRaw(new Uint8Array(31)))).toBe('key_invalid:length');
    const rsa = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'pem', type: 'spki' }) as string;
    expect(codeAndIdsOf(() => publicKeyFromPem(rsa))).toBe('key_invalid:spki');
    const x25519 = generateKeyPairSync('x25519').publicKey.export({ format: 'pem', type: 'spki' }) as string;
    expect(codeAndIdsOf(() => publicKeyFromPem(x25519))).toBe('key_invalid:spki');
    expect(codeAndIdsOf(() => publicKeyFromPem('not a pem'))).toBe('key_invalid:pem');
  });

  it('PEM round-trips and the key id is sha256 of the DER SPKI', () => {
    const k = publicKeyFromPem(publicKeyToPem(pub));
    expect(k.keyId).toBe(keyIdOfRaw(pub));
    const nodePem = generateKeyPairSync('ed25519').publicKey.export({ format: 'pem', type: 'spki' }) as string;
    expect(publicKeyFromPem(nodePem).keyId).toMatch(/^[0-9a-f]{64}$/);
  });
});
