// What the generated accepting functions of ./compiled.ts share (docs/architecture.md#compiled-formats). Pure.
import type { FormatNode } from './node.js';

/** An accepting function's refusal (never a value a format accepts). */
export const FAIL: unique symbol = Symbol('refused');

/** The number of code points of `s` (zod counts string lengths in code points). */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    if ((s.charCodeAt(i) & 0xfc00) === 0xd800 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n--;
      i++;
    }
  }
  return n;
}

/** length ≥ min as zod counts it: code points for a string (counted only when UTF-16 units leave it in doubt). */
export function codePointsAtLeast(v: { readonly length: number }, min: number): boolean {
  const units = v.length;
  if (typeof v !== 'string' || units < min || units >= min * 2) return units >= min;
  return codePoints(v) >= min;
}

/** length ≤ max as zod counts it. */
export function codePointsAtMost(v: { readonly length: number }, max: number): boolean {
  return v.length <= max || (typeof v === 'string' && codePoints(v) <= max);
}

/** zod's util.isObject: an object that is not null and not an array (an object's input). */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** zod's util.isPlainObject (a record's input). */
export function isPlainObject(o: unknown): o is Record<PropertyKey, unknown> {
  if (!isObject(o)) return false;
  const ctor = (o as { constructor?: unknown }).constructor;
  if (ctor === undefined || typeof ctor !== 'function') return true;
  const prot = (ctor as { prototype?: unknown }).prototype;
  if (!isObject(prot)) return false;
  return Object.prototype.hasOwnProperty.call(prot, 'isPrototypeOf');
}

/** An array of accepted elements (zod's capSize first: over `cap` is refused before any element), or FAIL. */
export function acceptArray(v: unknown, cap: number, element: (x: unknown) => unknown): unknown[] | typeof FAIL {
  if (!Array.isArray(v) || (cap >= 0 && v.length > cap)) return FAIL;
  const o: unknown[] = Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const r = element(v[i]);
    if (r === FAIL) return FAIL;
    o[i] = r;
  }
  return o;
}

/**
 * One property of an object, as zod's handlePropertyResult: an absent key that may be absent adds
 * nothing; a required key must be present; an accepted `undefined` is kept only for a present key.
 */
export function acceptProperty(v: Record<string, unknown>, o: Record<string, unknown>, key: string, accept: (x: unknown) => unknown, optIn: boolean, optOut: boolean): boolean {
  const has = key in v;
  if (!has && optIn && optOut) return true;
  const r = accept(v[key]);
  if (r === FAIL || (!has && !optIn)) return false;
  if (r !== undefined) o[key] = r;
  else if (has) o[key] = undefined;
  return true;
}

const TREES = new Map<string, FormatNode>();

/** A format's tree from the JSON text ./compile.ts wrote (parsed once, on the first refusal). */
export function nodeFromJson(json: string): FormatNode {
  const hit = TREES.get(json);
  if (hit !== undefined) return hit;
  const nodes: FormatNode[] = [];
  const dec = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(dec);
    if (typeof v !== 'object' || v === null) return v;
    const o = v as Record<string, unknown>;
    if ('$ref' in o) return nodes[o.$ref as number];
    if ('$re' in o) return new RegExp(...(o.$re as [string, string]));
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, dec(x)]));
  };
  for (const raw of JSON.parse(json) as unknown[]) nodes.push(dec(raw) as FormatNode);
  const root = nodes[nodes.length - 1] as FormatNode;
  TREES.set(json, root);
  return root;
}
