// `governed audit verify` (SPEC §4.1, §5): wiring only. Exit 0 only when every check passed.
import { auditVerify, type AuditReport } from '../../flows/audit/verify.js';
import { loadTrustRootFile } from '../../flows/verify.js';
import { resolveHome } from '../options.js';
import type { CommandResult } from '../output.js';

const CO_LOCATED_CAVEAT =
  'co-located trust mode (SPEC §3.1): a writer running as the uid that owns the keys and the store could ' +
  'rewrite the log and re-sign it consistently; this audit cannot detect that without a checkpoint that left the machine.';

function human(r: AuditReport): string {
  const lines = [
    `${r.exit === 0 ? 'AUDIT OK' : 'AUDIT FAILED'}${r.unit === null ? '' : ` (unit ${r.unit})`}`,
    r.log === null ? '  log chain      BROKEN' : `  log chain      ${r.log.entries} entries, head ${r.log.head}`,
    r.replay === null ? '  replay         not run' : `  replay         ${r.replay.matches ? `matches the stored state (${r.replay.state_digest})` : 'DIFFERS from the stored state'}`,
    `  receipts       ${r.receipts.checked} checked, ${r.receipts.failed} failed (trust root: ${r.trust === 'given' ? '--trust' : 'pinned at each log position'})`,
    `  authority      ${r.authority_records.checked} checked, ${r.authority_records.failed} failed`,
    `  challenges     ${r.challenges.issued} issued, ${r.challenges.claimed} claimed, ${r.challenges.answered} answered, ${r.challenges.aborted} aborted`,
  ];
  for (const f of r.failures) lines.push(`  FAIL ${f.code} (exit ${f.exit})${f.ids.length > 0 ? ` [${f.ids.join(', ')}]` : ''}`);
  if (r.trust_modes.includes('co-located')) lines.push(`  note: ${CO_LOCATED_CAVEAT}`);
  return lines.join('\n');
}

export async function auditVerifyCommand(opts: { unit?: string; trust?: string; home?: string }): Promise<CommandResult> {
  const trust = opts.trust === undefined ? undefined : loadTrustRootFile(opts.trust, new Date());
  const r = await auditVerify(resolveHome(opts.home), { ...(opts.unit === undefined ? {} : { unit: opts.unit }), ...(trust === undefined ? {} : { trust }) });
  const caveat = r.trust_modes.includes('co-located') ? { caveat: CO_LOCATED_CAVEAT } : {};
  return { exit: r.exit, json: { ok: r.exit === 0, ...r, ...caveat }, human: human(r) };
}
