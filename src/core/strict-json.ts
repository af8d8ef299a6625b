// Strict JSON parsing (SPEC §3 "Closed objects", §6.1): duplicate keys are refused and the value
// must be in governed's canonical domain (safe integers, well-formed strings). Kept apart from the
// YAML parser so pinned programs that only need JSON do not bundle a YAML library.
import { isWellFormedString, type CanonicalValue } from './canonical.js';
import { fail } from './errors.js';

import { JSON_MAX_DEPTH as MAX_DEPTH } from './limits.js';

/**
 * A small RFC 8259 parser that refuses duplicate object keys (JSON.parse silently keeps the last
 * one, which would let two readers of one file disagree). Numbers are parsed with JSON.parse's own
 * number grammar so values agree with every other JSON reader.
 */
export function parseJsonStrict(text: string): CanonicalValue {
  let i = 0;
  const n = text.length;
  const ws = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };
  const bad = (): never => fail('json_invalid', [`offset:${i}`]);
  // Strings: jump to the closing quote with indexOf; the common case (no escape, no control
  // character) is sliced directly, anything else is decoded by JSON.parse's own string grammar.
  const ESCAPE_OR_CONTROL = /[\\\u0000-\u001f]/;
  const parseString = (): string => {
    const start = i;
    let end = text.indexOf('"', i + 1);
    for (;;) {
      if (end < 0) bad();
      let backslashes = 0;
      for (let j = end - 1; j > start && text.charCodeAt(j) === 0x5c; j--) backslashes++;
      if (backslashes % 2 === 0) break;
      end = text.indexOf('"', end + 1);
    }
    i = end + 1;
    const body = text.slice(start + 1, end);
    if (!ESCAPE_OR_CONTROL.test(body)) return body;
    try {
      return JSON.parse(text.slice(start, end + 1)) as string;
    } catch {
      return bad();
    }
  };
  const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  // Domain checks happen while parsing (SPEC §3): one pass, and the error names the offset only.
  const domainString = (s: string, at: number): string => {
    if (!isWellFormedString(s)) fail('value_not_canonicalizable', [`offset:${at}`]);
    return s;
  };
  const value = (depth: number): unknown => {
    if (depth > MAX_DEPTH) fail('json_invalid', [`offset:${i}`]);
    ws();
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */) {
      i++;
      const obj: Record<string, unknown> = {};
      ws();
      if (text.charCodeAt(i) === 0x7d) {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        if (text.charCodeAt(i) !== 0x22) bad();
        const at = i;
        const key = domainString(parseString(), at);
        if (Object.prototype.hasOwnProperty.call(obj, key)) fail('json_duplicate_key', [`offset:${at}`]);
        ws();
        if (text.charCodeAt(i) !== 0x3a) bad();
        i++;
        const v = value(depth + 1);
        // `__proto__` must become an own data property, never the prototype.
        if (key === '__proto__') Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
        else obj[key] = v;
        ws();
        const d = text.charCodeAt(i);
        if (d === 0x2c) {
          i++;
          continue;
        }
        if (d === 0x7d) {
          i++;
          return obj;
        }
        bad();
      }
    }
    if (c === 0x5b /* [ */) {
      i++;
      const arr: unknown[] = [];
      ws();
      if (text.charCodeAt(i) === 0x5d) {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value(depth + 1));
        ws();
        const d = text.charCodeAt(i);
        if (d === 0x2c) {
          i++;
          continue;
        }
        if (d === 0x5d) {
          i++;
          return arr;
        }
        bad();
      }
    }
    if (c === 0x22) {
      const at = i;
      return domainString(parseString(), at);
    }
    if (text.startsWith('true', i)) {
      i += 4;
      return true;
    }
    if (text.startsWith('false', i)) {
      i += 5;
      return false;
    }
    if (text.startsWith('null', i)) {
      i += 4;
      return null;
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m || m[0].length === 0) return bad();
    const at = i;
    i += m[0].length;
    const num = Number(m[0]);
    if (!Number.isSafeInteger(num) || Object.is(num, -0)) fail('value_not_canonicalizable', [`offset:${at}`]);
    return num;
  };
  const result = value(0);
  ws();
  if (i !== n) bad();
  return result as CanonicalValue;
}
