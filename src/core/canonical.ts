// Canonical JSON and digests (docs/threat-model.md#rules-that-hold-everywhere "Canonical digests"): every digest over structured data is
// SHA-256 over RFC 8785 (JCS) bytes, written `sha256:<64 hex>`.
//
// canonicalize@4 has known deviations on non-JSON inputs (functions, sparse arrays, undefined;
// docs/architecture.md#canonical-data), so governed only canonicalizes values that passed `assertCanonicalDomain`:
// strings without lone surrogates, safe integers, booleans, null, arrays and plain objects.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { fail } from './errors.js';
import { DIGEST_RE, HEX64_RE } from './ids.js';

export type CanonicalValue =
  | string
  | number
  | boolean
  | null
  | readonly CanonicalValue[]
  | { readonly [key: string]: CanonicalValue };

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// String.prototype.isWellFormed is native in Node 20+ (V8 ≥ 11.1); the regex is the fallback.
const nativeIsWellFormed = (String.prototype as { isWellFormed?: () => boolean }).isWellFormed;

/** True when `s` is well-formed UTF-16 (no lone surrogate), so it has one UTF-8 encoding. */
export function isWellFormedString(s: string): boolean {
  return nativeIsWellFormed !== undefined ? nativeIsWellFormed.call(s) : !LONE_SURROGATE.test(s);
}

/**
 * Refuse anything outside governed's value domain. The error names the JSON path only (never the
 * value). Depth is bounded so a hostile input cannot blow the stack.
 */
export function assertCanonicalDomain(value: unknown, path = '$', depth = 0): asserts value is CanonicalValue {
  if (depth > 64) fail('value_not_canonicalizable', [path]);
  if (value === null || typeof value === 'boolean') return;
  if (typeof value === 'string') {
    if (!isWellFormedString(value)) fail('value_not_canonicalizable', [path]);
    return;
  }
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || Object.is(value, -0)) fail('value_not_canonicalizable', [path]);
    return;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) fail('value_not_canonicalizable', [`${path}[${i}]`]);
      assertCanonicalDomain(value[i], `${path}[${i}]`, depth + 1);
    }
    return;
  }
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) fail('value_not_canonicalizable', [path]);
    for (const key of Object.keys(value)) {
      if (!isWellFormedString(key)) fail('value_not_canonicalizable', [path]);
      assertCanonicalDomain((value as Record<string, unknown>)[key], `${path}.${key}`, depth + 1);
    }
    return;
  }
  fail('value_not_canonicalizable', [path]);
}

/** RFC 8785 text of any JSON.parse-produced value (used for the JCS vectors and payload checks). */
export function jcs(value: unknown): string {
  const out = canonicalize(value);
  if (typeof out !== 'string') fail('value_not_canonicalizable', ['$']);
  return out;
}

/**
 * Keys strictly increasing by UTF-16 code units in every object (Object.keys order) and every
 * string well-formed. Together with `JSON.stringify(value) === text` this proves `text` is the
 * RFC 8785 form: stringify already emits ES number and string forms with no whitespace.
 */
function keysSortedAndWellFormed(value: unknown, depth: number): boolean {
  if (depth > 64) return false;
  if (typeof value === 'string') return isWellFormedString(value);
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) {
    for (const v of value) if (!keysSortedAndWellFormed(v, depth + 1)) return false;
    return true;
  }
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    if (i > 0 && !((keys[i - 1] as string) < k)) return false;
    if (!isWellFormedString(k)) return false;
    if (!keysSortedAndWellFormed((value as Record<string, unknown>)[k], depth + 1)) return false;
  }
  return true;
}

/** Every string (keys included) well-formed, within governed's nesting bound (64 levels). */
function stringsWellFormed(value: unknown, depth: number): boolean {
  if (depth > 64) return false;
  if (typeof value === 'string') return isWellFormedString(value);
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) return value.every((v) => stringsWellFormed(v, depth + 1));
  return Object.entries(value).every(([k, v]) => isWellFormedString(k) && stringsWellFormed(v, depth + 1));
}

/**
 * True iff `text` is exactly the RFC 8785 form of the JSON value it parses to. Fast path: native
 * JSON.stringify round-trip plus a key-order walk. Anything the fast path cannot prove (e.g.
 * integer-like keys, which JS objects reorder) is decided exactly by `jcs` — so the fast path can
 * only cause extra work, never a false "canonical".
 */
export function isCanonicalJsonText(text: string): { canonical: boolean; value: unknown } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { canonical: false, value: undefined };
  }
  return { canonical: isCanonicalTextOf(value, text), value };
}

/** True iff `text`, which parses to `value`, is exactly the RFC 8785 form of `value` (the check of `isCanonicalJsonText`, for a caller that already parsed it). */
export function isCanonicalTextOf(value: unknown, text: string): boolean {
  let fast: string;
  try {
    fast = JSON.stringify(value);
  } catch {
    // Nesting deeper than the engine's recursion (RangeError) is never governed's canonical JSON: a
    // coded refusal for every caller, never an uncoded crash (red-team finding: reviewer output and
    // stored payloads of 500,000 nested arrays under the 1 MiB cap).
    return false;
  }
  if (fast === text && keysSortedAndWellFormed(value, 0)) return true;
  // The exact fallback must not call text with a lone surrogate canonical: RFC 8785 §3.2.2.2 and
  // `canonicalJson` refuse it, while `jcs` (canonicalize) would escape it and match.
  if (!stringsWellFormed(value, 0)) return false;
  let exact: string | null;
  try {
    exact = jcs(value);
  } catch {
    exact = null;
  }
  return exact === text;
}

/** RFC 8785 text of a value in governed's domain. */
export function canonicalJson(value: unknown): string {
  assertCanonicalDomain(value);
  return jcs(value);
}

export function canonicalBytes(value: unknown): Buffer {
  return Buffer.from(canonicalJson(value), 'utf8');
}

export { DIGEST_RE };
export { HEX64_RE };

export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** `sha256:<hex>` of raw bytes. */
export function sha256Digest(bytes: Uint8Array | string): string {
  return `sha256:${sha256Hex(bytes)}`;
}

/** `sha256:<hex>` of the canonical bytes of a value. */
export function digestOf(value: unknown): string {
  return sha256Digest(canonicalJson(value));
}

/** Hex part of a `sha256:<hex>` digest, or null when it is not one. */
export function digestHexOrNull(digest: string): string | null {
  return DIGEST_RE.test(digest) ? digest.slice('sha256:'.length) : null;
}

/** Hex part of a `sha256:<hex>` digest. */
export function digestHex(digest: string): string {
  return digestHexOrNull(digest) ?? fail('schema_invalid', ['digest']);
}
