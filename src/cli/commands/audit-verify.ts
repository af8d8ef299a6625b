// `governed audit verify [--export DIR]` (docs/commands.md#what-each-command-guarantees, docs/state.md#the-store): wiring only. Exit 0 only when every check passed.
import { fail } from '../../core/errors.js';
import { auditVerify, type AuditReport } from '../../flows/audit/verify.js';
import { readInputFile } from '../../flows/read-input.js';
import { CHECKPOINT_FILE_MAX_BYTES } from '../../core/limits.js';
import { loadTrustRootFile } from '../../flows/verify.js';
import { resolveHome } from '../options.js';
import { progressSink } from '../progress.js';
import type { CommandResult } from '../output.js';
import type { AuditVerifyJson } from '../../core/command-output.js';
import { parseVerifierKey } from '../../core/tlog-checkpoint.js';

/** --witness-key K... [--witness-threshold N] (docs/audit.md "Witnesses"). */
function witnessOptions(opts: { witnessKey?: string[]; witnessThreshold?: string }) {
  if (opts.witnessKey === undefined) {
    if (opts.witnessThreshold !== undefined) fail('usage_error', ['--witness-threshold']);
    return {};
  }
  const keys = opts.witnessKey.map((k, i) => parseVerifierKey(k, `--witness-key:${i + 1}`));
  const t = opts.witnessThreshold === undefined ? keys.length : Number(opts.witnessThreshold);
  if (!Number.isSafeInteger(t) || t < 1 || t > keys.length || !/^[1-9][0-9]*$/.test(opts.witnessThreshold ?? '1')) fail('usage_error', ['--witness-threshold']);
  return { witnesses: { keys, threshold: t } };
}

const CO_LOCATED_CAVEAT =
  'co-located trust mode (docs/threat-model.md#trust-modes): a writer running as the uid that owns the keys and the store could ' +
  'rewrite the log and re-sign it consistently; only entries covered by a checkpoint that left the machine ' +
  '(audit verify --checkpoint) are safe from that.';

function human(r: AuditReport, exportDir?: string): string {
  const lines = [
    `${r.exit === 0 ? 'AUDIT OK' : 'AUDIT FAILED'}${r.unit === null ? '' : ` (unit ${r.unit})`}${exportDir === undefined ? '' : ` (export ${exportDir})`}`,
    r.log === null ? '  log chain      BROKEN' : `  log chain      ${r.log.entries} entries, head ${r.log.head}`,
    r.replay === null
      ? '  replay         not run'
      : exportDir === undefined
        ? `  replay         ${r.replay.matches ? `matches the stored state (${r.replay.state_digest})` : 'DIFFERS from the stored state'}`
        : `  replay         ${r.replay.matches ? `every entry applies (state ${r.replay.state_digest})` : 'an entry does not apply'}`,
    `  receipts       ${r.receipts.checked} checked, ${r.receipts.failed} failed (trust root: ${r.trust === 'given' ? '--trust' : 'pinned at each log position'})`,
    `  authority      ${r.authority_records.checked} checked, ${r.authority_records.failed} failed`,
    `  challenges     ${r.challenges.issued} issued, ${r.challenges.claimed} claimed, ${r.challenges.answered} answered, ${r.challenges.aborted} aborted`,
  ];
  for (const c of r.checkpoints) lines.push(`  checkpoint     ${c.file}: ${c.matches ? `the log extends it (entry ${c.log_entries})` : 'NOT extended by this log'}`);
  for (const f of r.failures) lines.push(`  FAIL ${f.code} (exit ${f.exit})${f.ids.length > 0 ? ` [${f.ids.join(', ')}]` : ''}`);
  if (r.trust_modes.includes('co-located') && !r.checkpoints.some((c) => c.matches)) lines.push(`  note: ${CO_LOCATED_CAVEAT}`);
  return lines.join('\n');
}

export async function auditVerifyCommand(opts: { unit?: string; trust?: string; checkpoint?: string[]; witnessKey?: string[]; witnessThreshold?: string; home?: string; export?: string; json?: boolean; progress?: boolean }): Promise<CommandResult> {
  // An export is audited without any store: a --home beside it would be ignored, so it is refused.
  if (opts.export !== undefined && opts.home !== undefined) fail('usage_error', ['--export', '--home']);
  const now = new Date();
  const trust = opts.trust === undefined ? undefined : loadTrustRootFile(opts.trust, now);
  const checkpoints = (opts.checkpoint ?? []).map((file) => ({ file, bytes: readInputFile(file, CHECKPOINT_FILE_MAX_BYTES) }));
  const options = {
    ...(opts.unit === undefined ? {} : { unit: opts.unit }),
    ...(trust === undefined ? {} : { trust }),
    checkpoints,
    now,
    ...witnessOptions(opts),
    progress: progressSink('audit-verify', opts),
  };
  if (opts.export !== undefined) {
    const { auditVerifyExport } = await import('../../flows/audit/export-verify.js');
    const r = await auditVerifyExport(opts.export, options);
    const caveat = r.trust_modes.includes('co-located') ? { caveat: CO_LOCATED_CAVEAT } : {};
    const e = r.export;
    const text = [
      human(r, opts.export),
      `  export         ${e.files} files; manifest ${e.manifest === 'matches' ? 'matches' : 'DIFFERS'}; contents ${e.contents === 'matches' ? 'match the log' : e.contents === 'differs' ? 'DIFFER from the log' : 'not checked'}${e.unit === null ? '' : ` (unit export ${e.unit})`}`,
      `  note: the manifest is not signed; integrity rests on the chain, the signatures and a checkpoint that left the machine.`,
    ].join('\n');
    return { exit: r.exit, json: { ok: r.exit === 0, ...r, ...caveat } satisfies AuditVerifyJson, human: text };
  }
  const r = await auditVerify(resolveHome(opts.home), options);
  // With a matching checkpoint that left the machine, the entries it covers are no longer open to a
  // consistent rewrite; entries after it still are, so the caveat stays in the JSON either way.
  const caveat = r.trust_modes.includes('co-located') ? { caveat: CO_LOCATED_CAVEAT } : {};
  return { exit: r.exit, json: { ok: r.exit === 0, ...r, ...caveat } satisfies AuditVerifyJson, human: human(r) };
}
