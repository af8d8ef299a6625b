// The request contract's closed schema (docs/contract.md#the-request-contract) and its parser. Every object is a z.strictObject,
// so an unknown key is refused (docs/threat-model.md#rules-that-hold-everywhere "Closed objects"). The schema checks shape only: ID syntax,
// uniqueness, spans, mappings and paths are the rules of docs/contract.md#validation-rules and live in validate.ts, each with its
// own error code. IDs are plain strings here on purpose, so a malformed ID is reported as
// `contract_id_invalid` with its field path rather than as a generic type error.
//
// Tombstone design (docs/contract.md#validation-rules, docs/contract.md#scope-history: an immutable tombstone
// covering its directive, targets, criteria, trace artifacts and trace edges):
//   { id, directive?, authority, disposes[] }
//   - `authority` is the ID of an entry of `authorities[]` (which carries the signed record id and
//     its operation), so the record a disposal rests on is itself an item of the contract and its
//     relation `AUTH>TMB` appears in the coverage edges of docs/bundle.md#coverage.
//   - With `directive`: the tombstone disposes that deferred/superseded/abandoned directive. Its
//     authority operation must match the state (defer/supersede/abandon) and `disposes` must be
//     exactly the directive, its targets, criteria, implementations, evidence and every relation (docs/bundle.md#coverage)
//     that touches them (relation IDs `FROM>TO`).
//   - Without `directive`: the permanent record of a narrowing bind that removed items (targets,
//     criteria, atoms, relations; docs/contract.md#scope-history). Its `disposes` names those removed IDs, none of which may
//     still be live, and its authority must be valid for its own operation.
//   No free-text reason field: text belongs in the signed authority record, never in IDs or output.
import * as z from 'zod/mini';
import { fail } from '../errors.js';
import { int, list, str } from '../schema-primitives.js';

// Caps bound the work every later rule does (spans, verbatim search) on hostile input.
import { CONTRACT_MAX_TEXT as MAX_TEXT, CONTRACT_PLACEHOLDER_IDS_REPORTED } from '../limits.js';
import { REPO_PATH_MAX_CHARS as MAX_PATH } from '../limits.js';
import { CONTRACT_MAX_LIST as MAX_LIST } from '../limits.js';

const text = str({ min: 1, max: MAX_TEXT });
const idRef = str({ max: 64 });
const idList = list(idRef, 0, MAX_LIST);
const pathList = list(str({ min: 1, max: MAX_PATH }), 1, MAX_LIST);

// The vocabularies live in ./vocabulary.ts (zod-free, shared with the bundle schema); re-exported here.
import { ATOM_KINDS, AUTHORITY_OPERATIONS, DIRECTIVE_STATES, EVIDENCE_KINDS, SOURCE_CLASSES } from './vocabulary.js';
import { CONTRACT_MAX_SOURCES, CONTRACT_RELATION_ID_MAX_CHARS, ID_FIELD_MAX_CHARS } from '../limits.js';
export { ATOM_KINDS, AUTHORITY_OPERATIONS, DIRECTIVE_STATES, EVIDENCE_KINDS, SOURCE_CLASSES };

const atomSchema = z.strictObject({
  id: idRef,
  span: z.tuple([int(0), int(0)]),
  kind: z.enum(ATOM_KINDS),
  directives: idList,
});

const sourceSchema = z.strictObject({
  id: idRef,
  path: str({ min: 1, max: MAX_PATH }),
  class: z.enum(SOURCE_CLASSES),
  atoms: list(atomSchema, 0, MAX_LIST),
});

const targetSchema = z.strictObject({ id: idRef, paths: pathList });

const criterionSchema = z.strictObject({ id: idRef, statement: text, atoms: idList });

const directiveSchema = z.strictObject({
  id: idRef,
  statement: text,
  state: z.enum(DIRECTIVE_STATES),
  sources: idList,
  targets: list(targetSchema, 0, MAX_LIST),
  criteria: list(criterionSchema, 0, MAX_LIST),
  implementations: idList,
  evidence: idList,
});

const implementationSchema = z.strictObject({ id: idRef, paths: pathList });

const evidenceSchema = z.strictObject({ id: idRef, kind: z.enum(EVIDENCE_KINDS), paths: pathList });

const authoritySchema = z.strictObject({
  id: idRef,
  operation: z.enum(AUTHORITY_OPERATIONS),
  record: str({ max: ID_FIELD_MAX_CHARS }),
});

const tombstoneSchema = z.strictObject({
  id: idRef,
  directive: z.optional(idRef),
  authority: idRef,
  // Relation IDs are `FROM>TO`, so entries may be up to two IDs long.
  disposes: list(str({ max: CONTRACT_RELATION_ID_MAX_CHARS }), 1, MAX_LIST * 4),
});

export const contractSchema = z.strictObject({
  kind: z.literal('governed/request-contract'),
  version: z.literal(1),
  title: text,
  sources: list(sourceSchema, 0, CONTRACT_MAX_SOURCES),
  directives: list(directiveSchema, 0, MAX_LIST),
  implementations: list(implementationSchema, 0, MAX_LIST),
  evidence: list(evidenceSchema, 0, MAX_LIST),
  authorities: list(authoritySchema, 0, MAX_LIST),
  tombstones: list(tombstoneSchema, 0, MAX_LIST),
});

export type Contract = z.infer<typeof contractSchema>;
export type ContractSource = Contract['sources'][number];
export type ContractAtom = ContractSource['atoms'][number];
export type ContractDirective = Contract['directives'][number];
export type ContractTarget = ContractDirective['targets'][number];
export type ContractCriterion = ContractDirective['criteria'][number];
export type ContractImplementation = Contract['implementations'][number];
export type ContractEvidence = Contract['evidence'][number];
export type ContractAuthority = Contract['authorities'][number];
export type ContractTombstone = Contract['tombstones'][number];
export type DirectiveState = ContractDirective['state'];
export type AuthorityOperation = ContractAuthority['operation'];

type PathKey = PropertyKey;

/** `$.directives[0].targets[1]` style path: structural keys and indexes only, never values. */
export function fieldPath(path: readonly PathKey[]): string {
  let out = '$';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : `.${String(key)}`;
  return out;
}

function valueAt(root: unknown, path: readonly PathKey[]): { found: boolean } {
  let cur: unknown = root;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return { found: false };
    if (!Object.prototype.hasOwnProperty.call(cur, key)) return { found: false };
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return { found: true };
}

/**
 * Validate the shape of a parsed contract. The first zod issue decides the one error code; its id
 * is the field path. For an unknown key the path is the enclosing object's path: the key name itself
 * is input text and never leaves this function.
 */
export function parseContract(value: unknown): Contract {
  const result = contractSchema.safeParse(value);
  if (result.success) {
    assertNoPlaceholders(result.data);
    return result.data;
  }
  const issue = result.error.issues[0];
  if (issue === undefined) fail('contract_field_invalid', ['$']);
  const where = fieldPath(issue.path);
  // A field absent from the input is "missing" whatever zod calls it (a literal reports
  // invalid_value, a string invalid_type); unknown keys are reported at their (present) parent.
  if (issue.path.length > 0 && !valueAt(value, issue.path).found) fail('contract_field_missing', [where]);
  const top = issue.path[0];
  if (issue.path.length === 1 && top === 'kind') fail('contract_kind_invalid', [where]);
  if (issue.path.length === 1 && top === 'version') fail('contract_version_unsupported', [where]);
  switch (issue.code) {
    case 'unrecognized_keys':
      return fail('contract_field_unknown', [where]);
    case 'too_big':
      return fail('contract_field_too_large', [where]);
    default:
      return fail('contract_field_invalid', [where]);
  }
}

/**
 * What marks a value the writer must still fill in (`governed contract init`, docs/contract-init.md):
 * a string that starts with it. Never a valid path or ID, and refused wherever it is.
 */
export const PLACEHOLDER_PREFIX = '<<FILL-IN';

/** Field paths (`$.directives[0].targets[0].paths[0]`) of every string that is still a placeholder. */
export function findPlaceholders(value: unknown, path: PathKey[] = [], out: string[] = []): string[] {
  if (typeof value === 'string') {
    if (value.startsWith(PLACEHOLDER_PREFIX)) out.push(fieldPath(path));
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => findPlaceholders(v, [...path, i], out));
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) findPlaceholders(v, [...path, k], out);
  }
  return out;
}

/**
 * Refuse a (schema-valid: its keys are the schema's, never input text) contract that still holds a
 * placeholder, naming each place by its field path (`contract_fill_in_left`).
 */
export function assertNoPlaceholders(contract: Contract): void {
  const found = findPlaceholders(contract);
  if (found.length > 0) fail('contract_fill_in_left', found.slice(0, CONTRACT_PLACEHOLDER_IDS_REPORTED));
}
