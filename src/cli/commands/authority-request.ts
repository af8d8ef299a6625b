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
  const json = {
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
  } satisfies AuthorityRequestOutput;
  return { exit: 0, json, human: authorityRequestHuman(json) };
}

/** The human lines of `authority request` (also printed by the separated-mode client, with its own --out). */
export function authorityRequestHuman(o: AuthorityRequestOutput): string {
  return (
    `authority request ${o.request_id} (${o.operation}, ${o.ids.length} IDs) expires ${o.expires_at}\n` +
    `  presentation written to ${o.out}\n` +
    `  next, where the authority key lives: governed authority sign --request ${o.out} --key KEYFILE --out RECORD\n` +
    `  then here: governed authority record --record RECORD  (the record id will be ${o.record_id})`
  );
}
