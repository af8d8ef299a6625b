// The review bundle format (docs/bundle.md#views, docs/reviewers.md#the-reviewers-world): the one definition of what a reviewer reads at
// $GOVERNED_BUNDLE. Closed at every level. docs/schemas/bundle.schema.json is generated from this schema
// (test/bundle-builder.test.ts fails when it is stale) and docs/bundle.md explains it.
//
// The SPEC's `contract` section is split into `contract`, `authorities` and `tombstones`, and the
// atom→directive edges get their own `source_map` section, so that every role view of docs/bundle.md#views is an
// exact subset of sections (source_fidelity sees authorities and tombstones without directives;
// authority_release sees the atom→directive relations without source text).
import * as z from 'zod';
import { isIsoSeconds, ISO_SECONDS_SHAPE } from '../iso-time.js';
import { STAGES } from '../receipt-predicate.js';
import { ATOM_KINDS, DIRECTIVE_STATES, EVIDENCE_KINDS, SOURCE_CLASSES, AUTHORITY_OPERATIONS } from '../contract/schema.js';
import { bundleIdSchema, coverageSchema, relationSchema } from './coverage-schema.js';
import { preservationSectionSchema } from './preservation-schema.js';
import { AUTHORITY_RECORD_ID_RE, CHALLENGE_ID_RE, DIGEST_RE, GIT_OID_RE, HEX64_RE, NAME_RE, UNIT_ID_RE } from '../ids.js';

// The coverage section lives in ./coverage-schema.ts (review-run loads only that); re-exported here.
export { coverageSchema };

export const BUNDLE_SCHEMA_ID = 'governed.review-bundle/v1';

/** Every section name, in the order views list them. */
export const SECTION_NAMES = [
  'sources',
  'source_map',
  'contract',
  'authorities',
  'tombstones',
  'scope_history',
  'changes',
  'current_files',
  'baseline_files',
  'preservation',
  'prior_receipts',
] as const;
export type SectionName = (typeof SECTION_NAMES)[number];

export const COVERAGE_KINDS = [
  'sources',
  'atoms',
  'directives',
  'targets',
  'criteria',
  'implementations',
  'evidence',
  'authorities',
  'tombstones',
  'changes',
  'scope_versions',
  'surfaces',
] as const;
export type CoverageKind = (typeof COVERAGE_KINDS)[number];

const id = bundleIdSchema;
const recordId = z.string().regex(AUTHORITY_RECORD_ID_RE);
const relation = relationSchema;
const digest = z.string().regex(DIGEST_RE);
const hex64 = z.string().regex(HEX64_RE);
const gitOid = z.string().regex(GIT_OID_RE);
const path = z.string().min(1).max(4096);
const mode = z.enum(['100644', '100755', '120000']);
// The published JSON Schema keeps the shape as its pattern; the refinement adds the calendar (../iso-time.ts).
const isoSeconds = z.string().regex(ISO_SECONDS_SHAPE).refine(isIsoSeconds, { message: 'iso_time' });
const count = z.int().min(0);
const slot = z.string().regex(NAME_RE);

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
  directive: id.nullable(),
  authority: id,
  disposes: z.array(z.union([id, relation])),
});

export const scopeHistoryEntrySchema = z.strictObject({
  id,
  version: z.int().min(1),
  scope_epoch: z.int().min(1),
  work_revision: count,
  contract_digest: digest,
  sources_digest: digest,
  bound_at: isoSeconds,
  additions: z.array(z.union([id, relation])),
  narrowing: z.array(z.union([id, relation])),
  progress: z.array(id),
  authorities: z.array(recordId),
});

export const changeEntrySchema = z.strictObject({
  id,
  path,
  /** sha256 hex at the baseline commit; null when the path did not exist there. */
  baseline: hex64.nullable(),
  /** sha256 hex in the workspace; null when the path was deleted. */
  current: hex64.nullable(),
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
  sources: z.array(sourceEntrySchema).optional(),
  source_map: sourceMapSchema.optional(),
  contract: z.discriminatedUnion('form', [fullContractSchema, planningContractSchema]).optional(),
  authorities: z.array(authorityEntrySchema).optional(),
  tombstones: z.array(tombstoneEntrySchema).optional(),
  scope_history: z.array(scopeHistoryEntrySchema).optional(),
  changes: z.array(changeEntrySchema).optional(),
  current_files: z.array(fileEntrySchema).optional(),
  baseline_files: baselineFilesSchema.optional(),
  // Planning and integration, when the unit has a preservation contract bound (./preservation-schema.ts).
  preservation: z.optional(preservationSectionSchema),
  prior_receipts: z.array(priorReceiptSchema).optional(),
});

const sectionName = z.enum(SECTION_NAMES);

/**
 * Check slots only (docs/reviewers.md#check-reviewers): what the check adapter runs, fixed by the
 * policy and the challenge — the command (cwd /snapshot), the sealed snapshot's path, the dependency
 * root with the digest bound at issuance (null when the policy declares none), the report format,
 * and the adapter's time budget for the command (below the sandbox timeout).
 */
export const checkInputsSchema = z.strictObject({
  command: z.array(z.string().min(1).max(4096)).min(1).max(64),
  snapshot: z.literal('/snapshot'),
  dependency_root: z.union([z.null(), z.strictObject({ path: z.string().min(1).max(256), digest })]),
  report: z.enum(['tap', 'exit-code']),
  timeout_ms: z.int().min(1000),
});
export type CheckInputs = z.infer<typeof checkInputsSchema>;

export const bundleSchema = z.strictObject({
  schema: z.literal(BUNDLE_SCHEMA_ID),
  challenge_id: z.string().regex(CHALLENGE_ID_RE),
  unit: z.string().regex(UNIT_ID_RE),
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
  check: checkInputsSchema.optional(),
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

/** The published JSON Schema (draft 2020-12) of the bundle: docs/schemas/bundle.schema.json. */
export function bundleJsonSchema(): Record<string, unknown> {
  return {
    $id: 'https://governed.dev/schemas/review-bundle/v1.json',
    title: 'governed review bundle v1',
    ...(z.toJSONSchema(bundleSchema, { target: 'draft-2020-12', unrepresentable: 'any' }) as Record<string, unknown>),
  };
}
