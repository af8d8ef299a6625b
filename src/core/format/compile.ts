// Derives the compiled form of a format (./node.ts) from its one zod/mini definition, and writes
// the module that holds the compiled forms (docs/architecture.md#compiled-formats). Run at build
// time by scripts/gen-formats.ts; test/format-compiled.test.ts fails when the committed module is
// stale. It reads zod's own definition objects (`_zod.def`) and refuses anything outside the
// subset ./interpret.ts implements, so a definition can never compile to something weaker. Pure.
import type * as z from 'zod/mini';
import type { FormatCheck, FormatNode, FormatProperty } from './node.js';
import { REFINEMENTS, type RefinementName } from './refinements.js';

type Zod = z.core.$ZodType;
interface AnyDef {
  readonly type: string;
  readonly checks?: readonly { readonly _zod: { readonly def: Record<string, unknown> } }[];
  readonly [k: string]: unknown;
}

const REFINEMENT_NAMES = new Map<unknown, RefinementName>(Object.entries(REFINEMENTS).map(([name, fn]) => [fn, name as RefinementName]));

function unsupported(what: string, at: string): never {
  throw new Error(`format compiler: ${what} is not supported (at ${at || '$'}); extend src/core/format/ or change the definition`);
}

function checkOf(d: Record<string, unknown>, at: string): FormatCheck | null {
  if (d.abort === true || (d.when !== undefined && d.check !== 'min_length' && d.check !== 'max_length')) unsupported(`check ${String(d.check)} with abort/when`, at);
  switch (d.check) {
    case 'min_length':
      return { c: 'min', n: d.minimum as number };
    case 'max_length':
      return { c: 'max', n: d.maximum as number };
    case 'string_format':
      if (d.format !== 'regex') unsupported(`string format ${String(d.format)}`, at);
      return { c: 're', re: d.pattern as RegExp };
    case 'greater_than':
      if (d.inclusive !== true) unsupported('exclusive bound', at);
      return { c: 'gte', n: d.value as number };
    case 'less_than':
      if (d.inclusive !== true) unsupported('exclusive bound', at);
      return { c: 'lte', n: d.value as number };
    case 'custom': {
      const name = REFINEMENT_NAMES.get(d.fn);
      if (name === undefined) unsupported('an unnamed refinement (define it in src/core/format/refinements.ts)', at);
      return { c: 'fn', f: name };
    }
    case 'meta':
    case 'describe':
      return null; // documentation only
    default:
      return unsupported(`check ${String(d.check)}`, at);
  }
}

/** zod's util.sizeCaps: the smallest maximum among the leading size checks. */
function capOf(def: AnyDef): number | undefined {
  let cap: number | undefined;
  for (const ch of def.checks ?? []) {
    const d = ch._zod.def;
    if (!/_(length|size)$|_equals$/.test(String(d.check))) break;
    const max = (d.maximum ?? d.length ?? d.size) as number | undefined;
    if (max !== undefined && max >= 0) cap = cap === undefined ? max : Math.min(cap, max);
  }
  return cap;
}

class Compiler {
  private readonly seen = new Map<Zod, FormatNode>();

  node(s: Zod, at: string): FormatNode {
    const hit = this.seen.get(s);
    if (hit !== undefined) return hit;
    const made = this.make(s, at);
    this.seen.set(s, made);
    return made;
  }

  private make(s: Zod, at: string): FormatNode {
    const def = s._zod.def as unknown as AnyDef;
    if (def.coerce === true) unsupported('coercion', at);
    const checks: FormatCheck[] = [];
    // A schema that is itself a check (zod's string and number formats) runs that check first.
    if (def.check !== undefined) {
      if (def.check === 'number_format' && def.format === 'safeint') checks.push({ c: 'int' });
      else if (def.check === 'string_format' && def.format === 'base64') checks.push({ c: 'fn', f: 'isValidBase64' });
      else unsupported(`the format ${String(def.format ?? def.check)}`, at);
    }
    for (const ch of def.checks ?? []) {
      const c = checkOf(ch._zod.def, at);
      if (c !== null) checks.push(c);
    }
    const base = this.shape(s, def, at);
    const cap = def.type === 'array' ? capOf(def) : undefined;
    return { ...base, ...(checks.length > 0 ? { ch: checks } : {}), ...(cap !== undefined ? { cap } : {}) } as FormatNode;
  }

  private shape(s: Zod, def: AnyDef, at: string): FormatNode {
    const t = def.type;
    switch (t) {
      case 'string':
      case 'number':
      case 'boolean':
      case 'null':
      case 'unknown':
      case 'never':
        return { t };
      case 'literal':
      case 'enum':
        return { t, v: [...(s._zod.values as Set<string | number | boolean | null>)] };
      case 'array':
        return { t, el: this.node(def.element as Zod, `${at}.*`) };
      case 'tuple': {
        const items = def.items as Zod[];
        if (def.rest !== null || items.some((i) => i._zod.optin !== undefined || i._zod.optout !== undefined)) unsupported('a tuple with rest or optional items', at);
        return { t, items: items.map((i, n) => this.node(i, `${at}.${n}`)) };
      }
      case 'object':
        return this.object(def, at);
      case 'record': {
        const key = def.keyType as Zod;
        if (key._zod.values !== undefined || def.mode === 'loose' || (key._zod.def as unknown as AnyDef).type !== 'string') unsupported('a record without string keys', at);
        return { t, key: this.node(key, `${at}.<key>`), val: this.node(def.valueType as Zod, `${at}.*`) };
      }
      case 'union':
        return this.union(def, at);
      case 'optional':
      case 'nullable':
      case 'readonly':
        return { t, in: this.node(def.innerType as Zod, at) };
      case 'pipe':
        if (def.transform !== undefined) unsupported('a codec', at);
        return { t, in: this.node(def.in as Zod, at), out: this.node(def.out as Zod, at) };
      default:
        return unsupported(`type ${t}`, at);
    }
  }

  private object(def: AnyDef, at: string): FormatNode {
    const catchall = def.catchall as Zod | undefined;
    const strict = catchall !== undefined && (catchall._zod.def as unknown as AnyDef).type === 'never';
    if (catchall !== undefined && !strict) unsupported('a catchall', at);
    const shape = def.shape as Record<string, Zod>;
    if (Object.getOwnPropertySymbols(shape).length > 0 || Object.prototype.hasOwnProperty.call(shape, '__proto__')) unsupported('a symbol or __proto__ key', at);
    const props: FormatProperty[] = Object.keys(shape).map((k) => {
      const el = shape[k] as Zod;
      if (el._zod.optin === 'defaulted') unsupported('a default', `${at}.${k}`);
      return [k, this.node(el, `${at}.${k}`), el._zod.optin === 'optional', el._zod.optout === 'optional'];
    });
    return { t: 'object', shape: props, strict };
  }

  private union(def: AnyDef, at: string): FormatNode {
    const opts = (def.options as Zod[]).map((o, i) => this.node(o, `${at}|${i}`));
    if (def.inclusive === false && def.discriminator === undefined) unsupported('an exclusive union', at);
    if (def.discriminator === undefined) return { t: 'union', opts };
    if (def.unionFallback === true) unsupported('a discriminated union with fallback', at);
    const disc = def.discriminator as string;
    const map: (readonly [string | number | boolean | null, number])[] = [];
    (def.options as Zod[]).forEach((o, i) => {
      const tag = ((o._zod.def as unknown as AnyDef).shape as Record<string, Zod> | undefined)?.[disc];
      const values = tag?._zod.values;
      if (values === undefined || tag?._zod.optin !== undefined) unsupported('a discriminator that is not a required literal', at);
      for (const v of values) if (!map.some(([w]) => w === v)) map.push([v as string, i]);
    });
    return { t: 'dunion', disc, opts, map };
  }
}

/** The compiled form of each named definition (shared sub-definitions stay shared). */
export function compileFormats(defs: Readonly<Record<string, Zod>>): Record<string, FormatNode> {
  const c = new Compiler();
  return Object.fromEntries(Object.entries(defs).map(([name, s]) => [name, c.node(s, '')]));
}

/** A key equal for structurally equal nodes (regular expressions by source and flags). */
function structureKey(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (x instanceof RegExp ? `\u0000re:${x.source}/${x.flags}` : x));
}

const ident = (k: string): boolean => /^[A-Za-z_$][\w$]*$/.test(k) && k !== '__proto__';
const prop = (k: string): string => (ident(k) ? `.${k}` : `[${JSON.stringify(k)}]`);
const lit = (v: unknown): string => {
  // NaN and ±Infinity have no JSON spelling (and NaN would need zod's SameValueZero, not ===).
  if (typeof v === 'number' && !Number.isFinite(v)) throw new Error('format compiler: a non-finite number');
  return JSON.stringify(v);
};

/**
 * The generated module: the compiled form of each format as JSON text (for the step-for-step pass
 * that names a refusal's issue paths, parsed on first use) and as one accepting function per
 * distinct node (the pass every accepted value takes: straight-line checks, no interpretation).
 * Structurally equal nodes share one function.
 */
export function emitFormatsModule(formats: Readonly<Record<string, FormatNode>>, header: string): string {
  const byKey = new Map<string, { node: FormatNode; id: number }>();
  const keyOf = new Map<object, string>();
  const order: string[] = [];
  const nodeKey = (n: FormatNode): string => {
    const hit = keyOf.get(n);
    if (hit !== undefined) return hit;
    const k = structureKey(n);
    keyOf.set(n, k);
    return k;
  };
  const visit = (n: FormatNode): void => {
    const k = nodeKey(n);
    if (byKey.has(k)) return;
    for (const c of children(n)) visit(c);
    byKey.set(k, { node: n, id: byKey.size });
    order.push(k);
  };
  for (const n of Object.values(formats)) visit(n);
  const idOf = (n: FormatNode): number => (byKey.get(nodeKey(n)) as { id: number }).id;
  const regexes = new Map<string, string>();
  const reName = (re: RegExp): string => {
    const k = `/${re.source}/${re.flags}`;
    let name = regexes.get(k);
    if (name === undefined) {
      name = `re${regexes.size}`;
      regexes.set(k, name);
    }
    return name;
  };
  const keySets: string[][] = [];
  const keySetName = (keys: string[]): string => {
    const k = JSON.stringify(keys);
    let i = keySets.findIndex((x) => JSON.stringify(x) === k);
    if (i < 0) i = keySets.push(keys) - 1;
    return `k${i}`;
  };
  const fns: string[] = [];
  for (const k of order) {
    const { node, id } = byKey.get(k) as { node: FormatNode; id: number };
    fns.push(acceptFunction(node, id, idOf, reName, keySetName));
  }
  const lines = [
    header,
    "import { FAIL, codePointsAtLeast, codePointsAtMost, isPlainObject, acceptArray, acceptProperty, nodeFromJson } from './accept-runtime.js';",
    "import type { CompiledForm } from './node.js';",
    "import { REFINEMENTS as RF } from './refinements.js';",
    '',
    ...[...regexes].map(([re, name]) => `const ${name} = ${re};`),
    ...keySets.map((keys, i) => `const k${i} = /* @__PURE__ */ new Set(${JSON.stringify(keys)});`),
    '',
    ...fns,
    '',
    ...Object.values(formats).map((n) => `const d${idOf(n)} = '${treeJson(n).replace(/[\\']/g, (c) => `\\${c}`)}';`),
    '',
    ...Object.entries(formats).map(
      ([name, n]) => `export const ${name}: CompiledForm = { get node() { return nodeFromJson(d${idOf(n)}); }, accept: a${idOf(n)} };`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * One format's tree as JSON text (read only to name a refusal's paths, so it is parsed on first
 * use): its nodes in post-order, a child as {"$ref": index}, a regular expression as
 * {"$re": [source, flags]}; the last node is the root (./accept-runtime.ts nodeFromJson).
 */
function treeJson(root: FormatNode): string {
  const index = new Map<FormatNode, number>();
  const out: unknown[] = [];
  const enc = (v: unknown): unknown => {
    if (v instanceof RegExp) return { $re: [v.source, v.flags] };
    if (Array.isArray(v)) return v.map(enc);
    if (typeof v === 'object' && v !== null) {
      if ('t' in v) return { $ref: add(v as FormatNode) };
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, enc(x)]));
    }
    return v;
  };
  const add = (n: FormatNode): number => {
    const hit = index.get(n);
    if (hit !== undefined) return hit;
    const body = Object.fromEntries(Object.entries(n).map(([k, x]) => [k, enc(x)]));
    const i = out.push(body) - 1;
    index.set(n, i);
    return i;
  };
  add(root);
  return JSON.stringify(out);
}

function children(n: FormatNode): FormatNode[] {
  switch (n.t) {
    case 'array':
      return [n.el];
    case 'tuple':
      return [...n.items];
    case 'object':
      return n.shape.map(([, el]) => el);
    case 'record':
      return [n.key, n.val];
    case 'union':
    case 'dunion':
      return [...n.opts];
    case 'optional':
    case 'nullable':
    case 'readonly':
      return [n.in];
    case 'pipe':
      return [n.in, n.out];
    default:
      return [];
  }
}

/** The statements that refuse `x` unless every check passes, in the definition's order. */
function checkCode(checks: readonly FormatCheck[] | undefined, x: string, reName: (re: RegExp) => string): string[] {
  return (checks ?? []).map((ch) => {
    switch (ch.c) {
      case 'min':
        return `if (!codePointsAtLeast(${x}, ${ch.n})) return FAIL;`;
      case 'max':
        return `if (!codePointsAtMost(${x}, ${ch.n})) return FAIL;`;
      case 're': {
        const r = reName(ch.re);
        return `${r}.lastIndex = 0; if (!${r}.test(${x})) return FAIL;`;
      }
      case 'gte':
        return `if (!(${x} >= ${lit(ch.n)})) return FAIL;`;
      case 'lte':
        return `if (!(${x} <= ${lit(ch.n)})) return FAIL;`;
      case 'int':
        return `if (!Number.isSafeInteger(${x})) return FAIL;`;
      case 'fn':
        return `if (!RF.${ch.f}(${x} as never)) return FAIL;`;
    }
  });
}

/** One accepting function: the value it accepts (built as zod builds its output), or FAIL. */
function acceptFunction(n: FormatNode, id: number, idOf: (n: FormatNode) => number, reName: (re: RegExp) => string, keySetName: (keys: string[]) => string): string {
  const a = (c: FormatNode): string => `a${idOf(c)}`;
  const body: string[] = [];
  const checks = (x: string): string[] => checkCode(n.ch, x, reName);
  switch (n.t) {
    case 'string':
    case 'boolean':
      body.push(`if (typeof v !== '${n.t}') return FAIL;`, ...checks('v'), 'return v;');
      break;
    case 'number':
      body.push("if (typeof v !== 'number' || !Number.isFinite(v)) return FAIL;", ...checks('v'), 'return v;');
      break;
    case 'null':
      body.push('if (v !== null) return FAIL;', ...checks('v'), 'return v;');
      break;
    case 'unknown':
      body.push(...checks('v'), 'return v;');
      break;
    case 'never':
      body.push('return FAIL;');
      break;
    case 'literal':
    case 'enum':
      body.push(`if (${n.v.map((x) => `v !== ${lit(x)}`).join(' && ') || 'true'}) return FAIL;`, ...checks('v'), 'return v;');
      break;
    case 'optional':
    case 'nullable':
      body.push(`const o = v === ${n.t === 'optional' ? 'undefined' : 'null'} ? v : ${a(n.in)}(v);`, 'if (o === FAIL) return FAIL;', ...checks('o'), 'return o;');
      break;
    case 'readonly':
      body.push(`const r = ${a(n.in)}(v);`, 'if (r === FAIL) return FAIL;', 'const o = Object.freeze(r);', ...checks('o'), 'return o;');
      break;
    case 'pipe':
      body.push(`const l = ${a(n.in)}(v);`, 'if (l === FAIL) return FAIL;', `const o = ${a(n.out)}(l);`, 'if (o === FAIL) return FAIL;', ...checks('o'), 'return o;');
      break;
    case 'array':
      body.push(`const o = acceptArray(v, ${n.cap ?? -1}, ${a(n.el)});`, 'if (o === FAIL) return FAIL;', ...checks('o'), 'return o;');
      break;
    case 'tuple':
      body.push(
        `if (!Array.isArray(v) || v.length !== ${n.items.length}) return FAIL;`,
        'const o: unknown[] = [];',
        ...n.items.flatMap((item, i) => [`const r${i} = ${a(item)}(v[${i}]);`, `if (r${i} === FAIL) return FAIL;`, `o[${i}] = r${i};`]),
        ...checks('o'),
        'return o;',
      );
      break;
    case 'object':
      body.push("if (typeof v !== 'object' || v === null || Array.isArray(v)) return FAIL;", 'const o = {};');
      for (const [key, el, optIn, optOut] of n.shape) body.push(`if (!acceptProperty(v, o, ${JSON.stringify(key)}, ${a(el)}, ${optIn}, ${optOut})) return FAIL;`);
      if (n.strict) body.push(`for (const k in v) if (!${keySetName(n.shape.map(([key]) => key))}.has(k)) return FAIL;`);
      body.push(...checks('o'), 'return o;');
      break;
    case 'record':
      body.push(
        'if (!isPlainObject(v)) return FAIL;',
        'const o: any = {};',
        `for (const k of Reflect.ownKeys(v)) { if (k === '__proto__' || !Object.prototype.propertyIsEnumerable.call(v, k)) continue; if (${a(n.key)}(k) === FAIL) return FAIL; const r = ${a(n.val)}(v[k]); if (r === FAIL) return FAIL; o[k] = r; }`,
        ...checks('o'),
        'return o;',
      );
      break;
    case 'union':
      body.push('let o: unknown = FAIL;', ...n.opts.map((opt) => `if (o === FAIL) o = ${a(opt)}(v);`), 'if (o === FAIL) return FAIL;', ...checks('o'), 'return o;');
      break;
    case 'dunion':
      body.push(
        "if (typeof v !== 'object' || v === null || Array.isArray(v)) return FAIL;",
        'let o: unknown;',
        `switch (v${prop(n.disc)}) { ${n.map.map(([value, i]) => `case ${lit(value)}: o = ${a(n.opts[i] as FormatNode)}(v); break;`).join(' ')} default: return FAIL; }`,
        'if (o === FAIL) return FAIL;',
        ...checks('o'),
        'return o;',
      );
      break;
  }
  return `function a${id}(v: any): unknown {\n  ${body.join('\n  ')}\n}`;
}
