// The compiled form of a format (docs/architecture.md#compiled-formats): a plain-data tree that
// src/core/format/compile.ts derives from the one zod/mini definition at build time, and that
// ./interpret.ts checks values against with zod's own semantics (the same values accepted, the
// same output, the same issue paths). It exists so that the cold paths (the gate, review-run)
// judge their formats without constructing a schema object per rule at start-up. Pure data.
import type { RefinementName } from './refinements.js';

/** A check run after a node's own parse, in definition order (zod's `def.checks`). */
export type FormatCheck =
  | { readonly c: 'min'; readonly n: number } // length ≥ n (code points for strings, as zod counts)
  | { readonly c: 'max'; readonly n: number }
  | { readonly c: 're'; readonly re: RegExp }
  | { readonly c: 'gte'; readonly n: number }
  | { readonly c: 'lte'; readonly n: number }
  | { readonly c: 'int' } // a safe integer (zod's `safeint` number format)
  | { readonly c: 'fn'; readonly f: RefinementName };

/** One property of an object: its key, its node, and whether the key may be absent (zod's optin/optout). */
export type FormatProperty = readonly [key: string, node: FormatNode, optIn: boolean, optOut: boolean];

interface Base {
  readonly ch?: readonly FormatCheck[];
  /** Arrays only: the cap of zod's leading size checks, refused before any element is parsed. */
  readonly cap?: number;
}

export type FormatNode = Base &
  (
    | { readonly t: 'string' | 'number' | 'boolean' | 'null' | 'unknown' | 'never' }
    | { readonly t: 'literal' | 'enum'; readonly v: readonly (string | number | boolean | null)[] }
    | { readonly t: 'array'; readonly el: FormatNode }
    | { readonly t: 'tuple'; readonly items: readonly FormatNode[] }
    | { readonly t: 'object'; readonly shape: readonly FormatProperty[]; readonly strict: boolean }
    | { readonly t: 'record'; readonly key: FormatNode; readonly val: FormatNode }
    | { readonly t: 'union'; readonly opts: readonly FormatNode[] }
    | { readonly t: 'dunion'; readonly disc: string; readonly opts: readonly FormatNode[]; readonly map: readonly (readonly [string | number | boolean | null, number])[] }
    | { readonly t: 'optional' | 'nullable' | 'readonly'; readonly in: FormatNode }
    | { readonly t: 'pipe'; readonly in: FormatNode; readonly out: FormatNode }
  );

/** One format as ./compiled.ts exports it: its tree, and its generated accepting function (the
 * accepted value as zod outputs it, or the FAIL symbol of ./accept-runtime.ts). */
export interface CompiledForm {
  readonly node: FormatNode;
  readonly accept: (value: unknown) => unknown;
}

/** A compiled format whose accepted value has type `T` (the type zod infers from the definition). */
export interface CompiledFormat<T> extends CompiledForm {
  /** Never present: carries `T` for the checker's signature. */
  readonly __type?: T;
}

/** `form`, typed with the type its definition infers (the test holds the two equal). */
export const formatOf = <T>(form: CompiledForm): CompiledFormat<T> => form as CompiledFormat<T>;
