import { pinUpdateFlow } from '../../flows/authority/pin-update.js';
import { resolveHome } from '../options.js';
import type { CommandResult } from '../output.js';
import type { PinUpdateOutput } from '../../core/command-output-records.js';

export async function pinUpdateCommand(kind: 'policy' | 'trust', opts: { file: string; authority: string; home?: string }): Promise<CommandResult> {
  const r = pinUpdateFlow({ kind, file: opts.file, recordId: opts.authority, home: resolveHome(opts.home), now: Math.floor(Date.now() / 1000) });
  return {
    exit: 0,
    json: { ok: true, kind: r.kind, seq: r.seq, digest_before: r.digestBefore, digest: r.digest, record: r.record } satisfies PinUpdateOutput,
    human:
      `${kind === 'policy' ? 'policy' : 'trust root'} replaced at log position ${r.seq}: ${r.digestBefore} -> ${r.digest}\n` +
      `  authorised by ${r.record}; every streak restarts (receipts before this position no longer count)`,
  };
}
