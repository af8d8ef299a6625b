// `governed receipt show --receipt ID [--out FILE]`: the exact stored envelope bytes of one receipt
// (docs/state.md#the-store: receipts are stored as the exact envelope bytes), for `governed verify` or any DSSE tool.
// Nothing is re-serialised. The bytes are checked against the receipt id (sha256 of the payload,
// docs/formats.md#receipt) before they leave the store; --out writes them with exclusive create (never overwrites).
import { closeSync, constants, fchmodSync, fsyncSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { parseEnvelopeBytes } from '../../core/dsse.js';
import { fail } from '../../core/errors.js';
import { DIGEST_RE, sha256Digest } from '../../core/canonical.js';
import { closeStore, getReceipt, openStore, type Db } from '../../store/index.js';

export interface ShownReceipt {
  readonly receiptId: string;
  readonly runId: string;
  readonly unit: string;
  readonly stage: string;
  readonly slot: string;
  readonly verdict: 'CLEAN' | 'DIRTY';
  readonly envelope: Buffer;
}

function readReceipt(db: Db, receiptId: string): ShownReceipt {
  if (typeof receiptId !== 'string' || !DIGEST_RE.test(receiptId)) fail('receipt_unknown');
  const r = getReceipt(db, receiptId);
  if (r === null) fail('receipt_unknown', [receiptId]);
  let ok = false;
  try {
    ok = sha256Digest(parseEnvelopeBytes(r.envelope).payload) === r.id;
  } catch {
    ok = false;
  }
  if (!ok) fail('receipt_integrity_failed', [receiptId]);
  return { receiptId: r.id, runId: r.runId, unit: r.unit, stage: r.stage, slot: r.slot, verdict: r.verdict, envelope: r.envelope };
}

/** Write the bytes to a new file (O_EXCL, no symlink followed), 0644: a receipt holds no secret. */
function writeNewFile(path: string, bytes: Buffer): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') fail('receipt_output_exists');
    return fail('input_unreadable', ['out']);
  }
  let ok = false;
  try {
    fchmodSync(fd, 0o644);
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
    ok = true;
  } catch (e) {
    // docs/threat-model.md#rules-that-hold-everywhere "nothing half-recorded": a write that fails part-way (disk full, file size limit)
    // leaves no truncated receipt behind (the file is ours: created by the O_EXCL open above), and
    // surfaces as a code, not internal_error.
    fail('receipt_output_unwritable', [], e);
  } finally {
    closeSync(fd);
    if (!ok) {
      try {
        unlinkSync(path);
      } catch {
        // already gone
      }
    }
  }
}

export function showReceiptFlow(args: { home: string; receiptId: string; out?: string | undefined }): ShownReceipt {
  const store = openStore(args.home);
  try {
    const r = readReceipt(store.db, args.receiptId);
    if (args.out !== undefined) writeNewFile(args.out, r.envelope);
    return r;
  } finally {
    closeStore(store);
  }
}
