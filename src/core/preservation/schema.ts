// The preservation contract's closed schema (docs/preservation.md#the-contract) and its parser: the
// one definition of the format, serving `preservation set`, replay, the check and the published
// JSON Schema. Shape only; the cross-field rules (ids, destructive fields, N/A reasons, paths) are in
// ./validate.ts, each with its own code. IDs are plain strings here so that a malformed one is
// reported as `preservation_id_invalid` with its field path, not as a generic type error.
import * as z from 'zod/mini';
import { fail } from '../errors.js';
import { fieldPath } from '../contract/schema.js';
import { gitId, list, str } from '../schema-primitives.js';
import { CONTRACT_MAX_LIST, REPO_PATH_MAX_CHARS, CONTRACT_MAX_TEXT } from '../limits.js';

const MAX_TEXT = CONTRACT_MAX_TEXT;
const MAX_PATH = REPO_PATH_MAX_CHARS;
const MAX_SURFACES = CONTRACT_MAX_LIST;

const text = str({ min: 1, max: MAX_TEXT });
const idRef = str({ max: 64 });
const pathList = list(str({ min: 1, max: MAX_PATH }), 1, PRESERVATION_SURFACE_MAX_PATHS);

import { DESTRUCTIVE_DISPOSITIONS, DISPOSITIONS, SURFACE_KINDS, VENDOR_DISPOSITIONS } from './vocabulary.js';
import { ID_FIELD_MAX_CHARS, PRESERVATION_MAX_VENDORS, PRESERVATION_SURFACE_MAX_PATHS, PROBE_ENTRY_MAX_CHARS, VENDOR_REPOSITORY_MAX_CHARS } from '../limits.js';
import { ENTRY_RE } from './vocabulary.js';
export { DESTRUCTIVE_DISPOSITIONS, DISPOSITIONS, SURFACE_KINDS, VENDOR_DISPOSITIONS };
export type Disposition = (typeof DISPOSITIONS)[number];
export type DestructiveDisposition = (typeof DESTRUCTIVE_DISPOSITIONS)[number];

export function isDestructive(d: Disposition): d is DestructiveDisposition {
  return (DESTRUCTIVE_DISPOSITIONS as readonly string[]).includes(d);
}


const surfaceSchema = z.strictObject({
  id: idRef,
  kind: z.enum(SURFACE_KINDS),
  /** Kind `other` only: why none of the supported kinds applies (shown to reviewers, not in output). */
  na_reason: z.optional(text),
  paths: pathList,
  disposition: z.enum(DISPOSITIONS),
  /** The real entry the project adapter names (`bin:NAME`, `export:SUBPATH`, `script:NAME`). */
  probe: z.optional(str({ min: 1, max: PROBE_ENTRY_MAX_CHARS, re: ENTRY_RE })),
  baseline_evidence_id: idRef,
  current_evidence_id: idRef,
  authority_id: z.optional(str({ max: ID_FIELD_MAX_CHARS })),
  expected_diff_digest: z.optional(str({ max: 80 })),
});

const originSchema = z.strictObject({
  /** The origin repository's identity (e.g. its canonical URL); identity only, never fetched. */
  repository: str({ min: 1, max: VENDOR_REPOSITORY_MAX_CHARS }),
  commit: z.optional(str({ max: 80 })),
  /** Directory inside the origin tree that was vendored ('.' for the whole tree). */
  path: z.optional(str({ min: 1, max: MAX_PATH })),
  /** Digest of the origin tree at `commit` (docs/preservation.md#vendor-sources). */
  tree_digest: z.optional(str({ max: 80 })),
});

const vendorSchema = z.strictObject({
  id: idRef,
  /** Directory of the local copy inside the product. */
  path: str({ min: 1, max: MAX_PATH }),
  disposition: z.enum(VENDOR_DISPOSITIONS),
  origin: z.optional(originSchema),
});

export const preservationContractSchema = z.strictObject({
  kind: z.literal('governed/preservation-contract'),
  version: z.literal(1),
  /** The unit's baseline commit the surfaces are stated against (must equal the unit's). */
  baseline: gitId,
  intent: text,
  surfaces: list(surfaceSchema, 0, MAX_SURFACES),
  vendor_sources: list(vendorSchema, 0, PRESERVATION_MAX_VENDORS),
});

export type PreservationContract = z.infer<typeof preservationContractSchema>;
export type Surface = PreservationContract['surfaces'][number];
export type SurfaceKind = Surface['kind'];
export type VendorSource = PreservationContract['vendor_sources'][number];

function present(root: unknown, path: readonly PropertyKey[]): boolean {
  let cur: unknown = root;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, key)) return false;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return true;
}

/** Shape check of a parsed document: the first issue decides the one code; its id is the field path. */
export function parsePreservationContract(value: unknown): PreservationContract {
  const result = preservationContractSchema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue === undefined) fail('preservation_field_invalid', ['$']);
  const where = fieldPath(issue.path);
  if (issue.path.length > 0 && !present(value, issue.path)) fail('preservation_field_missing', [where]);
  if (issue.path.length === 1 && issue.path[0] === 'kind') fail('preservation_kind_invalid', [where]);
  if (issue.path.length === 1 && issue.path[0] === 'version') fail('preservation_version_unsupported', [where]);
  if (issue.code === 'unrecognized_keys') fail('preservation_field_unknown', [where]);
  if (issue.code === 'too_big') fail('preservation_field_too_large', [where]);
  return fail('preservation_field_invalid', [where]);
}
