// `governed audit checkpoint` (docs/commands.md#what-each-command-guarantees): wiring only.
import { auditCheckpoint } from '../../flows/audit/checkpoint.js';
import { resolveHome } from '../options.js';
import type { CommandResult } from '../output.js';
import type { AuditCheckpointOutput } from '../../core/command-output-records.js';

export async function auditCheckpointCommand(opts: { out: string; attestors?: string; home?: string }): Promise<CommandResult> {
  const r = await auditCheckpoint({ home: resolveHome(opts.home), out: opts.out, attestorsDir: opts.attestors, now: new Date() });
  return {
    exit: 0,
    json: { ok: true, ...r } satisfies AuditCheckpointOutput,
    human: [
      `checkpoint written: ${r.path}`,
      `  log entries  ${r.log_entries}`,
      `  log head     ${r.log_head}`,
      ...('origin' in r ? [`  origin       ${r.origin}`, `  tree size    ${r.tree_size}`, `  root hash    ${r.root_hash}`, `  log key      ${r.verifier_key}`] : []),
      `  state        ${r.state_digest}`,
      '  copy it off this machine; later: governed audit verify --checkpoint <file>',
    ].join('\n'),
  };
}
