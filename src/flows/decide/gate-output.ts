// The one decision object `governed gate --json` prints (docs/commands.md#common-behaviour "one JSON object on stdout, also
// on failure"; docs/gate.md#2-governed-gate), and its human summary. Stable, documented in docs/gate.md; every
// field is present in every decision (null when the gate stopped before knowing it), so a deploy
// script can read it without guessing. `decision` is ALLOW only for exit 0.
import type { GovernedError } from '../../core/errors.js';

/** The one `--json` format version (src/core/json-style.ts); the object also prints it as `schema_version`. */
export const GATE_SCHEMA_VERSION = JSON_SCHEMA_VERSION;

/** The decision object is defined once, in zod/mini (src/core/command-output.ts gateDecisionSchema); a type import only, so the gate never builds the schema. */
export type { GateDecisionJson } from '../../core/command-output.js';
import type { ErrorObject, GateDecisionJson } from '../../core/command-output.js';
import { JSON_SCHEMA_VERSION } from '../../core/json-style.js';

export function errorJson(e: GovernedError): ErrorObject {
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
    lines.push(`  relied on         ${d.reliedOn.receipts.length} receipt(s), ${d.reliedOn.probes.length} probe receipt(s), ${d.reliedOn.authorities.length} authority record(s), re-verified`);
  }
  for (const r of d.reasons) lines.push(`  reason            ${r.code}${r.ids.length > 0 ? ` [${r.ids.join(', ')}]` : ''}`);
  if (d.error !== null && d.error.ids.length > 0) lines.push(`  error ids         ${d.error.ids.join(', ')}`);
  if (d.attestation !== null) lines.push(`  attestation       ${d.attestation.path} (${d.attestation.payloadDigest})`);
  return `${lines.join('\n')}\n`;
}
