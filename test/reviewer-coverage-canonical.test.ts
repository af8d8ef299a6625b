// The coverage reviewer's own small parts: its local RFC 8785 serializer, tested byte for byte
// against governed's canonicalJson (docs/reviewers.md#reviewer-output requires the exact canonical bytes, and the reviewer
// may not load governed's dependency), its UTF-8 ordering against governed's compareUtf8, and the
// reference rules of runner/reviewers/src/coverage/references.ts.
import { describe, expect, it } from 'vitest';
import { canonicalJson as governedCanonical } from '../src/core/canonical.js';
import { compareUtf8 as governedCompare } from '../src/core/contract/ids.js';
import { canonicalJson, compareUtf8, isSortedUnique, NotCanonicalizable } from '../runner/reviewers/src/coverage/canonical.js';
import { finalizeFindings, finding, InvalidFinding } from '../runner/reviewers/src/coverage/findings.js';
import { hasIdToken, namesPath, ReferenceGraph, resolveRelative, variants } from '../runner/reviewers/src/coverage/references.js';

/** Deterministic PRNG (mulberry32) so a failure is reproducible. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Characters that stress JCS: controls (escaped as \uXXXX or \n…), quote and backslash, DEL, the
// line/paragraph separators (NOT escaped by JCS), non-ASCII BMP, U+FFFF, and astral pairs (which
// sort by UTF-16 code units below U+FFFF in keys).
const ALPHABET = ['a', 'Z', '0', ' ', '"', '\\', '/', '\u0000', '\u0001', '\u001f', '\n', '\t', '\u007f', '\u2028', '\u2029', 'é', '\u00ff', '\ufb01', '\uffff', '😀', '\u{10ffff}', '中'];

function randomString(r: () => number): string {
  const n = Math.floor(r() * 6);
  let s = '';
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(r() * ALPHABET.length)] as string;
  return s;
}

function randomValue(r: () => number, depth: number): unknown {
  const pick = Math.floor(r() * (depth > 3 ? 5 : 7));
  switch (pick) {
    case 0:
      return randomString(r);
    case 1:
      return Math.floor((r() - 0.5) * 2 * Number.MAX_SAFE_INTEGER);
    case 2:
      return [0, 1, -1, 10, 1e15, -(2 ** 53 - 1)][Math.floor(r() * 6)];
    case 3:
      return r() < 0.5;
    case 4:
      return null;
    case 5:
      return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = Math.floor(r() * 5); i > 0; i--) o[randomString(r)] = randomValue(r, depth + 1);
      return o;
    }
  }
}

describe('local RFC 8785 serializer', () => {
  it('matches governed canonicalJson byte for byte on 2,000 random values', () => {
    const r = rng(0xc0ffee);
    for (let i = 0; i < 2000; i++) {
      const v = randomValue(r, 0);
      expect(canonicalJson(v)).toBe(governedCanonical(v as never));
    }
  });

  it('matches on the review-output shape and orders keys by UTF-16 code units', () => {
    const out = {
      verdict: 'DIRTY',
      schema: 'governed.review-output/v1',
      findings: [{ severity: 'HIGH', refs: ['DIR-1', 'EVD-1'], code: 'trace_gap', class: 'correctness' }],
      coverage: { relations: ['ATOM-1>DIR-1'], atoms: ['ATOM-1'], surfaces: [] },
    };
    expect(canonicalJson(out)).toBe(governedCanonical(out));
    expect(canonicalJson(out)).toBe(
      '{"coverage":{"atoms":["ATOM-1"],"relations":["ATOM-1>DIR-1"],"surfaces":[]},"findings":[{"class":"correctness","code":"trace_gap","refs":["DIR-1","EVD-1"],"severity":"HIGH"}],"schema":"governed.review-output/v1","verdict":"DIRTY"}',
    );
    // U+FFFF sorts after an astral character in UTF-16 (0xD83D < 0xFFFF) though not in code points.
    const keys = { '\uffff': 1, '😀': 2, é: 3 };
    expect(canonicalJson(keys)).toBe(governedCanonical(keys));
    expect(canonicalJson(keys)).toBe('{"é":3,"😀":2,"\uffff":1}');
  });

  it('refuses what is outside the domain, with a message that carries no value', () => {
    const sparse: unknown[] = [];
    sparse[1] = 1;
    for (const bad of [1.5, -0, NaN, Infinity, 2 ** 53, undefined, () => 1, new Date(0), Symbol('x'), 1n, '\ud800', { '\udc00': 1 }, sparse]) {
      let err: unknown;
      try {
        canonicalJson(bad);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(NotCanonicalizable);
      expect((err as Error).message).toBe('value_not_canonicalizable');
    }
    let deep: unknown = 'x';
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(() => canonicalJson(deep)).toThrow(NotCanonicalizable);
  });

  it('orders strings by UTF-8 bytes exactly as governed does', () => {
    const r = rng(7);
    for (let i = 0; i < 2000; i++) {
      const a = randomString(r);
      const b = randomString(r);
      expect(Math.sign(compareUtf8(a, b))).toBe(Math.sign(governedCompare(a, b)));
    }
    expect(isSortedUnique(['A', 'B', 'a'])).toBe(true);
    expect(isSortedUnique(['a', 'a'])).toBe(false);
    expect(isSortedUnique(['\uffff', '😀'])).toBe(true); // UTF-8: EF BF BF < F0 9F 98 80
  });
});

describe('findings', () => {
  it('sorts and de-duplicates refs, and refuses 0 or more than 4', () => {
    expect(finding('trace_gap', 'correctness', 'HIGH', ['EVD-1', 'DIR-1', 'EVD-1']).refs).toEqual(['DIR-1', 'EVD-1']);
    expect(() => finding('trace_gap', 'correctness', 'HIGH', [])).toThrow(InvalidFinding);
    expect(() => finding('trace_gap', 'correctness', 'HIGH', ['A1-1', 'A1-2', 'A1-3', 'A1-4', 'A1-5'])).toThrow(InvalidFinding);
  });

  it('refuses a ref that is not an ID of the view, and collapses duplicates', () => {
    const f = finding('trace_gap', 'correctness', 'HIGH', ['DIR-1']);
    expect(() => finalizeFindings([f], new Set(['DIR-2']))).toThrow(InvalidFinding);
    expect(finalizeFindings([f, finding('trace_gap', 'correctness', 'HIGH', ['DIR-1'])], new Set(['DIR-1']))).toHaveLength(1);
  });
});

describe('references', () => {
  it('resolves relative specifiers inside the repository only', () => {
    expect(resolveRelative('test', '../src/export.js')).toBe('src/export.js');
    expect(resolveRelative('test/unit', './../../src/./a.ts')).toBe('src/a.ts');
    expect(resolveRelative('test', '../../outside.ts')).toBeNull();
    expect(resolveRelative('', '..')).toBeNull();
    expect(variants('src/export.js')).toEqual(expect.arrayContaining(['src/export.js', 'src/export.ts', 'src/export.tsx']));
    expect(variants('src/lib')).toEqual(expect.arrayContaining(['src/lib.ts', 'src/lib/index.ts', 'src/lib.mjs']));
    expect(variants('src/x.mjs')).toContain('src/x.mts');
  });

  it('a path is named only as a whole token', () => {
    expect(namesPath('node bin/tool.mjs --version', 'bin/tool.mjs')).toBe(true);
    expect(namesPath("spawn('../bin/tool.mjs')", 'bin/tool.mjs')).toBe(true);
    expect(namesPath('see bin/tool.mjs.', 'bin/tool.mjs')).toBe(true);
    expect(namesPath('sbin/tool.mjs', 'bin/tool.mjs')).toBe(false);
    expect(namesPath('bin/tool.mjsx', 'bin/tool.mjs')).toBe(false);
    expect(namesPath('bin/tool.mjs.orig', 'bin/tool.mjs')).toBe(false);
    expect(namesPath('bin/tool.mjs/', 'bin/tool.mjs')).toBe(false);
    expect(namesPath('x bin/tool.mjs.orig and bin/tool.mjs', 'bin/tool.mjs')).toBe(true);
  });

  it('an ID is named only as a whole ID', () => {
    expect(hasIdToken("it('AC-1: csv')", 'AC-1')).toBe(true);
    expect(hasIdToken('covers AC-1.', 'AC-1')).toBe(true);
    expect(hasIdToken('AC-10', 'AC-1')).toBe(false);
    expect(hasIdToken('XAC-1', 'AC-1')).toBe(false);
    expect(hasIdToken('AC-1.2', 'AC-1')).toBe(false);
    expect(hasIdToken('AC-1_x', 'AC-1')).toBe(false);
  });

  it('follows JS/TS imports, requires, dynamic imports, re-exports and path aliases, transitively', () => {
    const g = new ReferenceGraph([
      { path: 'test/a.test.ts', text: "import { run } from '../src/cli.js';" },
      { path: 'src/cli.ts', text: "export * from './cmd';\nconst m = await import(\"./lazy.mjs\");" },
      { path: 'src/cmd/index.ts', text: "const x = require('src/impl');" },
      { path: 'src/lazy.mts', text: '' },
      { path: 'src/impl.ts', text: 'export const impl = 1;' },
      { path: 'test/b.test.ts', text: "// don't import './nothing'\nimport x from 'vitest';" },
    ]);
    expect(g.references(['test/a.test.ts'], ['src/impl.ts'])).toBe(true);
    expect(g.references(['test/a.test.ts'], ['src/lazy.mts'])).toBe(true);
    expect(g.references(['test/b.test.ts'], ['src/impl.ts'])).toBe(false);
    expect(g.references(['src/impl.ts'], ['src/cli.ts'])).toBe(false); // edges have a direction
    expect(g.references(['test/a.test.ts'], [])).toBe(false);
  });

  it('follows Python imports by dotted suffix', () => {
    const g = new ReferenceGraph([
      { path: 'tests/test_x.py', text: 'import os, pkg.mod\n' },
      { path: 'tests/test_y.py', text: 'from pkg import sub\n' },
      { path: 'tests/test_z.py', text: '    from .helpers import thing\n' },
      { path: 'src/pkg/mod.py', text: '' },
      { path: 'src/pkg/__init__.py', text: '' },
      { path: 'tests/helpers.py', text: '' },
    ]);
    expect(g.references(['tests/test_x.py'], ['src/pkg/mod.py'])).toBe(true);
    expect(g.references(['tests/test_y.py'], ['src/pkg/__init__.py'])).toBe(true);
    expect(g.references(['tests/test_y.py'], ['src/pkg/mod.py'])).toBe(false);
    expect(g.references(['tests/test_z.py'], ['tests/helpers.py'])).toBe(true);
  });

  it('never counts a file as referencing itself, even through a cycle', () => {
    const g = new ReferenceGraph([
      { path: 'src/a.ts', text: "import './b.js';" },
      { path: 'src/b.ts', text: "import './a.js';" },
    ]);
    expect(g.references(['src/a.ts'], ['src/a.ts'])).toBe(false);
    expect(g.references(['src/a.ts'], ['src/a.ts', 'src/b.ts'])).toBe(true);
  });
});
