import { authorityRecordFlow } from '../../flows/authority/record.js';
import { resolveHome } from '../options.js';
import type { CommandResult } from '../output.js';
import type { AuthorityRecordOutput } from '../../core/command-output-records.js';

export async function authorityRecordCommand(opts: { record: string; home?: string }): Promise<CommandResult> {
  const r = authorityRecordFlow({ record: opts.record, home: resolveHome(opts.home), now: Math.floor(Date.now() / 1000) });
  return {
    exit: 0,
    json: {
      ok: true,
      record_id: r.recordId,
      request_id: r.requestId,
      operation: r.operation,
      unit: r.unit,
      ids: r.ids,
      state_before: r.stateBefore,
      state_after: r.stateAfter,
      key_id: r.keyId,
      expires_at: new Date(r.expiresAt * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      seq: r.recordedSeq,
    } satisfies AuthorityRecordOutput,
    human:
      `recorded ${r.recordId} (${r.operation}, ${r.ids.length} IDs${r.unit === null ? '' : `, unit ${r.unit}`}) signed by ${r.keyId}\n` +
      `  unused until a command consumes it (once) before it expires`,
  };
}
