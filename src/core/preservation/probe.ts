// The project/probe adapter protocol and the probe receipt (docs/preservation.md#adapter-protocol,
// #probes). One definition (zod/mini): governed parses adapter stdout with it, the pinned attestor
// checks the probe statement with it. Pure.
//
// Adapter stdout is ONE closed JSON object (like the reviewer output): for `inventory`, the surfaces
// the adapter discovered in the baseline snapshot; for `probe`, the result of running one surface's
// real entry. Capabilities are closed tokens (subcommand names, export names), never free text; the
// raw output itself never leaves the sandbox — only its digest.
import * as z from 'zod/mini';
import { buildStatement } from '../intoto.js';
import { digestString, hex64, int, isoSeconds, list, str } from '../schema-primitives.js';
import { CONTRACT_ID_RE } from '../contract/ids.js';
import { separationGovernedUids } from '../receipt-predicate.js';
import { separationSchema } from '../receipt-predicate-schema.js';

import { CAPABILITY_RE, ENTRY_RE } from './vocabulary.js';
import { PROBE_MAX_CAPABILITIES, PROBE_MAX_INVENTORY } from '../limits.js';
import { UNIT_ID_RE } from '../ids.js';
export { CAPABILITY_RE, ENTRY_RE };
export const SURFACE_KIND_TOKENS = ['cli_command', 'library_export', 'package_target'] as const;

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

export const PROBE_PREDICATE_TYPE = 'https://governed.dev/probe-receipt/v1';

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

const ascending = (xs: readonly string[]): boolean => xs.every((x, i) => i === 0 || (xs[i - 1] as string) < x);

/** A probe receipt's trust mode: absent (receipts made before the field) is co-located. */
export const probeTrustMode = (p: ProbePredicate): 'co-located' | 'separated' => p.trust_mode ?? 'co-located';

/** The cross-field rules beyond the schema: results sorted by surface, capabilities sorted, both unique; separated ⇔ separation, client not a governed uid. */
export function probeRuleViolation(p: ProbePredicate): string | null {
  if (!ascending(p.results.map((r) => r.surface))) return 'results';
  for (const r of p.results) if (!ascending(r.capabilities)) return 'capabilities';
  // Separated ⇔ the daemon identity is present, and the client is none of the governed uids.
  if ((p.trust_mode === 'separated') !== (p.separation !== undefined)) return 'separation';
  if (p.separation !== undefined) {
    const s = p.separation;
    if (separationGovernedUids(s).includes(s.client_uid)) return 'separation.client_uid';
  }
  return null;
}

/** The statement: subject = the sealed snapshot the probe ran on. */
export function buildProbeStatement(p: ProbePredicate) {
  return buildStatement([{ name: `snapshot:${p.phase}`, digest: { sha256: p.snapshot_digest.slice(7) } }], PROBE_PREDICATE_TYPE, p);
}
