// The bundle's `preservation` section (docs/bundle.md#the-preservation-section, docs/preservation.md#what-a-reviewer-sees-and-what-a-probe-proves):
// what the planning and integration views of the `baseline_preservation` and `authority_release`
// roles show of a unit's preservation — the bound contract with each surface's real diff digest,
// the counted probe receipts, the consumed destructive-authority records, and the incident history
// item by item. Closed at every level; ./schema.ts places it in the bundle and the published JSON
// Schema is generated from it.
import * as z from 'zod';
import { INCIDENT_KINDS } from '../preservation/incident.js';
import { DESTRUCTIVE_DISPOSITIONS, DISPOSITIONS, SURFACE_KINDS, VENDOR_DISPOSITIONS } from '../preservation/schema.js';
import { CAPABILITY_RE, ENTRY_RE } from '../preservation/probe.js';
import { bundleIdSchema } from './coverage-schema.js';

const id = bundleIdSchema;
const digest = z.string().regex(/^sha256:[0-9a-f]{64}$/);
const recordId = z.string().regex(/^[A-Z][A-Z0-9]{1,7}-[A-Za-z0-9._-]{1,64}$/);
const path = z.string().min(1).max(4096);
const entry = z.string().regex(ENTRY_RE);

export const preservationSurfaceEntrySchema = z.strictObject({
  id,
  kind: z.enum(SURFACE_KINDS),
  /** Kind `other` only: the writer's statement of why no entry can be run. */
  na_reason: z.string().min(1).max(65_536).nullable(),
  paths: z.array(path),
  disposition: z.enum(DISPOSITIONS),
  /** The real entry the project adapter runs; null for kind `other`. */
  probe: entry.nullable(),
  baseline_evidence_id: id,
  current_evidence_id: id,
  /** Destructive dispositions only: the record the human signed and the diff digest it approved. */
  authority_id: recordId.nullable(),
  expected_diff_digest: digest.nullable(),
  /** The real diff digest of the surface's paths (baseline commit → judged content); null in planning. */
  diff_digest: digest.nullable(),
});

export const preservationProbeEntrySchema = z.strictObject({
  /** The probe receipt (its statement's digest) the entry is read from. */
  receipt_id: digest,
  surface: id,
  phase: z.enum(['baseline', 'current']),
  evidence_id: id,
  entry,
  exit_code: z.int().min(0).max(255),
  capabilities: z.array(z.string().regex(CAPABILITY_RE)),
  output_digest: digest,
});

export const preservationAuthorityEntrySchema = z.strictObject({
  record: recordId,
  operation: z.enum(DESTRUCTIVE_DISPOSITIONS),
  /** The surfaces the record names. */
  surfaces: z.array(id),
  /** What the human signed as the state after: the expected diff digest. */
  state_after: digest.nullable(),
});

export const incidentItemEntrySchema = z.strictObject({
  seq: z.int().min(1),
  kind: z.enum(INCIDENT_KINDS),
  /** The log entry's own hash: the item is that exact row of the hash-chained log. */
  entry_hash: digest,
  /** A writer's correction: its exact bytes; null for every other kind. */
  correction_b64: z.base64().nullable(),
});

export const preservationSectionSchema = z.strictObject({
  binding: z.strictObject({
    version: z.int().min(1),
    contract_digest: digest,
    /** The bound incident history's chain digest, or `none`. */
    incident_history: z.union([z.literal('none'), digest]),
  }),
  intent: z.string().min(1).max(65_536),
  surfaces: z.array(preservationSurfaceEntrySchema),
  vendor_sources: z.array(
    z.strictObject({
      id,
      path,
      disposition: z.enum(VENDOR_DISPOSITIONS),
      origin: z.strictObject({
        repository: z.string().min(1).max(1024),
        commit: z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/),
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
