// src/protocols/shared: token rule, Jaccard, line distance, stable hashing (docs/review-pass-protocol.md#matching-rules, docs/review-pass-protocol.md#suppression).
import { describe, expect, it } from 'vitest';
import {
  digestOfSet,
  jaccardSimilarity,
  lineDistance,
  lineRangeDigest,
  linesWithin,
  meaningfulTokens,
  stableDigest,
  textSimilarity,
  wholeTextDigest,
} from '../src/protocols/shared/index.js';

describe('meaningfulTokens (docs/review-pass-protocol.md#meaningful-tokens)', () => {
  it.each([
    ['Null check missing on user input', ['check', 'input', 'missing', 'null', 'user']],
    ['the an of to in is it', []], // stop words and < 3 chars
    ['line 42 and 1337 lines', []], // numbers and format vocabulary
    ['CRITICAL preservation finding', []],
    ['parseConfig() returns undefined', ['parseconfig', 'returns', 'undefined']],
    ['foo.bar_baz(qux)', ['bar_baz', 'foo', 'qux']],
    ['Ｎｕｌｌ pointer', ['null', 'pointer']], // NFKC folds full-width forms
    ['retry retry RETRY', ['retry']],
  ])('%s', (text, expected) => {
    expect(meaningfulTokens(text)).toEqual(expected);
  });
});

describe('jaccardSimilarity', () => {
  it.each([
    [['a1x', 'b2y'], ['a1x', 'b2y'], 1],
    [['aaa', 'bbb'], ['ccc'], 0],
    [['aaa', 'bbb', 'ccc'], ['aaa', 'bbb', 'ddd'], 0.5],
    [['aaa', 'bbb', 'ccc'], ['aaa', 'bbb', 'ccc', 'ddd'], 0.75],
    [[], [], 0],
    [['aaa', 'aaa'], ['aaa'], 1],
  ])('%j vs %j = %d', (a, b, expected) => {
    expect(jaccardSimilarity(a, b)).toBe(expected);
  });

  it('textSimilarity applies the token rule first', () => {
    expect(textSimilarity('Missing null check on input', 'missing NULL check for the input')).toBe(1);
    expect(textSimilarity('off-by-one in loop bound', 'unused import of lodash')).toBe(0);
  });
});

describe('lineDistance / linesWithin (docs/review-pass-protocol.md#the-line-distance-rule)', () => {
  it.each([
    [10, 29, 19, true],
    [10, 30, 20, false],
    [30, 10, 20, false],
    [5, 5, 0, true],
    [null, 5, null, false],
    [5, null, null, false],
  ])('%s, %s', (a, b, d, within) => {
    expect(lineDistance(a, b)).toBe(d);
    expect(linesWithin(a, b, 20)).toBe(within);
  });
});

describe('stable hashing', () => {
  it('digestOfSet is order- and duplicate-independent', () => {
    expect(digestOfSet(['b', 'a', 'b'])).toBe(digestOfSet(['a', 'b']));
    expect(digestOfSet(['a'])).not.toBe(digestOfSet(['a', 'b']));
    expect(stableDigest({ b: 1, a: 2 })).toBe(stableDigest({ a: 2, b: 1 }));
  });

  it('lineRangeDigest covers exactly the range; invalid ranges are null', () => {
    const text = ['l1', 'l2', 'l3', 'l4'].join('\n');
    const base = lineRangeDigest(text, 2, 3);
    expect(base).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(lineRangeDigest(['l1', 'l2', 'l3', 'CHANGED'].join('\n'), 2, 3)).toBe(base);
    expect(lineRangeDigest(['l1', 'CHANGED', 'l3', 'l4'].join('\n'), 2, 3)).not.toBe(base);
    expect(lineRangeDigest(text, 5, 9)).toBeNull();
    expect(lineRangeDigest(text, 0, 3)).toBeNull();
    expect(lineRangeDigest(text, 3, 2)).toBeNull();
    // end beyond EOF is clamped; appending inside the window changes the digest
    expect(lineRangeDigest(`${text}\nl5`, 3, 10)).not.toBe(lineRangeDigest(text, 3, 10));
    expect(wholeTextDigest('x')).toBe('sha256:2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881');
  });
});
