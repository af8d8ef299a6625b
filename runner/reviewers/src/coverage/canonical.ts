// A tiny RFC 8785 (JCS) serializer for the coverage reviewer (docs/reviewers.md#reviewer-output: stdout must be exactly the
// canonical form of one object). The reviewer is a pinned, self-contained program (docs/formats.md#attestors), so it
// cannot load governed's `canonicalize` dependency; its values are a closed domain — strings, safe
// integers, booleans, null, arrays and plain objects (booleans and null only occur in the bundle,
// whose canonical form is re-checked on input) — for which RFC 8785 reduces to:
//   - strings: ECMAScript JSON.stringify of a well-formed string (RFC 8785 §3.2.2.2);
//   - integers: their shortest decimal form, which JSON.stringify gives for safe integers (RFC 8785 §3.2.2.3);
//   - object keys sorted by UTF-16 code units (RFC 8785 §3.2.3), which is Array.prototype.sort's default order;
//   - no whitespace.
// test/reviewer-coverage-canonical.test.ts checks it byte for byte against governed's canonicalJson.

export type JcsValue = string | number | boolean | null | readonly JcsValue[] | { readonly [key: string]: JcsValue };

/** Thrown for a value outside the domain; the message is fixed and never carries the value. */
export class NotCanonicalizable extends Error {
  constructor() {
    super('value_not_canonicalizable');
  }
}

import { JSON_MAX_DEPTH as MAX_DEPTH } from '../../../../src/core/limits.js';

function isWellFormed(s: string): boolean {
  // String.prototype.isWellFormed is native in Node 20 (V8 >= 11.1).
  return (s as string & { isWellFormed(): boolean }).isWellFormed();
}

function write(value: unknown, depth: number, out: string[]): void {
  if (depth > MAX_DEPTH) throw new NotCanonicalizable();
  if (value === null || value === true || value === false) {
    out.push(String(value));
    return;
  }
  if (typeof value === 'string') {
    if (!isWellFormed(value)) throw new NotCanonicalizable();
    out.push(JSON.stringify(value));
    return;
  }
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || Object.is(value, -0)) throw new NotCanonicalizable();
    out.push(String(value));
    return;
  }
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) throw new NotCanonicalizable();
      if (i > 0) out.push(',');
      write(value[i], depth + 1, out);
    }
    out.push(']');
    return;
  }
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) throw new NotCanonicalizable();
    const keys = Object.keys(value).sort();
    out.push('{');
    keys.forEach((k, i) => {
      if (!isWellFormed(k)) throw new NotCanonicalizable();
      if (i > 0) out.push(',');
      out.push(JSON.stringify(k), ':');
      write((value as Record<string, unknown>)[k], depth + 1, out);
    });
    out.push('}');
    return;
  }
  throw new NotCanonicalizable();
}

/** The RFC 8785 text of `value`. */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  write(value, 0, out);
  return out.join('');
}

/** Order by UTF-8 bytes (docs/reviewers.md#reviewer-output "every list sorted (by UTF-8 bytes)"). */
export function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** True when `list` is strictly increasing by UTF-8 bytes (sorted and unique). */
export function isSortedUnique(list: readonly string[]): boolean {
  for (let i = 1; i < list.length; i++) if (compareUtf8(list[i - 1] as string, list[i] as string) >= 0) return false;
  return true;
}
