// The primitive formats every governed schema is built from, defined once in zod/mini (the one
// schema language of every format, docs/architecture.md "One definition per format"): the same
// objects serve the full CLI, the cold gate, review-run, the pinned attestor and the pinned
// coverage reviewer, and generate the published JSON Schemas (docs/schemas/). A rule a JSON Schema
// cannot say (a real calendar instant) is a refinement here, named in `description`, so the
// generated schema says it in words. Pure.
import * as z from 'zod/mini';
import { ISO_SECONDS_SHAPE } from './iso-time.js';
import { REFINEMENTS } from './format/refinements.js';
import { DIGEST_RE, GIT_OID_RE, HEX64_RE } from './ids.js';

/** A string matching `re`, optionally bounded in UTF-16 length (as zod counts). */
export function str(o: { readonly re?: RegExp; readonly min?: number; readonly max?: number } = {}) {
  const checks: z.core.$ZodCheck<string>[] = [];
  if (o.min !== undefined) checks.push(z.minLength(o.min));
  if (o.max !== undefined) checks.push(z.maxLength(o.max));
  if (o.re !== undefined) checks.push(z.regex(o.re));
  return checks.length === 0 ? z.string() : z.string().check(...checks);
}

/** A safe integer in [min, max]. */
export function int(min: number = Number.MIN_SAFE_INTEGER, max: number = Number.MAX_SAFE_INTEGER) {
  return z.int().check(z.gte(min), z.lte(max));
}

/** An array of `item` with min..max entries. */
export function list<T extends z.ZodMiniType>(item: T, min: number, max: number) {
  return min > 0 ? z.array(item).check(z.minLength(min), z.maxLength(max)) : z.array(item).check(z.maxLength(max));
}

export const hex64 = str({ re: HEX64_RE });
export const digestString = str({ re: DIGEST_RE });
export const gitId = str({ re: GIT_OID_RE });
/** A count: a safe integer ≥ 0. */
export const count = int(0, Number.MAX_SAFE_INTEGER);

/**
 * Strict ISO seconds naming a real calendar instant (./iso-time.ts: no Feb 30, no 24:00, no leap
 * second). The pattern is the shape a JSON Schema can publish; the calendar rule is the refinement.
 */
export const isoSeconds = z
  .string()
  .check(
    z.regex(ISO_SECONDS_SHAPE),
    z.refine(REFINEMENTS.isIsoSeconds, { message: 'iso_time' }),
    z.meta({ description: 'UTC seconds YYYY-MM-DDTHH:MM:SSZ naming a real calendar instant (governed also refuses Feb 30, hour 24, second 60: src/core/iso-time.ts)' }),
  );
