import { loadPolicyCredentialKeys, loadPreservationContractFile, loadTrustRootFile, loadPinnedTrustRoot, verifyCheckpointFile, verifyReceiptFiles, verifyVsaFile } from '../../flows/verify.js';
import { resolveHome } from '../options.js';
import type { CommandResult } from '../output.js';
import type { VerifyJson } from '../../core/command-output.js';
import { fail } from '../../core/errors.js';
import { verifyInclusionFiles } from '../../flows/verify-inclusion.js';

export async function verifyCommand(
  files: string[],
  opts: { trust?: string; policy?: string; home?: string; inclusionProof?: string; checkpoint?: string; vsa?: string; logCheckpoint?: string; subject?: string; contract?: string },
): Promise<CommandResult> {
  // --vsa and --log-checkpoint verify ONE signed record of their own kind (docs/gate.md "Verifying a
  // signed decision"); they take no receipt and none of the inclusion-proof options.
  const own = opts.vsa !== undefined || opts.logCheckpoint !== undefined;
  if (own && (files.length > 0 || opts.contract !== undefined || opts.inclusionProof !== undefined || opts.checkpoint !== undefined || (opts.vsa !== undefined && opts.logCheckpoint !== undefined))) {
    fail('verify_kind_conflict', []);
  }
  if (opts.subject !== undefined && opts.vsa === undefined) fail('usage_error', ['--subject']);
  // Without --trust the pinned trust root of the state directory is used (docs/commands.md#what-each-command-guarantees); without
  // either, verification is refused (trust_root_missing).
  const now = new Date();
  const trust = opts.trust !== undefined ? loadTrustRootFile(opts.trust, now) : loadPinnedTrustRoot(resolveHome(opts.home), now);
  if (own) {
    const r = opts.vsa !== undefined ? verifyVsaFile(opts.vsa, trust, now, opts.subject) : verifyCheckpointFile(opts.logCheckpoint as string, trust, now);
    const err = r.error as { code: string; exit: number; ids: string[] } | undefined;
    const human =
      err === undefined
        ? r.kind === 'vsa'
          ? `VALID    ${r.file}\n         signed decision ${r.verification_result} (${r.state}) for ${(r.subject as { commit: string }).commit} ${r.unit}, signed by the gate key`
          : `VALID    ${r.file}\n         log checkpoint at entry ${r.log_entries} (${r.log_head}), signed by the log key`
        : `INVALID  ${r.file}\n         ${err.code} (exit ${err.exit})${err.ids.length > 0 ? ` [${err.ids.join(', ')}]` : ''}`;
    return { exit: r.exit, json: { ok: r.exit === 0, ...r }, human };
  }
  if (files.length === 0 && opts.inclusionProof === undefined) fail('usage_error', ['receipt']);
  if (opts.inclusionProof === undefined && opts.checkpoint !== undefined) fail('usage_error', ['--inclusion-proof']);
  if (opts.inclusionProof !== undefined && files.length > 1) fail('usage_error', ['--inclusion-proof']);
  if (opts.contract !== undefined && opts.inclusionProof !== undefined) fail('usage_error', ['--contract']);
  const policy = opts.policy !== undefined ? loadPolicyCredentialKeys(opts.policy) : undefined;
  const contract = opts.contract !== undefined ? loadPreservationContractFile(opts.contract) : undefined;
  const report = verifyReceiptFiles(files, trust, now, { policy, contract });
  if (opts.inclusionProof !== undefined) {
    // docs/audit.md "Proofs": the receipt (when given) must itself be valid and recorded by the proved entry.
    const receipt = report.receipts[0];
    if (receipt !== undefined && !receipt.valid) return { exit: report.exit, json: { ok: false, ...report } satisfies VerifyJson, human: `INVALID  ${receipt.file}` };
    const inclusion = verifyInclusionFiles(opts.inclusionProof, opts.checkpoint, trust, now, receipt?.receipt_id);
    const line = `LOGGED   entry ${inclusion.seq} is in the tree of ${inclusion.checkpoint} (${inclusion.origin}, size ${inclusion.tree_size})`;
    return { exit: report.exit, json: { ok: report.exit === 0, ...report, inclusion } satisfies VerifyJson, human: [...report.receipts.map((r) => `VALID    ${r.file}`), line].join('\n') };
  }
  const lines = report.receipts.map((r) =>
    r.valid
      ? r.kind === 'probe'
        ? `VALID    ${r.file}\n         probe receipt ${r.receipt_id} ${r.phase} ${r.unit} surfaces ${(r.surfaces ?? []).join(', ')}${r.contract_digest ? ` (bound to contract ${r.contract_digest})` : ''}`
        : `VALID    ${r.file}\n         receipt ${r.receipt_id} ${r.verdict} ${r.stage}/${r.slot} ${r.unit} (trust mode ${r.trust_mode})`
      : `INVALID  ${r.file}\n         ${r.error?.code} (exit ${r.error?.exit})${r.error && r.error.ids.length > 0 ? ` [${r.error.ids.join(', ')}]` : ''}`,
  );
  return {
    exit: report.exit,
    json: { ok: report.exit === 0, ...report } satisfies VerifyJson,
    human: lines.join('\n'),
  };
}
