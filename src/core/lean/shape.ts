// A tiny closed-shape checker for the lean gate path (docs/gate.md#6-the-lean-gate-path: zod
// alone costs about +0.5x of a bare `node -e ''` start, the gate's whole budget). Pure: no I/O.
//
// Each checker mirrors one zod construct the schemas of src/core use (z.strictObject, z.string
// with min/max/regex, z.number().int() with bounds, z.literal, z.enum, z.array with min/max,
// z.record with a key schema, z.union, .optional()), with the same acceptance rule. The lean
// schemas built from it (./schemas.ts) are checked against their zod twins by differential tests
// (test/gate-lean-schemas.test.ts): same inputs, same accept/refuse. A checker returns the path of
// the first problem (`a.b.0.c`, `$` for the root), never a value, or null when the value conforms.
import { isIsoSeconds } from '../iso-time.js';
export type Check = (value: unknown, path: string) => string | null;

const join = (path: string, key: string | number): string => (path === '$' ? String(key) : `${path}.${key}`);

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface StrOptions {
  readonly min?: number;
  readonly max?: number;
  readonly re?: RegExp;
  /** An extra rule (zod `.refine`), evaluated last. */
  readonly refine?: (s: string) => boolean;
}

/** z.string() with .min/.max (UTF-16 length, as zod counts), .regex and .refine. */
export const str =
  (o: StrOptions = {}): Check =>
  (v, path) => {
    if (typeof v !== 'string') return path;
    if (o.min !== undefined && v.length < o.min) return path;
    if (o.max !== undefined && v.length > o.max) return path;
    if (o.re !== undefined && !o.re.test(v)) return path;
    if (o.refine !== undefined && !o.refine(v)) return path;
    return null;
  };

/** A strict ISO-seconds timestamp naming a real calendar instant (../iso-time.ts), as the zod `isoSeconds`. */
export const isoSeconds: Check = str({ refine: isIsoSeconds });

/** z.number().int().min().max(): a finite safe integer within the bounds. */
export const int =
  (min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): Check =>
  (v, path) =>
    typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max ? null : path;

export const bool = (): Check => (v, path) => (typeof v === 'boolean' ? null : path);

export const lit =
  (expected: string | number | boolean | null): Check =>
  (v, path) =>
    v === expected ? null : path;

export const oneOf =
  (values: readonly string[]): Check =>
  (v, path) =>
    typeof v === 'string' && values.includes(v) ? null : path;

export const arr =
  (item: Check, min = 0, max = Number.MAX_SAFE_INTEGER): Check =>
  (v, path) => {
    if (!Array.isArray(v)) return path;
    if (v.length < min || v.length > max) return path;
    for (let i = 0; i < v.length; i++) {
      const bad = item(v[i], join(path, i));
      if (bad !== null) return bad;
    }
    return null;
  };

/** Marks an object field optional (zod `.optional()`): absent is fine, present must conform. */
export interface Optional {
  readonly optional: Check;
}
export const opt = (check: Check): Optional => ({ optional: check });

/**
 * z.strictObject: required and optional keys, nothing else (an unknown key fails at the object).
 * The field list is taken apart once, when the schema is built, not on every check (the gate
 * checks every relied-on receipt's ~80 fields on its cold path, bench/gate).
 */
export const obj = (fields: Readonly<Record<string, Check | Optional>>): Check => {
  const entries = Object.entries(fields).map(([key, field]) =>
    typeof field === 'function' ? { key, check: field, required: true } : { key, check: field.optional, required: false },
  );
  const known = new Set(Object.keys(fields));
  return (v, path) => {
    if (!isPlainObject(v)) return path;
    for (const key in v) if (Object.prototype.hasOwnProperty.call(v, key) && !known.has(key)) return path;
    for (const { key, check, required } of entries) {
      if (!Object.prototype.hasOwnProperty.call(v, key)) {
        if (required) return join(path, key);
        continue;
      }
      const bad = check(v[key], join(path, key));
      if (bad !== null) return bad;
    }
    return null;
  };
};

/** `closedRecord(keySchema, valueSchema)` (src/core/closed-record.ts) over a plain object: an own
 * `__proto__` key is refused whatever the key schema says, as there. */
export const record =
  (key: Check, value: Check): Check =>
  (v, path) => {
    if (!isPlainObject(v)) return path;
    if (Object.prototype.hasOwnProperty.call(v, '__proto__')) return join(path, '__proto__');
    for (const [k, x] of Object.entries(v)) {
      if (key(k, join(path, k)) !== null) return join(path, k);
      const bad = value(x, join(path, k));
      if (bad !== null) return bad;
    }
    return null;
  };

/** z.union: the first alternative that conforms wins; otherwise the path of the value itself. */
export const union =
  (...alternatives: readonly Check[]): Check =>
  (v, path) =>
    alternatives.some((a) => a(v, path) === null) ? null : path;

/** A cross-field rule on a value that already conforms (zod `.refine` on an object). */
export const refine =
  (check: Check, rule: (v: unknown) => boolean): Check =>
  (v, path) =>
    check(v, path) ?? (rule(v) ? null : path);
