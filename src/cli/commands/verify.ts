import { loadTrustRootFile, loadPinnedTrustRoot, verifyReceiptFiles } from '../../flows/verify.js';
import { resolveHome } from '../options.js';
import type { CommandResult } from '../output.js';

export async function verifyCommand(files: string[], opts: { trust?: string; home?: string }): Promise<CommandResult> {
  // Without --trust the pinned trust root of the state directory is used (docs/commands.md#what-each-command-guarantees); without
  // either, verification is refused (trust_root_missing).
  const now = new Date();
  const trust = opts.trust !== undefined ? loadTrustRootFile(opts.trust, now) : loadPinnedTrustRoot(resolveHome(opts.home), now);
  const report = verifyReceiptFiles(files, trust, now);
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
