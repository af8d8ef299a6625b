// `governed audit cosign` (docs/audit.md "Witnesses"): wiring only.
import { cosign } from '../../flows/audit/cosign.js';
import type { CommandResult } from '../output.js';
import type { AuditCosignOutput } from '../../core/command-output-records.js';

export function auditCosignCommand(opts: { checkpoint: string; logKey: string; key: string; name: string; state: string; proof?: string; out: string }): CommandResult {
  const r = cosign(opts);
  return {
    exit: 0,
    json: { ok: true, ...r } satisfies AuditCosignOutput,
    human: [`cosigned: ${r.out}`, `  origin       ${r.origin}`, `  tree size    ${r.size} (last cosigned: ${r.previous_size ?? 'none'})`, `  witness key  ${r.witness_key}`].join('\n'),
  };
}
