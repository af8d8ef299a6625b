import { authorityRequestFlow } from '../../flows/authority/request.js';
import { resolveHome } from '../options.js';
import type { CommandResult } from '../output.js';
import type { AuthorityRequestOutput } from '../../core/command-output-records.js';

export interface AuthorityRequestCliOptions {
  operation: string;
  ids?: string;
  unit?: string;
  stateBefore?: string;
  stateAfter?: string;
  document?: string;
  contract?: string;
  ttl?: string;
  out: string;
  home?: string;
}

export async function authorityRequestCommand(opts: AuthorityRequestCliOptions): Promise<CommandResult> {
  const r = authorityRequestFlow({ ...opts, home: resolveHome(opts.home), now: Math.floor(Date.now() / 1000) });
  const p = r.statement.predicate;
  return {
    exit: 0,
    json: {
      ok: true,
      request_id: r.requestId,
      record_id: r.recordId,
      operation: p.operation,
      unit: p.unit,
      ids: p.ids,
      state_before: p.state_before,
      state_after: p.state_after,
      issued_at: p.issued_at,
      expires_at: p.expires_at,
      payload_digest: r.payloadDigest,
      seq: r.seq,
      out: opts.out,
    } satisfies AuthorityRequestOutput,
    human:
      `authority request ${r.requestId} (${p.operation}, ${p.ids.length} IDs) expires ${p.expires_at}\n` +
      `  presentation written to ${opts.out}\n` +
      `  next, where the authority key lives: governed authority sign --request ${opts.out} --key KEYFILE --out RECORD\n` +
      `  then here: governed authority record --record RECORD  (the record id will be ${r.recordId})`,
  };
}
