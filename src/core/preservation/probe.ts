// The project/probe adapter protocol and the probe receipt (docs/preservation.md#adapter-protocol,
// #probes). The one definition is ./probe-schema.ts (zod/mini): governed parses adapter stdout with
// it; the probe predicate's compiled form here is what the pinned attestor and the gate check. Pure.
//
// Adapter stdout is ONE closed JSON object (like the reviewer output): for `inventory`, the surfaces
// the adapter discovered in the baseline snapshot; for `probe`, the result of running one surface's
// real entry. Capabilities are closed tokens (subcommand names, export names), never free text; the
// raw output itself never leaves the sandbox — only its digest.
import { buildStatement } from '../intoto.js';
import { separationGovernedUids } from '../receipt-predicate.js';
import { PROBE_PREDICATE } from '../format/compiled.js';
import { formatOf } from '../format/node.js';
import type { ProbePredicate } from './probe-schema.js';
export type { AdapterRequest, InventoryOutput, ProbeOutput, ProbePredicate, ProbeResult } from './probe-schema.js';

import { CAPABILITY_RE, ENTRY_RE } from './vocabulary.js';
export { CAPABILITY_RE, ENTRY_RE };
export const SURFACE_KIND_TOKENS = ['cli_command', 'library_export', 'package_target'] as const;

export const PROBE_PREDICATE_TYPE = 'https://governed.dev/probe-receipt/v1';

/** The probe predicate's compiled form; the adapter protocol's and the predicate's one definition is ./probe-schema.ts (docs/architecture.md#compiled-formats). */
export const PROBE_PREDICATE_FORMAT = /* @__PURE__ */ formatOf<ProbePredicate>(PROBE_PREDICATE);

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
