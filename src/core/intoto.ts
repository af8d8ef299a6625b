// in-toto Statement v1 (docs/formats.md#receipt): the payload of every governed envelope. Its one
// definition is ./intoto-schema.ts (read at run time through its compiled form,
// docs/architecture.md#compiled-formats).
import type { Statement, Subject } from './intoto-schema.js';
import { STATEMENT } from './format/compiled.js';
import { formatOf } from './format/node.js';
export type { Statement, Subject } from './intoto-schema.js';

export const STATEMENT_TYPE_V1 = 'https://in-toto.io/Statement/v1';

/** The statement frame's compiled form (docs/architecture.md#compiled-formats). */
export const STATEMENT_FORMAT = /* @__PURE__ */ formatOf<Statement>(STATEMENT);

export function buildStatement<P extends Record<string, unknown>>(
  subject: readonly Subject[],
  predicateType: string,
  predicate: P,
): { _type: string; subject: Subject[]; predicateType: string; predicate: P } {
  return { _type: STATEMENT_TYPE_V1, subject: [...subject], predicateType, predicate };
}
