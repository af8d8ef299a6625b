// The hand-written stat-cache shape check (src/workspace/ws-cache-shape.ts) has exactly the
// acceptance of the zod schema it replaced (kept here as the reference): over valid cache files
// and systematic mutations of every field (removed, retyped, near-miss values, an extra element,
// an unknown key) both accept or both refuse.
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { HEX64_RE } from '../src/core/canonical.js';
import { DEC, isCacheFile } from '../src/workspace/ws-cache-shape.js';

const cacheRow = z.tuple([
  z.string(),
  z.string().check(z.regex(DEC)),
  z.string().check(z.regex(DEC)),
  z.string().check(z.regex(DEC)),
  z.string().check(z.regex(DEC)),
  z.string().check(z.regex(DEC)),
  z.enum(['100644', '100755', '120000']),
  z.string().check(z.regex(HEX64_RE)),
]);
const reference = z.strictObject({ version: z.literal(1), root: z.string(), entries: z.array(cacheRow) });

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const HEX = 'ab'.repeat(32);
const valid: Json[] = [
  { version: 1, root: '/r', entries: [] },
  {
    version: 1,
    root: '/tmp/repo',
    entries: [
      ['a.ts', '2049', '1234567', '0', '1700000000123456789', '1700000000123456789', '100644', HEX],
      ['dir/ünï', '0', '1', '999999999999999999999999', '1', '2', '100755', '0'.repeat(64)],
      ['l', '1', '2', '3', '4', '5', '120000', 'f'.repeat(64)],
    ],
  },
];

const PROBES: Json[] = [
  null, true, false, 0, 1, 2, -1, 1.5, '', 'x', '1', '01', '-1', '1e3', ' 1', '1 ', '0x1', '१',
  '9'.repeat(24), '9'.repeat(25), '100644', '100755', '120000', '100664', '040000', '160000',
  HEX, HEX.toUpperCase(), `${HEX}0`, HEX.slice(1), `${HEX.slice(1)}g`, [], {}, ['x'], { a: 1 },
];

function* mutations(doc: Json, path: string[] = []): Generator<Json> {
  // Rebuild `doc` with the value at `path` replaced via `edit` (undefined = removed).
  if (Array.isArray(doc)) {
    for (let i = 0; i < doc.length; i++) {
      yield doc.filter((_, j) => j !== i);
      for (const p of PROBES) yield doc.map((v, j) => (j === i ? p : v));
      for (const inner of mutations(doc[i] as Json, [...path, String(i)])) yield doc.map((v, j) => (j === i ? inner : v));
    }
    yield [...doc, 'extra'];
    yield [...doc, doc[0] ?? null];
    return;
  }
  if (typeof doc === 'object' && doc !== null) {
    for (const k of Object.keys(doc)) {
      const { [k]: _removed, ...rest } = doc;
      yield rest;
      for (const p of PROBES) yield { ...doc, [k]: p };
      for (const inner of mutations(doc[k] as Json, [...path, k])) yield { ...doc, [k]: inner };
    }
    yield { ...doc, extra: 1 };
    yield JSON.parse(`{"__proto__":{"x":1},${JSON.stringify(doc).slice(1)}`) as Json;
  }
}

describe('stat cache shape check = the zod schema it replaced', () => {
  it('accepts every valid cache file the schema accepts', () => {
    for (const doc of valid) {
      expect(reference.safeParse(doc).success).toBe(true);
      expect(isCacheFile(doc)).toBe(true);
    }
  });

  it('agrees with the schema on hundreds of mutations', () => {
    let count = 0;
    let accepted = 0;
    for (const doc of valid) {
      for (const m of mutations(doc)) {
        const want = reference.safeParse(m).success;
        const got = isCacheFile(m);
        if (got !== want) throw new Error(`disagreement on ${JSON.stringify(m).slice(0, 300)}`);
        count++;
        if (got) accepted++;
      }
    }
    expect(count).toBeGreaterThan(500);
    expect(accepted).toBeGreaterThan(10); // some mutations stay valid (e.g. another path string)
    expect(accepted).toBeLessThan(count);
  });

  it('refuses non-objects and arrays at the top', () => {
    for (const v of [null, 1, 'x', [], [1], true]) {
      expect(isCacheFile(v)).toBe(false);
      expect(reference.safeParse(v).success).toBe(false);
    }
  });
});
