import { fail } from '../../core/errors.js';
import { loadPolicyCredentialKeys, loadTrustRootFile, loadPinnedTrustRoot, verifyCheckpointFile, verifyReceiptFiles, verifyVsaFile } from '../../flows/verify.js';
import { resolveHome } from '../options.js';
import type { CommandResult } from '../output.js';

export async function verifyCommand(
  files: string[],
  opts: { trust?: string; policy?: string; home?: string; vsa?: string; checkpoint?: string; subject?: string },
): Promise<CommandResult> {
  const kinds = [files.length > 0, opts.vsa !== undefined, opts.checkpoint !== undefined].filter(Boolean).length;
  if (kinds !== 1) fail(kinds === 0 ? 'usage_error' : 'verify_kind_conflict', []);
  if (opts.subject !== undefined && opts.vsa === undefined) fail('usage_error', ['--subject']);
  // Without --trust the pinned trust root of the state directory is used (SPEC §4.1); without
  // either, verification is refused (trust_root_missing).
  const now = new Date();
  const trust = opts.trust !== undefined ? loadTrustRootFile(opts.trust, now) : loadPinnedTrustRoot(resolveHome(opts.home), now);
  if (opts.vsa !== undefined || opts.checkpoint !== undefined) {
    const r = opts.vsa !== undefined ? verifyVsaFile(opts.vsa, trust, now, opts.subject) : verifyCheckpointFile(opts.checkpoint as string, trust, now);
    const err = r.error as { code: string; exit: number; ids: string[] } | undefined;
    const human =
      err === undefined
        ? r.kind === 'vsa'
          ? `VALID    ${r.file}\n         signed decision ${r.verification_result} (${r.state}) for ${(r.subject as { commit: string }).commit} ${r.unit}, signed by the gate key`
          : `VALID    ${r.file}\n         log checkpoint at entry ${r.log_entries} (${r.log_head}), signed by the log key`
        : `INVALID  ${r.file}\n         ${err.code} (exit ${err.exit})${err.ids.length > 0 ? ` [${err.ids.join(', ')}]` : ''}`;
    return { exit: r.exit, json: { ok: r.exit === 0, ...r }, human };
  }
  const credentials = opts.policy !== undefined ? loadPolicyCredentialKeys(opts.policy) : undefined;
  const report = verifyReceiptFiles(files, trust, now, credentials);
  const lines = report.receipts.map((r) =>
    r.valid
      ? `VALID    ${r.file}\n         receipt ${r.receipt_id} ${r.verdict} ${r.stage}/${r.slot} ${r.unit} (trust mode ${r.trust_mode})`
      : `INVALID  ${r.file}\n         ${r.error?.code} (exit ${r.error?.exit})${r.error && r.error.ids.length > 0 ? ` [${r.error.ids.join(', ')}]` : ''}`,
  );
  return {
    exit: report.exit,
    json: { ok: report.exit === 0, ...report },
    human: lines.join('\n'),
  };
}
