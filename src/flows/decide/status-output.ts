// The stable JSON object of `governed status --json` (schema in docs/gate.md "status") and its
// human table. Identifiers, digests and codes only: never a source text or a file content.
/** The one `--json` format version (src/core/json-style.ts); the object also prints it as `schema_version`. */
export const STATUS_SCHEMA_VERSION = JSON_SCHEMA_VERSION;

/** Defined once, in zod/mini (src/core/command-output.ts statusSchema); a type import only. */
export type { StatusJson } from '../../core/command-output.js';
import type { StatusJson } from '../../core/command-output.js';
import { JSON_SCHEMA_VERSION } from '../../core/json-style.js';

const pad = (s: string, n: number): string => (s.length >= n ? `${s} ` : s + ' '.repeat(n - s.length));

export function statusHuman(s: StatusJson): string {
  const out: string[] = [];
  out.push(`unit ${s.unit}: ${s.state}`);
  out.push(`  evaluated ${s.evaluatedAt}, trust mode ${s.trustMode}, planning ${s.planningSealed ? 'sealed' : 'not sealed'}`);
  out.push(`  scope version ${s.current.scopeVersion}, work revision ${s.current.workRevision}, workspace ${s.current.workspaceDigest}`);
  out.push(
    `  preservation ${s.preservation.required ? 'required' : 'waived'}${s.preservation.waiver !== null ? `: ${s.preservation.waiver}` : ''}` +
      (s.preservation.required ? ` (contract: ${s.preservation.contract ? 'yes' : 'no'}, incident history: ${s.preservation.incidentHistory ? 'yes' : 'no'})` : ''),
  );
  out.push('');
  out.push(`${pad('stage / slot', 28)}${pad('gating', 8)}${pad('streak', 10)}${pad('counted', 9)}${pad('missing', 9)}blocked by`);
  for (const st of s.stages) {
    out.push(
      `${pad(st.stage, 28)}${pad(st.gating ? 'yes' : 'no', 8)}${pad(`${st.streak}/${st.floor}`, 10)}${pad('', 9)}${pad(String(st.missingRounds), 9)}${st.complete ? 'complete' : ''}`,
    );
    for (const slot of st.slots) {
      out.push(`${pad(`  ${slot.slot}`, 28)}${pad('', 8)}${pad('', 10)}${pad(String(slot.counted), 9)}${pad(String(slot.missing), 9)}${slot.blockedBy.join(', ') || '-'}`);
    }
  }
  out.push('');
  if (s.leases.length === 0) out.push('leases: none');
  for (const l of s.leases) out.push(`lease ${l.lease} (writer ${l.writerSession}) until ${l.expiresAt}${l.expired ? ' — expired, not yet swept (still blocks)' : ''}`);
  if (s.vetoes.length === 0) out.push('vetoes: none');
  for (const v of s.vetoes) {
    for (const f of v.findings) out.push(`veto ${v.receipt} ${v.stage}.${v.slot}: ${f.code} ${f.class} [${f.refs.join(', ')}]`);
  }
  if (s.uncoveredChanges.length === 0) out.push('uncovered changes: none');
  else out.push(`uncovered changes (${s.uncoveredChanges.length}; review-challenge refuses them until the contract covers each):`, ...s.uncoveredChanges.map((p) => `  ${p}`));
  out.push(`receipts: ${s.receipts.total} (${s.receipts.loaded} loaded for this decision), aborted runs: ${s.abortedRuns.length}`);
  if (s.reasons.length === 0) out.push('reasons: none — RELEASE_ELIGIBLE');
  else out.push('reasons:');
  for (const r of s.reasons) out.push(`  ${r.code}${r.ids.length > 0 ? ` [${r.ids.join(', ')}]` : ''}`);
  return `${out.join('\n')}\n`;
}
