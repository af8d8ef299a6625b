// The bundle readers' one error, `Malformed` (docs/reviewers.md), and the hand-written shape checks
// the check reviewers' reader (../check/bundle.ts) still uses. The coverage reviewer's reader
// (./bundle.ts) no longer uses these checks: it parses the bundle with governed's one definition of
// the format (src/core/bundle/schema.ts) and its rules (src/core/bundle/rules.ts). Every object is
// closed: a missing or unknown key is malformed, exactly as docs/schemas/bundle.schema.json says.
// The error never names the offending key or value (docs/threat-model.md#rules-that-hold-everywhere
// "No secrets in output").

import { AUTHORITY_RECORD_ID_RE, CONTRACT_ID_RE, CONTRACT_RELATION_RE, DIGEST_RE, GIT_OID_RE, HEX64_RE, NAME_RE } from '../../../../src/core/ids.js';

/** The bundle is not one this reviewer can trust: exit non-zero with no stdout. */
export class Malformed extends Error {
  constructor() {
    super('bundle_malformed');
  }
}

export function malformed(): never {
  throw new Malformed();
}

export function check(ok: boolean): void {
  if (!ok) malformed();
}

/** A plain object with exactly `required` keys plus any of `optional`. */
export function obj(v: unknown, required: readonly string[], optional: readonly string[] = []): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) malformed();
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  for (const k of required) check(Object.prototype.hasOwnProperty.call(o, k));
  for (const k of keys) check(required.includes(k) || optional.includes(k));
  return o;
}

export function str(v: unknown, re?: RegExp): string {
  if (typeof v !== 'string') malformed();
  if (re !== undefined) check(re.test(v));
  return v;
}

export function bool(v: unknown): boolean {
  if (typeof v !== 'boolean') malformed();
  return v;
}

export function int(v: unknown, min = 0): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) malformed();
  return v;
}

export function oneOf<T extends string>(v: unknown, values: readonly T[]): T {
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) malformed();
  return v as T;
}

export function arr<T>(v: unknown, item: (x: unknown) => T): T[] {
  if (!Array.isArray(v)) malformed();
  return v.map((x) => item(x));
}

export function nullable<T>(v: unknown, item: (x: unknown) => T): T | null {
  return v === null ? null : item(v);
}

// The ID alphabet of docs/contract.md#validation-rules and the relation form of docs/bundle.md#coverage (docs/schemas/bundle.schema.json).
export const ID_RE = CONTRACT_ID_RE;
export const RECORD_ID_RE = AUTHORITY_RECORD_ID_RE;
export const RELATION_RE = CONTRACT_RELATION_RE;
export { DIGEST_RE };
export { HEX64_RE };
export { GIT_OID_RE };
export const SLOT_RE = NAME_RE;
export const BASE64_RE = /^$|^(?:[0-9a-zA-Z+/]{4})*(?:(?:[0-9a-zA-Z+/]{2}==)|(?:[0-9a-zA-Z+/]{3}=))?$/;

export const id = (v: unknown): string => str(v, ID_RE);
export const idOrRelation = (v: unknown): string => {
  const s = str(v);
  check(ID_RE.test(s) || RELATION_RE.test(s));
  return s;
};
export const path = (v: unknown): string => {
  const s = str(v);
  check(s.length >= 1 && s.length <= 4096);
  return s;
};
