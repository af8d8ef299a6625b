// The files of an audit export besides `log.jsonl` and `manifest.json` (docs/audit.md "governed audit
// export"): ONE definition, used by `audit export` to write them (./export.ts) and by
// `audit verify --export` to say what an export of that log must hold (./export-verify.ts), so the
// two cannot drift apart.
//   receipts/<hex of the receipt id>.json   the envelope each `run_receipt` entry recorded
//   intoto/<hex>.intoto.jsonl, sigstore/<hex>.<i>.sigstore.json
//                                           the same receipt envelope in the standard containers
//                                           (docs/formats.md "Standard containers")
//   authority/<REC-id>.json                 the envelope each `authority_record` entry recorded
//                                           (both only unit U's when the export is of one unit)
//   policy.pinned.{json|yaml}, trust.pinned.{json|yaml}   the pinned bytes in force at the log head
//   keys/<key id>.pub                       every public key of that trust root (SPKI PEM)
//   checkpoint.note, proofs/<hex>.json      the newest stored checkpoint (docs/audit.md "Automatic
//                                           checkpoints") and, for each exported receipt its tree
//                                           covers, the inclusion proof of its run_receipt entry
import { fail } from '../../core/errors.js';
import { isJsonText } from '../../core/structured.js';
import { decodePayload, type LogRow } from '../../store/index.js';
import { parsePinDocument } from '../../core/pin-document.js';
import { treeHash } from '../../core/merkle.js';
import { parseCheckpointNote } from '../../core/tlog-checkpoint.js';
import { treeReader } from '../../store/tree.js';
import type { Db } from '../../store/store.js';
import { inclusionProofText } from './prove.js';
import { containersOf } from '../../core/sigstore-bundle.js';
import { HEX64_RE, RECORD_ID_RE } from '../../core/ids.js';
import { digestHexOrNull } from '../../core/canonical.js';

const KEY_ID_RE = HEX64_RE;

export interface ExportLayoutInput {
  readonly rows: readonly LogRow[];
  /** A unit export holds only that unit's envelopes (the log stays whole: the chain needs it). */
  readonly unit: string | null;
  readonly policy: Buffer;
  readonly trust: Buffer;
}

export interface ExportLayout {
  readonly files: Map<string, Buffer>;
  readonly receipts: number;
  readonly records: number;
  readonly keys: number;
}

/** The export's envelope, pin and key files for this log and these pins (throws on a malformed record). */
export function exportLayout(input: ExportLayoutInput): ExportLayout {
  const files = new Map<string, Buffer>();
  let receipts = 0;
  let records = 0;
  for (const row of input.rows) {
    if (input.unit !== null && row.unit !== input.unit) continue;
    if (row.type !== 'run_receipt' && row.type !== 'authority_record') continue;
    const payload = decodePayload(row.seq, row.type, row.unit, row.payload) as Record<string, unknown>;
    if (row.type === 'run_receipt') {
      const hex = digestHexOrNull(String(payload.receipt));
      if (hex === null) fail('log_payload_invalid', [`seq:${row.seq}`]);
      const envelope = Buffer.from(String(payload.envelope_b64), 'base64');
      files.set(`receipts/${hex}.json`, envelope);
      for (const [path, bytes] of containersOf(envelope, hex)) files.set(path, bytes);
      receipts++;
    } else {
      const id = String(payload.record);
      if (!RECORD_ID_RE.test(id)) fail('log_payload_invalid', [`seq:${row.seq}`]);
      files.set(`authority/${id}.json`, Buffer.from(String(payload.envelope_b64), 'base64'));
      records++;
    }
  }
  const ext = (bytes: Buffer): string => (isJsonText(bytes.toString('utf8'), '') ? 'json' : 'yaml');
  files.set(`policy.pinned.${ext(input.policy)}`, input.policy);
  files.set(`trust.pinned.${ext(input.trust)}`, input.trust);
  const trustDoc = parsePinDocument(input.trust, 'trust').value as { keys?: { key_id?: unknown; public_key?: unknown }[] };
  let keys = 0;
  for (const k of trustDoc.keys ?? []) {
    if (typeof k.key_id !== 'string' || !KEY_ID_RE.test(k.key_id) || typeof k.public_key !== 'string') fail('pin_integrity_failed', ['trust']);
    files.set(`keys/${k.key_id}.pub`, Buffer.from(k.public_key.endsWith('\n') ? k.public_key : `${k.public_key}\n`, 'utf8'));
    keys++;
  }
  return { files, receipts, records, keys };
}

export const CHECKPOINT_FILE = 'checkpoint.note';

/**
 * `checkpoint.note` (the bytes given) and `proofs/<hex of receipt id>.json` for every `run_receipt`
 * entry of the export (unit U's with a unit export) at a position the checkpoint covers: the
 * inclusion proof `audit prove --receipt` makes, from `db`'s tree. The checkpoint's root must be
 * this log's at its size (`tlog_log_truncated` / `tlog_root_mismatch`, thrown): an export never
 * carries a checkpoint its own log does not extend. Its signature is the verifier's business.
 */
export function exportTlogFiles(db: Db, rows: readonly LogRow[], unit: string | null, checkpoint: Buffer): Map<string, Buffer> {
  const { cp } = parseCheckpointNote(checkpoint, CHECKPOINT_FILE);
  if (cp.size > rows.length) fail('tlog_log_truncated', [CHECKPOINT_FILE, `size:${cp.size}`, `log:${rows.length}`]);
  if (!treeHash(cp.size, treeReader(db)).equals(cp.root)) fail('tlog_root_mismatch', [CHECKPOINT_FILE, `size:${cp.size}`]);
  const files = new Map<string, Buffer>([[CHECKPOINT_FILE, checkpoint]]);
  for (const row of rows) {
    if (row.seq > cp.size) break;
    if (row.type !== 'run_receipt' || (unit !== null && row.unit !== unit)) continue;
    const payload = decodePayload(row.seq, row.type, row.unit, row.payload) as Record<string, unknown>;
    const hex = digestHexOrNull(String(payload.receipt));
    if (hex === null) fail('log_payload_invalid', [`seq:${row.seq}`]);
    files.set(`proofs/${hex}.json`, Buffer.from(inclusionProofText(db, row, cp.size, cp.origin), 'utf8'));
  }
  return files;
}
