// The review bundle format (docs/bundle.md#views, docs/reviewers.md#the-reviewers-world): the one definition of what a reviewer reads at
// $GOVERNED_BUNDLE. Closed at every level. docs/schemas/bundle.schema.json is generated from this schema
// (test/schemas-doc.test.ts fails when it is stale) and docs/bundle.md explains it. zod/mini, like every
// format (../schema-primitives.ts): governed builds bundles to this type, and the pinned coverage
// reviewer (runner/reviewers/src/coverage/bundle.ts) parses the bundle it is given with this very
// schema and the rule functions of ./bundle-rules.ts, bundled into its single file by scripts/pinned-build.mjs.
//
// The request contract's bundle section is split into `contract`, `authorities` and `tombstones`, and the
// atom→directive edges get their own `source_map` section, so that every role view of docs/bundle.md#views is an
// exact subset of sections (source_fidelity sees authorities and tombstones without directives;
// authority_release sees the atom→directive relations without source text).
import * as z from 'zod/mini';
import { count, hex64, int, isoSeconds, list, str } from '../schema-primitives.js';
import { CHECK_REPORTS, STAGES } from '../review-vocabulary.js';
import { ATOM_KINDS, DIRECTIVE_STATES, EVIDENCE_KINDS, SOURCE_CLASSES, AUTHORITY_OPERATIONS } from '../contract/vocabulary.js';
import { bundleIdSchema, coverageSchema, relationSchema } from './coverage-schema.js';
import { preservationSectionSchema } from './preservation-schema.js';
import { AUTHORITY_RECORD_ID_RE, CHALLENGE_ID_RE, DIGEST_RE, GIT_OID_RE, NAME_RE, UNIT_ID_RE } from '../ids.js';
import { CHECK_COMMAND_ARG_MAX_CHARS, CHECK_COMMAND_MAX_ARGS, CHECK_DEPENDENCY_ROOT_MAX_CHARS } from '../limits.js';
import { REFINEMENTS } from '../format/refinements.js';
import { REPO_PATH_MAX_CHARS } from '../limits.js';

// The coverage section lives in ./coverage-schema.ts (review-run loads only that); re-exported here.
export { coverageSchema };

import { BUNDLE_SCHEMA_ID, SECTION_NAMES } from './names.js';
export { BUNDLE_SCHEMA_ID, COVERAGE_KINDS, SECTION_NAMES, type CoverageKind, type SectionName } from './names.js';

const id = bundleIdSchema;
const recordId = str({ re: AUTHORITY_RECORD_ID_RE });
const relation = relationSchema;
const digest = str({ re: DIGEST_RE });
const gitOid = str({ re: GIT_OID_RE });
const path = str({ min: 1, max: REPO_PATH_MAX_CHARS });
const mode = z.enum(['100644', '100755', '120000']);
// isoSeconds (../schema-primitives.ts): the published JSON Schema keeps the shape as its pattern; the
// refinement adds the calendar (../iso-time.ts).
const slot = str({ re: NAME_RE });
const idOrRelation = z.union([id, relation]);

export const sourceEntrySchema = z.strictObject({
  id,
  path,
  class: z.enum(SOURCE_CLASSES),
  /** `sha256:` of the exact bytes (read from the baseline tree). */
  digest,
  /** The exact source bytes, base64: atom spans are byte offsets into them. */
  bytes_b64: z.base64(),
  /** The byte-exact partition; the atom→directive mapping is in `source_map`, not here. */
  atoms: z.array(z.strictObject({ id, span: z.tuple([count, count]), kind: z.enum(ATOM_KINDS) })),
});

export const sourceMapSchema = z.strictObject({
  /** Every atom>directive edge (IDs only), sorted by UTF-8 bytes. */
  relations: z.array(relation),
});

const targetSchema = z.strictObject({ id, paths: z.array(path) });
const criterionSchema = z.strictObject({ id, statement: z.string(), atoms: z.array(id) });

/** Development, test and integration: the whole contract apart from authorities and tombstones. */
export const fullContractSchema = z.strictObject({
  form: z.literal('full'),
  title: z.string(),
  directives: z.array(
    z.strictObject({
      id,
      statement: z.string(),
      state: z.enum(DIRECTIVE_STATES),
      sources: z.array(id),
      targets: z.array(targetSchema),
      criteria: z.array(criterionSchema),
      implementations: z.array(id),
      evidence: z.array(id),
    }),
  ),
  implementations: z.array(z.strictObject({ id, paths: z.array(path) })),
  evidence: z.array(z.strictObject({ id, kind: z.enum(EVIDENCE_KINDS), paths: z.array(path) })),
});

/**
 * Planning: the planning view of docs/contract.md#the-states-a-receipt-is-judged-against (no state progress — only `in_scope` or the disposed
 * state — and no implementation/evidence mappings), so the planning bundle is a function of the
 * planning state alone.
 */
export const planningContractSchema = z.strictObject({
  form: z.literal('planning'),
  title: z.string(),
  directives: z.array(
    z.strictObject({
      id,
      statement: z.string(),
      disposition: z.enum(['in_scope', 'deferred', 'superseded', 'abandoned']),
      sources: z.array(id),
      targets: z.array(targetSchema),
      criteria: z.array(criterionSchema),
    }),
  ),
});

export const authorityEntrySchema = z.strictObject({ id, operation: z.enum(AUTHORITY_OPERATIONS), record: recordId });

export const tombstoneEntrySchema = z.strictObject({
  id,
  directive: z.nullable(id),
  authority: id,
  disposes: z.array(idOrRelation),
});

export const scopeHistoryEntrySchema = z.strictObject({
  id,
  version: int(1),
  scope_epoch: int(1),
  work_revision: count,
  contract_digest: digest,
  sources_digest: digest,
  bound_at: isoSeconds,
  additions: z.array(idOrRelation),
  narrowing: z.array(idOrRelation),
  progress: z.array(id),
  authorities: z.array(recordId),
});

export const changeEntrySchema = z.strictObject({
  id,
  path,
  /** sha256 hex at the baseline commit; null when the path did not exist there. */
  baseline: z.nullable(hex64),
  /** sha256 hex in the workspace; null when the path was deleted. */
  current: z.nullable(hex64),
});

export const fileEntrySchema = z.discriminatedUnion('present', [
  // Contract paths name regular files (docs/contract.md#validation-rules): a symlink is refused before a bundle is built.
  z.strictObject({ path, present: z.literal(true), mode: z.enum(['100644', '100755']), sha256: hex64, bytes_b64: z.base64() }),
  z.strictObject({ path, present: z.literal(false) }),
]);

export const baselineFilesSchema = z.strictObject({
  commit: gitOid,
  tree: gitOid,
  /** The baseline manifest (docs/contract.md#workspace-digest) under the policy's product roots. */
  manifest: z.array(z.strictObject({ path, mode, sha256: hex64 })),
  files: z.array(fileEntrySchema),
});

export const priorReceiptSchema = z.strictObject({
  receipt_id: digest,
  stage: z.enum(STAGES),
  slot,
  verdict: z.enum(['CLEAN', 'DIRTY']),
});

export const sectionsSchema = z.strictObject({
  sources: z.optional(z.array(sourceEntrySchema)),
  source_map: z.optional(sourceMapSchema),
  contract: z.optional(z.discriminatedUnion('form', [fullContractSchema, planningContractSchema])),
  authorities: z.optional(z.array(authorityEntrySchema)),
  tombstones: z.optional(z.array(tombstoneEntrySchema)),
  scope_history: z.optional(z.array(scopeHistoryEntrySchema)),
  changes: z.optional(z.array(changeEntrySchema)),
  current_files: z.optional(z.array(fileEntrySchema)),
  baseline_files: z.optional(baselineFilesSchema),
  // Planning and integration, when the unit has a preservation contract bound (./preservation-schema.ts).
  preservation: z.optional(preservationSectionSchema),
  prior_receipts: z.optional(z.array(priorReceiptSchema)),
});

const sectionName = z.enum(SECTION_NAMES);

/**
 * Check slots only (docs/reviewers.md#check-reviewers): what the check adapter runs, fixed by the
 * policy and the challenge — the command (cwd /snapshot), the sealed snapshot's path, the dependency
 * root with the digest bound at issuance (null when the policy declares none), the report format,
 * and the adapter's time budget for the command (below the sandbox timeout).
 */
export const checkInputsSchema = z.strictObject({
  // The policy's own rules for these fields (../sandbox-bounds.ts, ../limits.ts): a bundle can carry
  // only a command and a dependency root that a policy could have fixed.
  command: list(str({ min: 1, max: CHECK_COMMAND_ARG_MAX_CHARS }), 1, CHECK_COMMAND_MAX_ARGS).check(
    z.refine(REFINEMENTS.checkCommandAllowed, { message: 'command' }),
    z.meta({ description: 'argv; argv[0] an absolute program path under /usr with no empty, ".", ".." or "-"-led segment; no argument holds a NUL' }),
  ),
  snapshot: z.literal('/snapshot'),
  dependency_root: z.union([
    z.null(),
    z.strictObject({
      path: str({ min: 1, max: CHECK_DEPENDENCY_ROOT_MAX_CHARS }).check(
        z.refine(REFINEMENTS.dependencyRootAllowed, { message: 'path' }),
        z.meta({ description: 'a relative directory: segments of [A-Za-z0-9._@+-], none empty, ".", ".." or starting with "-"' }),
      ),
      digest,
    }),
  ]),
  report: z.enum(CHECK_REPORTS),
  timeout_ms: int(1000),
});
export type CheckInputs = z.infer<typeof checkInputsSchema>;

export const bundleSchema = z.strictObject({
  schema: z.literal(BUNDLE_SCHEMA_ID),
  challenge_id: str({ re: CHALLENGE_ID_RE }),
  unit: str({ re: UNIT_ID_RE }),
  stage: z.enum(STAGES),
  slot,
  view: z.strictObject({
    /** The role (planning, integration) or `complete` (development, test). */
    name: slot,
    included: z.array(sectionName),
    withheld: z.array(sectionName),
    /** digest of the view (see docs/bundle.md); bound into the challenge and the receipt. */
    digest,
  }),
  sections: sectionsSchema,
  coverage: coverageSchema,
  check: z.optional(checkInputsSchema),
});

export type Bundle = z.infer<typeof bundleSchema>;
export type Sections = z.infer<typeof sectionsSchema>;
export type Coverage = z.infer<typeof coverageSchema>;
export type SourceEntry = z.infer<typeof sourceEntrySchema>;
export type FileEntry = z.infer<typeof fileEntrySchema>;
export type ChangeEntry = z.infer<typeof changeEntrySchema>;
export type ScopeHistoryEntry = z.infer<typeof scopeHistoryEntrySchema>;
export type PriorReceipt = z.infer<typeof priorReceiptSchema>;
export type BaselineFiles = z.infer<typeof baselineFilesSchema>;
