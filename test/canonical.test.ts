import { describe, it, expect } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { jcs, canonicalJson, digestOf, sha256Digest } from '../src/core/canonical.js';
import { parseJsonStrict, parseYamlStrict } from '../src/core/strict-parse.js';
import { codeOf } from './helpers/codes.js';
import { REPO_ROOT } from './helpers/cli.js';


describe('RFC 8785 vectors (test/vectors/jcs, copied from shared/vectors)', () => {
  const dir = join(REPO_ROOT, 'test', 'vectors', 'jcs');
  const names = readdirSync(join(dir, 'input')).filter((f) => f.endsWith('.json'));
  it('has all six reference files', () => expect(names.sort()).toEqual(['arrays.json', 'french.json', 'structures.json', 'unicode.json', 'values.json', 'weird.json']));
  for (const name of names) {
    it(`canonicalizes ${name} byte-exactly`, () => {
      const input = JSON.parse(readFileSync(join(dir, 'input', name), 'utf8'));
      const expected = readFileSync(join(dir, 'output', name));
      expect(Buffer.from(jcs(input), 'utf8').equals(expected)).toBe(true);
    });
  }
});

describe('canonical domain', () => {
  it.each([
    ['float', { a: 1.5 }],
    ['unsafe integer', { a: 2 ** 53 }],
    ['negative zero', { a: -0 }],
    ['lone high surrogate', { a: '\uD800' }],
    ['lone low surrogate in key', { '\uDC00': 1 }],
    ['undefined', { a: undefined }],
    ['function', { a: () => 1 }],
    ['Date', { a: new Date(0) }],
    ['sparse array', [1, , 3]],
    ['NaN', [Number.NaN]],
  ])('refuses %s', (_name, value) => {
    expect(codeOf(() => canonicalJson(value))).toBe('value_not_canonicalizable');
  });
  it('accepts the domain and sorts keys by UTF-16 code units', () => {
    expect(canonicalJson({ b: [true, null, 'x'], a: -5, '\u00e9': 'é', A: 0 })).toBe('{"A":0,"a":-5,"b":[true,null,"x"],"é":"é"}');
  });
  it('digests are sha256 over the canonical bytes', () => {
    expect(digestOf({ b: 1, a: 2 })).toBe(sha256Digest('{"a":2,"b":1}'));
    expect(digestOf({ a: 2, b: 1 })).toBe(digestOf({ b: 1, a: 2 }));
    expect(digestOf({ a: 1 })).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

describe('strict JSON', () => {
  it('parses what JSON.parse parses, in the domain', () => {
    const text = '{"a":[1,2,{"b":"\\u00e9\\n"}],"c":null,"d":true,"e":-0e0}';
    expect(codeOf(() => parseJsonStrict(text))).toBe('value_not_canonicalizable'); // -0
    expect(parseJsonStrict('{"a":[1,2,{"b":"\\u00e9\\n"}],"c":null,"d":false}')).toEqual({ a: [1, 2, { b: 'é\n' }], c: null, d: false });
  });
  it('refuses duplicate keys, also nested and via escapes', () => {
    expect(codeOf(() => parseJsonStrict('{"a":1,"a":2}'))).toBe('json_duplicate_key');
    expect(codeOf(() => parseJsonStrict('{"x":{"a":1,"\\u0061":2}}'))).toBe('json_duplicate_key');
  });
  it('keeps __proto__ as plain data', () => {
    const v = parseJsonStrict('{"__proto__":{"polluted":1}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(canonicalJson(v)).toBe('{"__proto__":{"polluted":1}}');
  });
  it.each(['', '{', '{"a":1,}', '[1,]', "{'a':1}", '{"a":01}', '{"a":1} x', 'nul', '"\u0001"', '{"a":NaN}'])('refuses malformed %j', (t) => {
    expect(codeOf(() => parseJsonStrict(t))).toBe('json_invalid');
  });
  it('refuses floats and lone surrogates from text', () => {
    expect(codeOf(() => parseJsonStrict('{"a":1.5}'))).toBe('value_not_canonicalizable');
    expect(codeOf(() => parseJsonStrict('{"a":"\\ud800"}'))).toBe('value_not_canonicalizable');
  });
});

describe('strict YAML', () => {
  it('parses plain YAML', () => {
    expect(parseYamlStrict('a: 1\nb: [x, "y"]\nc: { d: null }\n')).toEqual({ a: 1, b: ['x', 'y'], c: { d: null } });
  });
  it('refuses duplicate keys', () => {
    expect(codeOf(() => parseYamlStrict('a: 1\na: 2\n'))).toBe('yaml_duplicate_key');
  });
  it.each([
    ['anchor and alias', 'a: &x 1\nb: *x\n'],
    ['merge key', 'base: &b { x: 1 }\nc:\n  <<: *b\n'],
    ['bare merge key', 'c:\n  <<: { x: 1 }\n'],
    ['explicit tag', 'a: !!str 1\n'],
    ['custom tag', 'a: !foo 1\n'],
  ])('refuses %s', (_n, text) => {
    expect(codeOf(() => parseYamlStrict(text))).toBe('yaml_alias_refused');
  });
  it('refuses floats and malformed YAML', () => {
    expect(codeOf(() => parseYamlStrict('a: 1.5\n'))).toBe('value_not_canonicalizable');
    expect(codeOf(() => parseYamlStrict('a: [1, 2\n'))).toBe('yaml_invalid');
  });
});

import { isCanonicalJsonText } from '../src/core/canonical.js';
import { randomInt } from 'node:crypto';

describe('isCanonicalJsonText (the verify fast path) agrees with canonicalize', () => {
  const pick = <T>(a: readonly T[]): T => a[randomInt(a.length)] as T;
  const strings = ['', 'a', 'B', 'é', '\u20ac', '\ud83d\ude00', 'a"b', 'back\\slash', '\n\t\u0001', '10', '9', '__proto__', 'Z', 'aa'];
  const gen = (d: number): unknown => {
    const r = randomInt(d > 3 ? 4 : 7);
    if (r === 0) return pick(strings);
    if (r === 1) return pick([0, 1, -1, 42, 2 ** 53 - 1, -(2 ** 53 - 1), 1e21, 0.5, -0.25, 1e-7]);
    if (r === 2) return pick([true, false, null]);
    if (r === 3) return pick(strings) + String(randomInt(1000));
    if (r === 4) return Array.from({ length: randomInt(4) }, () => gen(d + 1));
    const o: Record<string, unknown> = {};
    for (let i = randomInt(5); i > 0; i--) o[pick(strings)] = gen(d + 1);
    return o;
  };
  it('accepts exactly the canonical text of 2,000 random values, and refuses perturbations', () => {
    for (let i = 0; i < 2000; i++) {
      const v = gen(0);
      const c = jcs(v);
      expect(isCanonicalJsonText(c).canonical).toBe(true);
      const pretty = JSON.stringify(v, null, 1);
      expect(isCanonicalJsonText(pretty).canonical).toBe(pretty === c);
      const plain = JSON.stringify(v);
      expect(isCanonicalJsonText(plain).canonical).toBe(plain === c);
    }
  });
  it('integer-like keys (reordered by JS objects) are still judged exactly', () => {
    expect(isCanonicalJsonText('{"10":1,"9":2}').canonical).toBe(true);
    expect(isCanonicalJsonText('{"9":2,"10":1}').canonical).toBe(false);
  });
  it('duplicate keys, lone surrogates, whitespace and escapes are refused', () => {
    expect(isCanonicalJsonText('{"a":1,"a":1}').canonical).toBe(false);
    expect(isCanonicalJsonText('{"a":"\\ud800"}').canonical).toBe(false);
    expect(isCanonicalJsonText('{"a": 1}').canonical).toBe(false);
    expect(isCanonicalJsonText('{"a":"\\u0041"}').canonical).toBe(false);
    expect(isCanonicalJsonText('{"a":1.0}').canonical).toBe(false);
    expect(isCanonicalJsonText('{"a":1}\n').canonical).toBe(false);
  });
});
