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
      if (def.check !== 'number_format' || def.format !== 'safeint') unsupported(`the format ${String(def.format ?? def.check)}`, at);
      checks.push({ c: 'int' });
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

/** JavaScript source of one value of the compiled form (plain data and regular expressions). */
function literal(v: unknown, name: (n: object) => string | undefined): string {
  if (v instanceof RegExp) return `/${v.source}/${v.flags}`;
  if (Array.isArray(v)) return `[${v.map((x) => literal(x, name)).join(', ')}]`;
  if (typeof v === 'object' && v !== null) {
    const ref = name(v);
    if (ref !== undefined) return ref;
    return `{ ${Object.entries(v).map(([k, x]) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: ${literal(x, name)}`).join(', ')} }`;
  }
  if (typeof v === 'number' && !Number.isFinite(v)) throw new Error('format compiler: a non-finite number');
  return JSON.stringify(v);
}

/** The generated module: each node used twice or more is one constant, each format one export. */
export function emitFormatsModule(formats: Readonly<Record<string, FormatNode>>, header: string): string {
  const uses = new Map<object, number>();
  const order: object[] = [];
  const visit = (v: unknown): void => {
    if (typeof v !== 'object' || v === null || v instanceof RegExp) return;
    if (!Array.isArray(v)) {
      const n = (uses.get(v) ?? 0) + 1;
      uses.set(v, n);
      if (n > 1) return;
    }
    for (const x of Array.isArray(v) ? v : Object.values(v)) visit(x);
    if (!Array.isArray(v)) order.push(v);
  };
  for (const node of Object.values(formats)) visit(node);
  const names = new Map<object, string>();
  const lines: string[] = [header, "import type { FormatNode } from './node.js';", ''];
  for (const v of order) {
    if ((uses.get(v) ?? 0) < 2) continue;
    const id = `n${names.size}`;
    lines.push(`const ${id}: FormatNode = ${literal(v, (o) => (o === v ? undefined : names.get(o)))};`);
    names.set(v, id);
  }
  lines.push('');
  for (const [name, node] of Object.entries(formats)) lines.push(`export const ${name}: FormatNode = ${literal(node, (o) => names.get(o))};`);
  return `${lines.join('\n')}\n`;
}
