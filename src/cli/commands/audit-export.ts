// `governed audit export` (docs/commands.md#what-each-command-guarantees): wiring only.
import { auditExport } from '../../flows/audit/export.js';
import { resolveHome } from '../options.js';
import type { CommandResult } from '../output.js';
import type { AuditExportOutput } from '../../core/command-output-records.js';

export async function auditExportCommand(opts: { out: string; unit?: string; home?: string }): Promise<CommandResult> {
  const r = auditExport({ home: resolveHome(opts.home), out: opts.out, unit: opts.unit, now: new Date() });
  return {
    exit: 0,
    json: { ok: true, ...r } satisfies AuditExportOutput,
    human: [
      `export written: ${r.path}`,
      `  log          ${r.log_entries} entries, head ${r.log_head}`,
      `  receipts     ${r.receipts}`,
      `  authority    ${r.authority_records}`,
      `  public keys  ${r.keys}`,
      r.checkpoint_size === null ? '  checkpoint   none stored (docs/audit.md "Automatic checkpoints")' : `  checkpoint   tree size ${r.checkpoint_size}, ${r.proofs} inclusion proofs`,
      `  check anywhere: governed verify ${r.path}/receipts/*.json --trust ${r.path}/trust.pinned.*`,
    ].join('\n'),
  };
}
