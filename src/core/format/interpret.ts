// Checks a value against a compiled format (docs/architecture.md#compiled-formats) with zod's
// semantics, step for step, for the subset compile.ts emits: the same values accepted, the same
// output value (objects rebuilt in definition order, unknown keys of a non-strict object dropped,
// readonly outputs frozen), and the same issue paths in the same order, so that a refusal names
// the same fields as the definition's own parser would. test/format-compiled.test.ts holds the two
// equal over real documents and every mutation of them. A value is first tried by the format's
// generated accepting function (./compiled.ts: the same checks, straight-line, no payloads); this
// step-for-step pass runs only for a refusal, to name its issue paths. Pure.
import { codePointsAtLeast, codePointsAtMost, FAIL, isObject, isPlainObject } from './accept-runtime.js';
import type { CompiledFormat, FormatCheck, FormatNode } from './node.js';
import { REFINEMENTS } from './refinements.js';

/** One issue: where, and zod's `continue` (true: later checks still run; undefined/false: aborts). */
interface Issue {
  path: PropertyKey[];
  readonly cont: boolean | undefined;
  readonly unrecognized?: true;
}

interface Payload {
  value: unknown;
  issues: Issue[];
  aborted?: boolean;
}

export type FormatResult<T> =
  | { readonly success: true; readonly data: T }
  /** `issuePaths`: every issue's path, in zod's order; `paths`: the first four, as governed's refusals name them. */
  | { readonly success: false; readonly paths: readonly string[]; readonly issuePaths: readonly (readonly PropertyKey[])[] };


function aborted(p: Payload, from = 0): boolean {
  if (p.aborted === true) return true;
  for (let i = from; i < p.issues.length; i++) if ((p.issues[i] as Issue).cont !== true) return true;
  return false;
}

function explicitlyAborted(p: Payload): boolean {
  if (p.aborted === true) return true;
  for (const i of p.issues) if (i.cont === false) return true;
  return false;
}

/** The key set of an object's shape, built once per shape. */
const KEYS = new WeakMap<object, ReadonlySet<string>>();
function keysOf(shape: readonly (readonly [string, ...unknown[]])[]): ReadonlySet<string> {
  let known = KEYS.get(shape);
  if (known === undefined) {
    known = new Set(shape.map(([k]) => k));
    KEYS.set(shape, known);
  }
  return known;
}

const hasLength = (p: Payload): boolean => p.value !== null && p.value !== undefined && (p.value as { length?: unknown }).length !== undefined;
const push = (p: Payload, cont: boolean | undefined, path: PropertyKey[] = []): void => {
  p.issues.push({ path, cont });
};
const prefixed = (key: PropertyKey, issues: Issue[]): Issue[] => {
  for (const i of issues) i.path.unshift(key);
  return issues;
};

function runCheck(ch: FormatCheck, p: Payload): void {
  const v = p.value;
  switch (ch.c) {
    case 'min':
      if (!codePointsAtLeast(v as string, ch.n)) push(p, true);
      return;
    case 'max':
      if (!codePointsAtMost(v as string, ch.n)) push(p, true);
      return;
    case 're':
      ch.re.lastIndex = 0;
      if (!ch.re.test(v as string)) push(p, true);
      return;
    case 'gte':
      if (!((v as number) >= ch.n)) push(p, true);
      return;
    case 'lte':
      if (!((v as number) <= ch.n)) push(p, true);
      return;
    case 'int':
      if (!Number.isInteger(v)) push(p, false);
      else if (!Number.isSafeInteger(v)) push(p, true);
      return;
    case 'fn':
      if (!(REFINEMENTS[ch.f] as (x: never) => boolean)(v as never)) push(p, true);
      return;
  }
}

/** zod's runChecks: a length check runs unless explicitly aborted and only on a value with a length; any other check only while nothing has aborted. */
function runChecks(p: Payload, checks: readonly FormatCheck[]): Payload {
  let isAborted = aborted(p);
  for (const ch of checks) {
    if (ch.c === 'min' || ch.c === 'max') {
      if (explicitlyAborted(p) || !hasLength(p)) continue;
    } else if (isAborted) continue;
    const before = p.issues.length;
    runCheck(ch, p);
    if (p.issues.length !== before && !isAborted) isAborted = aborted(p, before);
  }
  return p;
}

function run(node: FormatNode, p: Payload): Payload {
  const out = parse(node, p);
  return node.ch === undefined ? out : runChecks(out, node.ch);
}

function parse(node: FormatNode, p: Payload): Payload {
  const v = p.value;
  switch (node.t) {
    case 'string':
    case 'boolean':
      if (typeof v !== node.t) push(p, undefined);
      return p;
    case 'number':
      if (typeof v !== 'number' || Number.isNaN(v) || !Number.isFinite(v)) push(p, undefined);
      return p;
    case 'null':
      if (v !== null) push(p, undefined);
      return p;
    case 'unknown':
      return p;
    case 'never':
      push(p, undefined);
      return p;
    case 'literal':
    case 'enum':
      if (!node.v.includes(v as string)) push(p, undefined);
      return p;
    case 'optional':
      return v === undefined ? p : run(node.in, p);
    case 'nullable':
      return v === null ? p : run(node.in, p);
    case 'readonly': {
      const r = run(node.in, p);
      r.value = Object.freeze(r.value);
      return r;
    }
    case 'pipe': {
      const left = run(node.in, p);
      if (left.issues.some((i) => i.unrecognized !== true)) {
        left.aborted = true;
        return left;
      }
      return run(node.out, { value: left.value, issues: left.issues });
    }
    case 'array':
      return parseArray(node.el, node, p);
    case 'tuple':
      return parseTuple(node.items, p);
    case 'object':
      return parseObject(node.shape, node.strict, p);
    case 'record':
      return parseRecord(node.key, node.val, p);
    case 'union':
      return parseUnion(node.opts, p);
    case 'dunion': {
      if (!isObject(v)) {
        push(p, undefined);
        return p;
      }
      const tag = v[node.disc];
      const hit = node.map.find(([value]) => value === tag);
      if (hit !== undefined) return run(node.opts[hit[1]] as FormatNode, p);
      push(p, undefined, [node.disc]);
      return p;
    }
  }
}

function parseArray(el: FormatNode, node: FormatNode, p: Payload): Payload {
  const input = p.value;
  if (!Array.isArray(input)) {
    push(p, undefined);
    return p;
  }
  // zod's capSize: an array over its cap is refused by that check alone, before any element is parsed.
  if (node.cap !== undefined && input.length > node.cap) {
    push(p, false);
    return p;
  }
  const out: unknown[] = Array(input.length);
  p.value = out;
  for (let i = 0; i < input.length; i++) {
    const r = run(el, { value: input[i], issues: [] });
    if (r.issues.length > 0) p.issues.push(...prefixed(i, r.issues));
    out[i] = r.value;
  }
  return p;
}

/** Tuples of required items and no rest (the only kind compile.ts emits). */
function parseTuple(items: readonly FormatNode[], p: Payload): Payload {
  const input = p.value;
  if (!Array.isArray(input)) {
    push(p, undefined);
    return p;
  }
  if (input.length < items.length) {
    push(p, undefined);
    return p;
  }
  if (input.length > items.length) push(p, undefined);
  const out: unknown[] = [];
  p.value = out;
  const results = items.map((item, i) => run(item, { value: input[i], issues: [] }));
  results.forEach((r, i) => {
    if (r.issues.length > 0) p.issues.push(...prefixed(i, r.issues));
    out[i] = r.value;
  });
  return p;
}

function parseObject(shape: readonly (readonly [string, FormatNode, boolean, boolean])[], strict: boolean, p: Payload): Payload {
  const input = p.value;
  if (!isObject(input)) {
    push(p, undefined);
    return p;
  }
  const out: Record<string, unknown> = {};
  p.value = out;
  for (const [key, el, optIn, optOut] of shape) {
    const r = run(el, { value: input[key], issues: [] });
    // zod's handlePropertyResult
    const present = key in input;
    if (!present && optOut && optIn) continue;
    if (r.issues.length > 0) p.issues.push(...prefixed(key, r.issues));
    if (!present && !optIn) {
      if (r.issues.length === 0) push(p, undefined, [key]);
      continue;
    }
    if (r.value === undefined) {
      if (present) out[key] = undefined;
    } else out[key] = r.value;
  }
  if (strict) {
    const known = keysOf(shape);
    for (const key in input) {
      if (!known.has(key)) {
        p.issues.push({ path: [], cont: true, unrecognized: true });
        break;
      }
    }
  }
  return p;
}

function parseRecord(keyNode: FormatNode, val: FormatNode, p: Payload): Payload {
  const input = p.value;
  if (!isPlainObject(input)) {
    push(p, undefined);
    return p;
  }
  const out: Record<PropertyKey, unknown> = {};
  p.value = out;
  for (const key of Reflect.ownKeys(input)) {
    if (key === '__proto__' || !Object.prototype.propertyIsEnumerable.call(input, key)) continue;
    const k = run(keyNode, { value: key, issues: [] });
    if (k.issues.length > 0) {
      push(p, undefined, [key]);
      continue;
    }
    const r = run(val, { value: input[key], issues: [] });
    if (r.issues.length > 0) p.issues.push(...prefixed(key, r.issues));
    out[key] = r.value;
  }
  return p;
}

function parseUnion(opts: readonly FormatNode[], p: Payload): Payload {
  if (opts.length === 1) return run(opts[0] as FormatNode, p);
  const results: Payload[] = [];
  for (const opt of opts) {
    const r = run(opt, { value: p.value, issues: [] });
    if (r.issues.length === 0) return r;
    results.push(r);
  }
  const open = results.filter((r) => !aborted(r));
  if (open.length === 1) {
    p.value = (open[0] as Payload).value;
    return open[0] as Payload;
  }
  push(p, undefined);
  return p;
}

/** The paths of the first four issues, as governed's refusals name them (`a.b.0`, or `$` for the root). */
export function issuePathsOf(paths: readonly (readonly PropertyKey[])[]): string[] {
  return paths.slice(0, 4).map((path) => path.map(String).join('.') || '$');
}

/** Check `value` against a compiled format: the parsed value, or the refusal's issue paths. */
export function checkFormat<T>(format: CompiledFormat<T>, value: unknown): FormatResult<T> {
  const fast = format.accept(value);
  if (fast !== FAIL) return { success: true, data: fast as T };
  const r = run(format.node, { value, issues: [] });
  // The two passes disagree only if one of them is wrong: refuse (fail closed), at the root.
  const issuePaths = r.issues.length === 0 ? [[]] : r.issues.map((i) => i.path);
  return { success: false, paths: issuePathsOf(issuePaths), issuePaths };
}
