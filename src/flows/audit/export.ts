// `governed audit export --out DIR [--unit U]` (SPEC §4.1, §3 item 6 "anyone with the public keys can
// verify every receipt and the whole log offline"): write what an auditor needs, without the store:
//   log.jsonl          every log entry (seq, time, type, unit, payload, payload_digest, prev_hash,
//                      entry_hash), so the chain can be recomputed anywhere (SPEC §5);
//   receipts/<hex>.json, authority/<REC-id>.json
//                      the exact signed envelopes recorded in the log (of unit U with --unit);
//   policy.pinned.{json|yaml}, trust.pinned.{json|yaml}
//                      the pinned bytes in force now (earlier pins are in the log's entries);
//   keys/<key id>.pub  every public key of that trust root (SPKI PEM);
//   manifest.json      what was exported: log head, pin digests, and the sha256 of every file.
// `governed verify receipts/*.json --trust trust.pinned.json` then checks the receipts anywhere.
// The chain must be intact (an export of a broken log is refused with the chain's code; copy the
// database file for forensics). The store is opened read-only; the export is built in a private
// temporary directory next to DIR and renamed into place, so DIR is complete or absent.
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { canonicalJson, sha256Hex } from '../../core/canonical.js';
import { fail } from '../../core/errors.js';
import { isJsonText } from '../../core/lean/structured.js';
import { closeStore, decodePayload, openStoreReadOnly, readLog, readPin, verifyChain, type LogRow } from '../../store/index.js';
import { parsePinDocument } from '../challenge/pinned.js';

export interface ExportArgs {
  readonly home: string;
  readonly out: string;
  readonly unit?: string | undefined;
  readonly now: Date;
}

export interface ExportResult {
  readonly path: string;
  readonly log_entries: number;
  readonly log_head: string;
  readonly receipts: number;
  readonly authority_records: number;
  readonly keys: number;
}

const RECEIPT_ID_RE = /^sha256:([0-9a-f]{64})$/;
const RECORD_ID_RE = /^REC-[0-9a-f]{24}$/;
const KEY_ID_RE = /^[0-9a-f]{64}$/;

export function auditExport(args: ExportArgs): ExportResult {
  const out = resolve(args.out);
  if (existsSync(out) || isSymlink(out)) fail('audit_export_output_exists', []);
  const store = openStoreReadOnly(args.home);
  let snapshot: { rows: LogRow[]; chain: { entries: number; head: string }; policy: { digest: string; bytes: Buffer }; trust: { digest: string; bytes: Buffer } };
  try {
    const db = store.db;
    snapshot = db.transaction(() => {
      if (args.unit !== undefined && db.prepare('SELECT 1 FROM units WHERE id = ?').get(args.unit) === undefined) fail('unit_unknown', [args.unit]);
      const chain = verifyChain(db);
      return { rows: readLog(db), chain, policy: readPin(db, 'policy'), trust: readPin(db, 'trust') };
    }).deferred();
  } finally {
    closeStore(store);
  }

  const files = new Map<string, Buffer>();
  const log: string[] = [];
  let receipts = 0;
  let records = 0;
  for (const row of snapshot.rows) {
    const payload = decodePayload(row.seq, row.type, row.unit, row.payload) as Record<string, unknown>;
    log.push(
      JSON.stringify({ seq: row.seq, time: row.time, type: row.type, unit: row.unit, payload, payload_digest: row.payload_digest, prev_hash: row.prev_hash, entry_hash: row.entry_hash }),
    );
    if (args.unit !== undefined && row.unit !== args.unit) continue;
    if (row.type === 'run_receipt') {
      const m = RECEIPT_ID_RE.exec(String(payload.receipt));
      if (m === null) fail('log_payload_invalid', [`seq:${row.seq}`]);
      files.set(`receipts/${m[1]}.json`, Buffer.from(String(payload.envelope_b64), 'base64'));
      receipts++;
    } else if (row.type === 'authority_record') {
      const id = String(payload.record);
      if (!RECORD_ID_RE.test(id)) fail('log_payload_invalid', [`seq:${row.seq}`]);
      files.set(`authority/${id}.json`, Buffer.from(String(payload.envelope_b64), 'base64'));
      records++;
    }
  }
  files.set('log.jsonl', Buffer.from(log.length === 0 ? '' : `${log.join('\n')}\n`, 'utf8'));
  const ext = (bytes: Buffer): string => (isJsonText(bytes.toString('utf8'), '') ? 'json' : 'yaml');
  files.set(`policy.pinned.${ext(snapshot.policy.bytes)}`, snapshot.policy.bytes);
  files.set(`trust.pinned.${ext(snapshot.trust.bytes)}`, snapshot.trust.bytes);
  const trustDoc = parsePinDocument(snapshot.trust.bytes, 'trust').value as { keys?: { key_id?: unknown; public_key?: unknown }[] };
  let keys = 0;
  for (const k of trustDoc.keys ?? []) {
    if (typeof k.key_id !== 'string' || !KEY_ID_RE.test(k.key_id) || typeof k.public_key !== 'string') fail('pin_integrity_failed', ['trust']);
    files.set(`keys/${k.key_id}.pub`, Buffer.from(k.public_key.endsWith('\n') ? k.public_key : `${k.public_key}\n`, 'utf8'));
    keys++;
  }
  const manifest = {
    format: 'governed/audit-export',
    version: 1,
    made_at: args.now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    unit: args.unit ?? null,
    log: { entries: snapshot.chain.entries, head: snapshot.chain.head },
    policy_digest: snapshot.policy.digest,
    trust_digest: snapshot.trust.digest,
    files: [...files.keys()].sort().map((path) => ({ path, sha256: sha256Hex(files.get(path) as Buffer) })),
  };
  files.set('manifest.json', Buffer.from(`${canonicalJson(manifest)}\n`, 'utf8'));

  // Build beside DIR (same filesystem), then one rename: DIR is complete or absent.
  const staging = join(dirname(out), `.${basename(out)}.tmp-${randomBytes(6).toString('hex')}`);
  try {
    mkdirSync(staging, { mode: 0o700 });
    for (const sub of ['receipts', 'authority', 'keys']) mkdirSync(join(staging, sub), { mode: 0o700 });
    for (const [path, bytes] of files) writeFileSync(join(staging, path), bytes, { flag: 'wx', mode: 0o644 });
    if (existsSync(out) || isSymlink(out)) fail('audit_export_output_exists', []);
    renameSync(staging, out);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    if (e instanceof Error && e.name === 'GovernedError') throw e;
    fail('audit_export_output_unwritable', []);
  }
  return { path: out, log_entries: snapshot.chain.entries, log_head: snapshot.chain.head, receipts, authority_records: records, keys };
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
