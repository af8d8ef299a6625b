import { authoritySignFlow } from '../../flows/authority/sign.js';
import type { CommandResult } from '../output.js';
import type { AuthoritySignOutput } from '../../core/command-output-records.js';

export async function authoritySignCommand(opts: { request: string; key: string; out: string }): Promise<CommandResult> {
  const r = authoritySignFlow({ ...opts, now: Math.floor(Date.now() / 1000) });
  return {
    exit: 0,
    json: { ok: true, record_id: r.recordId, request_id: r.requestId, key_id: r.keyId, payload_digest: r.payloadDigest, out: r.out } satisfies AuthoritySignOutput,
    human: `signed ${r.recordId} with key ${r.keyId}\n  record written to ${r.out}; bring it back and run: governed authority record --record ${r.out}`,
  };
}
