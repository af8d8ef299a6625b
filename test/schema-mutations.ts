// Systematic mutations of a valid JSON value (each field removed, retyped, out of range, near-misses
// of its format, an unknown key at every level, arrays resized), for the mutation tests of the one
// schema of each format (test/gate-vsa-bounds-edges.test.ts, test/iso-time-calendar.test.ts, …).
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const INT_BOUNDS = [-1, 0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 99, 100, 101, 255, 256, 257, 4096, 4097, 4194304, 4194305, 4294967294, 4294967295, Number.MAX_SAFE_INTEGER, 1.5];
const LENGTHS = [0, 1, 2, 24, 25, 31, 32, 33, 36, 40, 63, 64, 65, 128, 199, 200, 201, 256, 257, 500, 501, 4096, 4097];
const PROBES: readonly Json[] = [null, true, false, ...INT_BOUNDS, '', 'x', [], {}, ['x'], { a: 1 }, ...LENGTHS.map((n) => 'a'.repeat(n))];

/**
 * Impossible calendar instants in the exact `YYYY-MM-DDTHH:MM:SSZ` shape (a regex passes them and
 * `Date.parse` rolls them over: Feb 30 → Mar 2), and real edge instants that must stay accepted
 * (leap days of 2000 and 2028, the last second of a year). src/core/iso-time.ts is the rule.
 */
export const IMPOSSIBLE_ISO_TIMES = [
  '2026-02-30T00:00:00Z', '2026-02-29T00:00:00Z', '1900-02-29T00:00:00Z', '2026-13-01T00:00:00Z', '2026-00-10T00:00:00Z',
  '2026-04-31T00:00:00Z', '2026-06-31T00:00:00Z', '2026-01-32T00:00:00Z', '2026-01-00T00:00:00Z', '2026-01-01T24:00:00Z',
  '2026-01-01T23:60:00Z', '2026-12-31T23:59:60Z', '2026-01-01T99:99:99Z',
] as const;
export const EDGE_VALID_ISO_TIMES = ['2000-02-29T00:00:00Z', '2028-02-29T12:00:00Z', '2026-12-31T23:59:59Z', '2026-01-01T00:00:00Z'] as const;
const ISO_SHAPE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** Probes derived from the value itself: its neighbours, and near-misses of its format. */
function near(v: Json): Json[] {
  if (typeof v === 'number') return [v - 1, v + 1, -v];
  if (typeof v !== 'string') return [];
  // A time field also gets every impossible date and the real edge dates.
  const times: Json[] = ISO_SHAPE.test(v) ? [...IMPOSSIBLE_ISO_TIMES, ...EDGE_VALID_ISO_TIMES] : [];
  return [
    ...times,
    `${v}a`,
    `${v}0`,
    `${v}-`,
    v.slice(0, -1),
    v.slice(1),
    v.toUpperCase(),
    v.toLowerCase(),
    ` ${v}`,
    `${v}\n`,
    v.replace(/[0-9a-f]/, 'g'),
    v.replace(/-/, '_'),
    v.replace(/_/, '-'),
    // a hyphen inside a name (a slot like `lint-strict`: once accepted by zod, refused by a lean pattern)
    `${v.slice(0, 1)}-${v.slice(1)}`,
    v.replace(/[a-z]$/, '-'),
    v.replace(/:/, '-'),
    v.replace(/Z$/, '+00:00'),
    v.replace(/^\/usr/, '/opt'),
    v.replace(/^\//, ''),
    v.replace(/[a-z]/, '.'),
    v.replace(/=+$/, ''),
    `${v}/..`,
    `${v}\0`,
  ];
}

/** Every mutation of `doc`: each field removed, replaced by each probe, and an unknown key at each object. */
export function* mutations(doc: Json, path: string[] = []): Generator<[string, Json]> {
  const at = (p: string[]): string => p.join('.') || '$';
  if (Array.isArray(doc)) {
    for (let i = 0; i < doc.length; i++) {
      for (const [label, m] of mutations(doc[i] as Json, [...path, String(i)])) {
        const copy = [...doc];
        copy[i] = m;
        yield [label, copy];
      }
    }
    for (const n of [0, 1, 2, 4, 5, 16, 17, 33, 65]) yield [`${at(path)}*${n}`, Array.from({ length: n }, (_, i) => doc[i % Math.max(1, doc.length)] ?? 'x')];
    yield [`${at(path)}-last`, doc.slice(0, -1)];
    return;
  }
  if (doc !== null && typeof doc === 'object') {
    yield [`${at(path)}+unknown`, { ...doc, unknown_key: 1 }];
    // An own `__proto__` key, as the strict JSON parser makes it (zod's record silently drops one).
    yield [`${at(path)}+__proto__`, JSON.parse(JSON.stringify(doc).replace(/^\{/, Object.keys(doc).length === 0 ? '{"__proto__":{}' : '{"__proto__":{},')) as Json];
    for (const key of Object.keys(doc)) {
      const { [key]: removed, ...rest } = doc;
      yield [`${at([...path, key])}-removed`, rest];
      for (const [label, m] of mutations(removed as Json, [...path, key])) yield [label, { ...doc, [key]: m }];
    }
    return;
  }
  for (const p of [...PROBES, ...near(doc)]) if (p !== doc) yield [`${at(path)}=${JSON.stringify(p).slice(0, 12)}`, p];
}
