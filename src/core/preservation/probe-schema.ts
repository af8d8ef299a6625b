// The preservation adapter protocol and the probe receipt predicate: their one definition
// (docs/preservation.md#adapter-protocol, docs/preservation.md#probes). The probe predicate is read
// through its compiled form (./probe.ts, docs/architecture.md#compiled-formats).
import * as z from 'zod/mini';
import { digestString, hex64, int, isoSeconds, list, str } from '../schema-primitives.js';
import { CONTRACT_ID_RE } from '../contract/ids.js';
import { separationSchema } from '../receipt-predicate-schema.js';
import { CAPABILITY_RE, ENTRY_RE } from './vocabulary.js';
import { PROBE_MAX_CAPABILITIES, PROBE_MAX_INVENTORY } from '../limits.js';
import { UNIT_ID_RE } from '../ids.js';
import { SURFACE_KIND_TOKENS } from './probe.js';

export const inventoryOutputSchema = z.strictObject({
  kind: z.literal('governed/surface-inventory'),
  version: z.literal(1),
  surfaces: list(z.strictObject({ entry: str({ re: ENTRY_RE }), kind: z.enum(SURFACE_KIND_TOKENS) }), 0, PROBE_MAX_INVENTORY),
});
export type InventoryOutput = z.infer<typeof inventoryOutputSchema>;

export const probeOutputSchema = z.strictObject({
  kind: z.literal('governed/probe-result'),
  version: z.literal(1),
  entry: str({ re: ENTRY_RE }),
  exit_code: int(0, 255),
  capabilities: list(str({ re: CAPABILITY_RE }), 0, PROBE_MAX_CAPABILITIES),
  output_digest: digestString,
});
export type ProbeOutput = z.infer<typeof probeOutputSchema>;

/** One sandbox run probes every requested entry, in request order (one result per entry). */
export const probeBatchOutputSchema = z.strictObject({
  kind: z.literal('governed/probe-results'),
  version: z.literal(1),
  results: list(probeOutputSchema, 0, PROBE_MAX_INVENTORY),
});

/** What governed asks the adapter (the bundle the sandbox delivers at its fixed path). */
export const adapterRequestSchema = z.strictObject({
  kind: z.literal('governed/adapter-request'),
  version: z.literal(1),
  mode: z.enum(['inventory', 'probe']),
  /** The entries to probe (empty for `inventory`). */
  entries: list(str({ re: ENTRY_RE }), 0, PROBE_MAX_INVENTORY),
});
export type AdapterRequest = z.infer<typeof adapterRequestSchema>;

const probeResultSchema = z.strictObject({
  surface: str({ re: CONTRACT_ID_RE }),
  evidence_id: str({ re: CONTRACT_ID_RE }),
  entry: str({ re: ENTRY_RE }),
  exit_code: int(0, 255),
  capabilities: list(str({ re: CAPABILITY_RE }), 0, PROBE_MAX_CAPABILITIES),
  output_digest: digestString,
});

/** One probe receipt per adapter run: every surface probed on one sealed snapshot. */
export const probePredicateSchema = z.strictObject({
  unit: str({ re: UNIT_ID_RE }),
  phase: z.enum(['baseline', 'current']),
  /** The sealed snapshot the entries ran on, and the sealed dependency root (null: none). */
  snapshot_digest: digestString,
  dependency_digest: z.nullable(digestString),
  /** The allowlisted adapter that ran them, and the probe attestor that signs (not blind). */
  adapter_sha256: hex64,
  attestor_sha256: hex64,
  results: list(probeResultSchema, 1, PROBE_MAX_INVENTORY),
  probed_at: isoSeconds,
  /**
   * Who ran the probe (docs/runnerd.md#probes-through-the-daemon): `separated` when governed runnerd
   * ran it for a writer that reached it only through its socket, with the daemon's identity and the
   * client's uid and pid as the kernel reported them; `co-located` (or absent, in receipts made
   * before this field) when the caller's own process ran it.
   */
  trust_mode: z.optional(z.enum(['co-located', 'separated'])),
  separation: z.optional(separationSchema),
});
export type ProbePredicate = z.infer<typeof probePredicateSchema>;
export type ProbeResult = ProbePredicate['results'][number];
