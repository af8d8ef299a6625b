// One `--json` style (docs/commands.md#the-json-style): snake_case field names, and `ok`,
// `schema_version` and `exit` on every object. Some objects predate it and are read by deploy
// pipelines with camelCase names (`gate`, `status`, and decision.json and manifest.json of a deploy
// record): they keep
// every camelCase field for the deprecation period and carry its snake_case twin beside it, at every
// depth, with the same value. The twins are generated here from the one rule `snakeCase`, never
// written by hand; their JSON Schemas are generated the same way (./json-style-schema.ts). No zod
// here: this module runs on every command's path. Pure.

/** The version of every `--json` object's format (`schema_version`). */
export const JSON_SCHEMA_VERSION = 1;

/** The release in which the camelCase fields of `gate`, `status` and the deploy record are removed (docs/commands.md#the-json-style). */
export const CAMEL_CASE_REMOVED_IN = '0.3.0';

type SnakeChars<S extends string> = S extends `${infer H}${infer T}` ? `${H extends Lowercase<H> ? H : `_${Lowercase<H>}`}${SnakeChars<T>}` : S;
/** `planningStateDigest` → `planning_state_digest` (the type-level twin of `snakeCase`). */
export type SnakeCase<S extends string> = SnakeChars<S>;

/** An object type with every key's snake_case twin added, at every depth. */
export type WithSnakeTwins<T> = T extends readonly (infer E)[]
  ? WithSnakeTwins<E>[]
  : T extends object
    ? { [K in keyof T]: WithSnakeTwins<T[K]> } & { [K in keyof T as K extends string ? SnakeCase<K> : K]: WithSnakeTwins<T[K]> }
    : T;

/** The one rule: an upper-case ASCII letter becomes `_` and its lower case. */
export function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/**
 * The object with each camelCase key's snake_case twin placed right after it, recursively through
 * objects and arrays; keys already in snake_case are unchanged. Only for objects whose keys are all
 * field names (never a map keyed by data): the gate decision, the status report, the deploy record's manifest.
 */
export function withSnakeTwins<T>(value: T): WithSnakeTwins<T> {
  if (Array.isArray(value)) return value.map((v) => withSnakeTwins(v)) as WithSnakeTwins<T>;
  if (value === null || typeof value !== 'object') return value as WithSnakeTwins<T>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const twinned = withSnakeTwins(v);
    out[k] = twinned;
    const s = snakeCase(k);
    if (s !== k) {
      if (Object.prototype.hasOwnProperty.call(value, s)) throw new TypeError('a camelCase field and its snake_case twin both given');
      out[s] = twinned;
    }
  }
  return out as WithSnakeTwins<T>;
}

/** What every printed `--json` object carries beside its own fields: `schema_version` and `exit`. */
export function withEnvelope(json: Record<string, unknown>, exit: number): Record<string, unknown> {
  return { ...json, schema_version: JSON_SCHEMA_VERSION, exit };
}
