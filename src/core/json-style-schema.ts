// The schema side of ./json-style.ts: the JSON Schema of every published `--json` object is
// generated from its one definition with `schema_version` and `exit` added, and (gate, status) with
// each camelCase field's snake_case twin beside it, by the same rule `snakeCase`. Nothing is written
// twice by hand. Pure.
import * as z from 'zod/mini';
import { JSON_SCHEMA_VERSION, snakeCase } from './json-style.js';

type Def = { type: string; shape?: Record<string, z.ZodMiniType>; catchall?: z.ZodMiniType; innerType?: z.ZodMiniType; element?: z.ZodMiniType; options?: z.ZodMiniType[] };
const defOf = (s: z.ZodMiniType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;
const isStrict = (d: Def): boolean => d.catchall !== undefined && defOf(d.catchall).type === 'never';

const anyExit = z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3), z.literal(4), z.literal(5), z.literal(6), z.literal(7), z.literal(8), z.literal(9)]);

/** The schema with each object's camelCase keys twinned (same schema under the snake_case name), at every depth. */
export function snakeTwinsSchema(s: z.ZodMiniType): z.ZodMiniType {
  const d = defOf(s);
  switch (d.type) {
    case 'object': {
      const shape: Record<string, z.ZodMiniType> = {};
      for (const [k, v] of Object.entries(d.shape ?? {})) {
        const t = snakeTwinsSchema(v);
        shape[k] = t;
        if (snakeCase(k) !== k) shape[snakeCase(k)] = t;
      }
      return isStrict(d) ? z.strictObject(shape) : z.object(shape);
    }
    case 'array':
      return z.array(snakeTwinsSchema(d.element as z.ZodMiniType));
    case 'nullable':
      return z.nullable(snakeTwinsSchema(d.innerType as z.ZodMiniType));
    case 'optional':
      return z.optional(snakeTwinsSchema(d.innerType as z.ZodMiniType));
    case 'union':
      return z.union((d.options ?? []).map(snakeTwinsSchema) as [z.ZodMiniType, z.ZodMiniType, ...z.ZodMiniType[]]);
    default:
      return s;
  }
}

/** The schema of what is printed: the object (each branch of a union) with `schema_version` and `exit` added. */
export function printedSchema(s: z.ZodMiniType): z.ZodMiniType {
  const d = defOf(s);
  if (d.type === 'union') return z.union((d.options ?? []).map(printedSchema) as [z.ZodMiniType, z.ZodMiniType, ...z.ZodMiniType[]]);
  if (d.type !== 'object') throw new TypeError('a --json output schema is an object or a union of objects');
  const shape = { ...d.shape, schema_version: z.literal(JSON_SCHEMA_VERSION), exit: d.shape?.exit ?? anyExit };
  return isStrict(d) ? z.strictObject(shape) : z.object(shape);
}
