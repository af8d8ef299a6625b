// The files of an audit export besides `log.jsonl` and `manifest.json` (docs/audit.md "governed audit
// export"): ONE definition, used by `audit export` to write them (./export.ts) and by
// `audit verify --export` to say what an export of that log must hold (./export-verify.ts), so the
// two cannot drift apart.
//   receipts/<hex of the receipt id>.json   the envelope each `run_receipt` entry recorded
//   authority/<REC-id>.json                 the envelope each `authority_record` entry recorded
//                                           (both only unit U's when the export is of one unit)
//   policy.pinned.{json|yaml}, trust.pinned.{json|yaml}   the pinned bytes in force at the log head
//   keys/<key id>.pub                       every public key of that trust root (SPKI PEM)
import { fail } from '../../core/errors.js';
import { isJsonText } from '../../core/structured.js';
import { decodePayload, type LogRow } from '../../store/index.js';
import { parsePinDocument } from '../../core/pin-document.js';

const RECEIPT_ID_RE = /^sha256:([0-9a-f]{64})$/;
const RECORD_ID_RE = /^REC-[0-9a-f]{24}$/;
const KEY_ID_RE = /^[0-9a-f]{64}$/;

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
      const m = RECEIPT_ID_RE.exec(String(payload.receipt));
      if (m === null) fail('log_payload_invalid', [`seq:${row.seq}`]);
      files.set(`receipts/${m[1]}.json`, Buffer.from(String(payload.envelope_b64), 'base64'));
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
