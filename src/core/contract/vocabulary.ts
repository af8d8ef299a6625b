// The closed vocabularies of the request contract (docs/contract.md#the-request-contract), kept free
// of zod and of the error tables: the contract schema (./schema.ts), the bundle schema
// (../bundle/schema.ts) and the pinned coverage reviewer, which bundles the latter, share these
// very lists. Pure.
export const SOURCE_CLASSES = ['directive', 'context', 'reference'] as const;
export const ATOM_KINDS = ['obligation', 'context'] as const;
export const DIRECTIVE_STATES = ['active', 'done', 'deferred', 'superseded', 'abandoned'] as const;
/** Evidence kinds: what sort of artefact backs a directive. Closed; `other` is the escape hatch. */
export const EVIDENCE_KINDS = ['test', 'fixture', 'benchmark', 'doc', 'log', 'other'] as const;
/** Authority operations a contract can cite (docs/authority.md#human-authority-records); policy/trust updates are not contract scope. */
export const AUTHORITY_OPERATIONS = ['authorize', 'add', 'replace', 'supersede', 'defer', 'abandon'] as const;
