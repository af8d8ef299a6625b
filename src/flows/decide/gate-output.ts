// The one decision object `governed gate --json` prints (docs/commands.md#common-behaviour "one JSON object on stdout, also
// on failure"; docs/gate.md#2-governed-gate), and its human summary. Stable, documented in docs/gate.md; every
// field is present in every decision (null when the gate stopped before knowing it), so a deploy
// script can read it without guessing. `decision` is ALLOW only for exit 0.
import type { GovernedError } from '../../core/errors.js';

export const GATE_SCHEMA_VERSION = 1;

export interface GateReason {
  readonly code: string;
  readonly ids: readonly string[];
}

export interface GateDecisionJson {
  readonly schemaVersion: typeof GATE_SCHEMA_VERSION;
  readonly command: 'gate';
  readonly decision: 'ALLOW' | 'DENY';
  readonly exit: number;
  readonly state: 'RELEASE_ELIGIBLE' | 'REVIEW_ONLY' | null;
  readonly unit: string | null;
  readonly trustMode: 'co-located' | 'separated';
  readonly subject: { readonly commit: string | null; readonly manifestDigest: string | null };
  /** The pinned policy's digest, equal to the expected `--policy-digest` when known. */
  readonly policyDigest: string | null;
  /** The pinned trust root in force (bound into every receipt that counts). */
  readonly trustDigest: string | null;
  /** The deploy-side trust root (`--trust`) every relied-on record was re-verified under. */
  readonly gateTrustDigest: string | null;
  readonly evaluatedAt: string;
  readonly reasons: readonly GateReason[];
  readonly preservationWaiver: string | null;
  readonly current: { readonly planningStateDigest: string; readonly contentDigest: string; readonly workStateDigest: string } | null;
  readonly reliedOn: { readonly receipts: readonly string[]; readonly authorities: readonly string[] } | null;
  readonly attestation: { readonly path: string; readonly payloadDigest: string } | null;
  readonly error: { readonly code: string; readonly exit: number; readonly message: string; readonly ids: readonly string[] } | null;
}

export function errorJson(e: GovernedError): NonNullable<GateDecisionJson['error']> {
  return { code: e.code, exit: e.exit, message: e.message, ids: [...e.ids] };
}

/** A short summary for people; identifiers and codes only, never an input value. */
export function gateHuman(d: GateDecisionJson): string {
  const lines: string[] = [];
  const head = d.error !== null ? `DENY (exit ${d.exit}): ${d.error.code}` : `${d.decision} (exit ${d.exit}): ${d.state ?? 'no decision'}`;
  lines.push(`gate ${head}`);
  if (d.unit !== null) lines.push(`  unit              ${d.unit}`);
  if (d.subject.commit !== null) lines.push(`  subject           ${d.subject.commit}${d.subject.manifestDigest ? ` (manifest ${d.subject.manifestDigest})` : ''}`);
  if (d.policyDigest !== null) lines.push(`  policy            ${d.policyDigest}`);
  if (d.gateTrustDigest !== null) lines.push(`  trust (deploy)    ${d.gateTrustDigest}`);
  if (d.trustDigest !== null) lines.push(`  trust (pinned)    ${d.trustDigest}`);
  lines.push(`  trust mode        ${d.trustMode}`);
  lines.push(`  evaluated at      ${d.evaluatedAt}`);
  if (d.preservationWaiver !== null) lines.push(`  preservation      waived: ${d.preservationWaiver}`);
  if (d.reliedOn !== null) {
    lines.push(`  relied on         ${d.reliedOn.receipts.length} receipt(s), ${d.reliedOn.authorities.length} authority record(s), re-verified`);
  }
  for (const r of d.reasons) lines.push(`  reason            ${r.code}${r.ids.length > 0 ? ` [${r.ids.join(', ')}]` : ''}`);
  if (d.error !== null && d.error.ids.length > 0) lines.push(`  error ids         ${d.error.ids.join(', ')}`);
  if (d.attestation !== null) lines.push(`  attestation       ${d.attestation.path} (${d.attestation.payloadDigest})`);
  return `${lines.join('\n')}\n`;
}
