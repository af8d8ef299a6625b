// Strict JSON parsing (docs/threat-model.md#rules-that-hold-everywhere "Closed objects", docs/contract.md#validation-rules): duplicate keys are refused and the value
// must be in governed's canonical domain (safe integers, well-formed strings). Kept apart from the
// YAML parser so pinned programs that only need JSON do not bundle a YAML library.
import { isWellFormedString, type CanonicalValue } from './canonical.js';
import { fail } from './errors.js';
import { JSON_MAX_DEPTH } from './limits.js';

/**
 * A small RFC 8259 parser that refuses duplicate object keys (JSON.parse silently keeps the last
 * one, which would let two readers of one file disagree). Numbers are parsed with JSON.parse's own
 * number grammar so values agree with every other JSON reader.
 */
export function parseJsonStrict(text: string): CanonicalValue {
  const p = new StrictJsonParser(text);
  const result = p.value(0);
  p.ws();
  if (p.i !== text.length) p.bad();
  return result as CanonicalValue;
}

// Strings: jump to the closing quote with indexOf; the common case (no escape, no control
// character) is sliced directly, anything else is decoded by JSON.parse's own string grammar.
const ESCAPE_OR_CONTROL = /[\\\u0000-\u001f]/;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** One parse: the text and the offset reached. Domain checks happen while parsing (docs/threat-model.md#rules-that-hold-everywhere): one
 * pass, and every error names the offset only. */
class StrictJsonParser {
  i = 0;
  constructor(private readonly text: string) {}

  ws(): void {
    const { text } = this;
    while (this.i < text.length) {
      const c = text.charCodeAt(this.i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.i++;
      else break;
    }
  }

  bad(): never {
    return fail('json_invalid', [`offset:${this.i}`]);
  }

  value(depth: number): unknown {
    if (depth > JSON_MAX_DEPTH) this.bad();
    this.ws();
    const c = this.text.charCodeAt(this.i);
    if (c === 0x7b /* { */) return this.object(depth);
    if (c === 0x5b /* [ */) return this.array(depth);
    if (c === 0x22 /* " */) return this.domainString();
    return this.literalOrNumber();
  }

  private object(depth: number): Record<string, unknown> {
    const { text } = this;
    this.i++;
    const obj: Record<string, unknown> = {};
    this.ws();
    if (text.charCodeAt(this.i) === 0x7d) {
      this.i++;
      return obj;
    }
    for (;;) {
      this.ws();
      if (text.charCodeAt(this.i) !== 0x22) this.bad();
      const at = this.i;
      const key = this.domainString();
      if (Object.prototype.hasOwnProperty.call(obj, key)) fail('json_duplicate_key', [`offset:${at}`]);
      this.ws();
      if (text.charCodeAt(this.i) !== 0x3a) this.bad();
      this.i++;
      const v = this.value(depth + 1);
      // `__proto__` must become an own data property, never the prototype.
      if (key === '__proto__') Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
      else obj[key] = v;
      if (this.endOfList(0x7d)) return obj;
    }
  }

  private array(depth: number): unknown[] {
    this.i++;
    const arr: unknown[] = [];
    this.ws();
    if (this.text.charCodeAt(this.i) === 0x5d) {
      this.i++;
      return arr;
    }
    for (;;) {
      arr.push(this.value(depth + 1));
      if (this.endOfList(0x5d)) return arr;
    }
  }

  /** After a member: `,` continues the list (false), `close` ends it (true), anything else is bad. */
  private endOfList(close: number): boolean {
    this.ws();
    const d = this.text.charCodeAt(this.i);
    this.i++;
    if (d === 0x2c) return false;
    if (d === close) return true;
    this.i--;
    return this.bad();
  }

  private rawString(): string {
    const { text } = this;
    const start = this.i;
    let end = text.indexOf('"', start + 1);
    for (;;) {
      if (end < 0) this.bad();
      let backslashes = 0;
      for (let j = end - 1; j > start && text.charCodeAt(j) === 0x5c; j--) backslashes++;
      if (backslashes % 2 === 0) break;
      end = text.indexOf('"', end + 1);
    }
    this.i = end + 1;
    const body = text.slice(start + 1, end);
    if (!ESCAPE_OR_CONTROL.test(body)) return body;
    try {
      return JSON.parse(text.slice(start, end + 1)) as string;
    } catch {
      return this.bad();
    }
  }

  private domainString(): string {
    const at = this.i;
    const s = this.rawString();
    if (!isWellFormedString(s)) fail('value_not_canonicalizable', [`offset:${at}`]);
    return s;
  }

  private literalOrNumber(): boolean | null | number {
    const { text } = this;
    if (text.startsWith('true', this.i)) {
      this.i += 4;
      return true;
    }
    if (text.startsWith('false', this.i)) {
      this.i += 5;
      return false;
    }
    if (text.startsWith('null', this.i)) {
      this.i += 4;
      return null;
    }
    NUMBER.lastIndex = this.i;
    const m = NUMBER.exec(text);
    if (!m || m[0].length === 0) return this.bad();
    const at = this.i;
    this.i += m[0].length;
    const num = Number(m[0]);
    if (!Number.isSafeInteger(num) || Object.is(num, -0)) fail('value_not_canonicalizable', [`offset:${at}`]);
    return num;
  }
}
