// isCanonicalJsonText (src/core/canonical.ts) on the edges the red team found: its exact fallback
// (canonicalize) escapes a lone surrogate and would have called that text canonical, although RFC
// 8785 and `canonicalJson` refuse it; and nesting deeper than the engine's recursion made
// JSON.stringify throw an uncoded RangeError. Both are now plain "not canonical".
import { describe, expect, it } from 'vitest';
import { canonicalJson, isCanonicalJsonText } from '../src/core/canonical.js';

describe('isCanonicalJsonText edges', () => {
  it.each([
    ['a lone high surrogate', '"\\ud800"'],
    ['a lone low surrogate in a key', '{"\\udc00":1}'],
    ['a lone surrogate below integer-like keys (fallback path)', '{"1":"\\ud800","a":1}'],
  ])('%s is not canonical (canonicalJson refuses the value too)', (_label, text) => {
    expect(isCanonicalJsonText(text).canonical).toBe(false);
    expect(() => canonicalJson(JSON.parse(text))).toThrow();
  });

  it('a well-formed surrogate pair is canonical as raw UTF-8, and integer-like keys still go through the exact path', () => {
    expect(isCanonicalJsonText('"\u{1F600}"').canonical).toBe(true);
    expect(isCanonicalJsonText('{"1":2,"a":1}').canonical).toBe(true);
  });

  it('500,000 nested arrays: not canonical, no exception', () => {
    const deep = `${'['.repeat(500_000)}${']'.repeat(500_000)}`;
    expect(() => isCanonicalJsonText(deep)).not.toThrow();
    expect(isCanonicalJsonText(deep).canonical).toBe(false);
  });

  it('65 levels is beyond governed’s bound; 60 levels is canonical', () => {
    expect(isCanonicalJsonText(`${'['.repeat(60)}${']'.repeat(60)}`).canonical).toBe(true);
    expect(isCanonicalJsonText(`{"1":${'['.repeat(66)}${']'.repeat(66)}}`).canonical).toBe(false);
  });
});
