// `governed receipt show --receipt ID [--out FILE]`: the exact stored envelope bytes (docs/state.md#the-store, docs/formats.md#receipt).
import { showReceiptFlow } from '../../flows/run/receipt-show.js';
import { resolveHome } from '../options.js';
import type { CommandResult } from '../output.js';
import type { ReceiptShowOutput } from '../../core/command-output-records.js';

export async function receiptShowCommand(opts: { receipt: string; out?: string; home?: string; json?: boolean }): Promise<CommandResult> {
  const r = showReceiptFlow({ home: resolveHome(opts.home), receiptId: opts.receipt, out: opts.out });
  const summary = { ok: true as const, receipt_id: r.receiptId, run_id: r.runId, unit: r.unit, stage: r.stage as ReceiptShowOutput['stage'], slot: r.slot, verdict: r.verdict };
  if (!opts.json && opts.out === undefined) {
    // The bytes themselves, exactly as stored: nothing added, not even a newline.
    process.stdout.write(r.envelope);
    return { exit: 0, json: summary, human: '' };
  }
  return {
    exit: 0,
    json: { ...summary, envelope_b64: r.envelope.toString('base64') } satisfies ReceiptShowOutput,
    human: `receipt ${r.receiptId} ${r.verdict} ${r.stage}/${r.slot} ${r.unit}\nwritten ${opts.out ?? ''}`,
  };
}
