// The bundle's `preservation` section (docs/bundle.md#the-preservation-section, docs/preservation.md#what-a-reviewer-sees-and-what-a-probe-proves):
// what the planning and integration views of the `baseline_preservation` and `authority_release`
// roles show of a unit's preservation — the bound contract with each surface's real diff digest,
// the counted probe receipts, the consumed destructive-authority records, and the incident history
// item by item. Closed at every level; ./schema.ts places it in the bundle and the published JSON
// Schema is generated from it.
// It is the ONE definition of the section: governed builds it to this type, the bundle schema
// (./schema.ts) and the published JSON Schema embed it, and the pinned coverage reviewer
// (runner/reviewers/src/coverage/bundle.ts) checks the section it is given with this very schema's
// compiled form (docs/architecture.md#compiled-formats) and `preservationSectionViolation`
// (./preservation-rules.ts), bundled into its single file by scripts/pinned-build.mjs.
import * as z from 'zod/mini';
import { CAPABILITY_RE, DESTRUCTIVE_DISPOSITIONS, DISPOSITIONS, ENTRY_RE, INCIDENT_KINDS, SURFACE_KINDS, VENDOR_DISPOSITIONS } from '../preservation/vocabulary.js';
import { int, str } from '../schema-primitives.js';
import { AUTHORITY_RECORD_ID_RE, CONTRACT_ID_RE, DIGEST_RE, GIT_OID_RE } from '../ids.js';
import { CONTRACT_MAX_TEXT, REPO_PATH_MAX_CHARS, VENDOR_REPOSITORY_MAX_CHARS } from '../limits.js';

const id = str({ re: CONTRACT_ID_RE });
const digest = str({ re: DIGEST_RE });
const recordId = str({ re: AUTHORITY_RECORD_ID_RE });
const path = str({ min: 1, max: REPO_PATH_MAX_CHARS });
const entry = str({ re: ENTRY_RE });

export const preservationSurfaceEntrySchema = z.strictObject({
  id,
  kind: z.enum(SURFACE_KINDS),
  /** Kind `other` only: the writer's statement of why no entry can be run. */
  na_reason: z.nullable(str({ min: 1, max: CONTRACT_MAX_TEXT })),
  paths: z.array(path),
  disposition: z.enum(DISPOSITIONS),
  /** The real entry the project adapter runs; null for kind `other`. */
  probe: z.nullable(entry),
  baseline_evidence_id: id,
  current_evidence_id: id,
  /** Destructive dispositions only: the record the human signed and the diff digest it approved. */
  authority_id: z.nullable(recordId),
  expected_diff_digest: z.nullable(digest),
  /** The real diff digest of the surface's paths (baseline commit → judged content); null in planning. */
  diff_digest: z.nullable(digest),
});

export const preservationProbeEntrySchema = z.strictObject({
  /** The probe receipt (its statement's digest) the entry is read from. */
  receipt_id: digest,
  surface: id,
  phase: z.enum(['baseline', 'current']),
  evidence_id: id,
  entry,
  exit_code: int(0, 255),
  capabilities: z.array(str({ re: CAPABILITY_RE })),
  output_digest: digest,
});

export const preservationAuthorityEntrySchema = z.strictObject({
  record: recordId,
  operation: z.enum(DESTRUCTIVE_DISPOSITIONS),
  /** The surfaces the record names. */
  surfaces: z.array(id),
  /** What the human signed as the state after: the expected diff digest. */
  state_after: z.nullable(digest),
});

export const incidentItemEntrySchema = z.strictObject({
  seq: int(1),
  kind: z.enum(INCIDENT_KINDS),
  /** The log entry's own hash: the item is that exact row of the hash-chained log. */
  entry_hash: digest,
  /** A writer's correction: its exact bytes; null for every other kind. */
  correction_b64: z.nullable(z.base64()),
});

export const preservationSectionSchema = z.strictObject({
  binding: z.strictObject({
    version: int(1),
    contract_digest: digest,
    /** The bound incident history's chain digest, or `none`. */
    incident_history: z.union([z.literal('none'), digest]),
  }),
  intent: str({ min: 1, max: CONTRACT_MAX_TEXT }),
  surfaces: z.array(preservationSurfaceEntrySchema),
  vendor_sources: z.array(
    z.strictObject({
      id,
      path,
      disposition: z.enum(VENDOR_DISPOSITIONS),
      origin: z.strictObject({
        repository: str({ min: 1, max: VENDOR_REPOSITORY_MAX_CHARS }),
        commit: str({ re: GIT_OID_RE }),
        path: path,
        tree_digest: digest,
      }),
    }),
  ),
  /** The counted probe receipts: baseline ones in planning, baseline and current in integration. */
  probes: z.array(preservationProbeEntrySchema),
  authorities: z.array(preservationAuthorityEntrySchema),
  /** The bound history, item by item in log order (empty for `none`). */
  incident_history: z.array(incidentItemEntrySchema),
});

export type PreservationSection = z.infer<typeof preservationSectionSchema>;
export type PreservationSurfaceEntry = z.infer<typeof preservationSurfaceEntrySchema>;
export type PreservationProbeEntry = z.infer<typeof preservationProbeEntrySchema>;

export { preservationSectionViolation } from './preservation-rules.js';
