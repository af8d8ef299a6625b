// `governed audit export --out DIR [--unit U]` (docs/commands.md#what-each-command-guarantees, docs/threat-model.md#rules-that-hold-everywhere item 6 "anyone with the public keys can
// verify every receipt and the whole log offline"): write what an auditor needs, without the store:
//   log.jsonl          every log entry (seq, time, type, unit, payload, payload_digest, prev_hash,
//                      entry_hash), so the chain can be recomputed anywhere (docs/state.md#the-store);
//   receipts/<hex>.json, authority/<REC-id>.json
//                      the exact signed envelopes recorded in the log (of unit U with --unit);
//   intoto/<hex>.intoto.jsonl, sigstore/<hex>.<i>.sigstore.json
//                      each receipt in the standard containers (docs/formats.md "Standard containers");
//   policy.pinned.{json|yaml}, trust.pinned.{json|yaml}
//                      the pinned bytes in force now (earlier pins are in the log's entries);
//   keys/<key id>.pub  every public key of that trust root (SPKI PEM);
//   checkpoint.note, proofs/<hex>.json
//                      the newest stored checkpoint (signed by the pinned trust root's log key, its
//                      root this log's) and the inclusion proof of every exported receipt it covers;
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
import { closeStore, decodePayload, openStoreReadOnly, readLog, readPin, verifyChain, type LogRow } from '../../store/index.js';
import { exportLayout, exportTlogFiles } from './export-layout.js';
import { verifyCheckpointNote } from '../../core/tlog-checkpoint.js';
import { loadTrustRoot } from '../../core/trust-root.js';
import { parsePinDocument } from '../../core/pin-document.js';
import { newestStoredCheckpoint } from '../../store/checkpoints.js';
import { UNIT_ID_RE } from '../../core/ids.js';

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
  /** The tree size of the exported checkpoint (null: the store has no stored checkpoint). */
  readonly checkpoint_size: number | null;
  /** Inclusion proofs exported (receipts the checkpoint covers). */
  readonly proofs: number;
}

function checkpointSize(tlog: Map<string, Buffer>): number {
  return Number((tlog.get('checkpoint.note') as Buffer).toString('utf8').split('\n')[1]);
}

export function auditExport(args: ExportArgs): ExportResult {
  const out = resolve(args.out);
  if (existsSync(out) || isSymlink(out)) fail('audit_export_output_exists', []);
  const store = openStoreReadOnly(args.home);
  let snapshot: { rows: LogRow[]; chain: { entries: number; head: string }; policy: { digest: string; bytes: Buffer }; trust: { digest: string; bytes: Buffer }; tlog: Map<string, Buffer> | null };
  try {
    const db = store.db;
    snapshot = db.transaction(() => {
      // A malformed --unit is never echoed (docs/commands.md#exit-codes: a rejected value is not printed), as src/store/units.ts.
      if (args.unit !== undefined && db.prepare('SELECT 1 FROM units WHERE id = ?').get(args.unit) === undefined) fail('unit_unknown', UNIT_ID_RE.test(args.unit) ? [args.unit] : []);
      const chain = verifyChain(db);
      const rows = readLog(db);
      const policy = readPin(db, 'policy');
      const trust = readPin(db, 'trust');
      // The newest stored checkpoint, if any: signed by a log key of the pinned trust root (now),
      // its root this log's; with the inclusion proof of every exported receipt it covers.
      let tlog: Map<string, Buffer> | null = null;
      const stored = newestStoredCheckpoint(store.home);
      if (stored !== null) {
        verifyCheckpointNote(stored.bytes, stored.file, loadTrustRoot(parsePinDocument(trust.bytes, 'trust').value), args.now.toISOString().replace(/\.\d{3}Z$/, 'Z'));
        tlog = exportTlogFiles(db, rows, args.unit ?? null, stored.bytes);
      }
      return { rows, chain, policy, trust, tlog };
    }).deferred();
  } finally {
    closeStore(store);
  }

  const log: string[] = [];
  for (const row of snapshot.rows) {
    const payload = decodePayload(row.seq, row.type, row.unit, row.payload) as Record<string, unknown>;
    log.push(
      JSON.stringify({ seq: row.seq, time: row.time, type: row.type, unit: row.unit, payload, payload_digest: row.payload_digest, prev_hash: row.prev_hash, entry_hash: row.entry_hash }),
    );
  }
  // The envelopes, pins and keys: the one layout `audit verify --export` checks against (./export-layout.ts).
  const layout = exportLayout({ rows: snapshot.rows, unit: args.unit ?? null, policy: snapshot.policy.bytes, trust: snapshot.trust.bytes });
  const files = layout.files;
  const { receipts, records, keys } = layout;
  for (const [path, bytes] of snapshot.tlog ?? []) files.set(path, bytes);
  files.set('log.jsonl', Buffer.from(log.length === 0 ? '' : `${log.join('\n')}\n`, 'utf8'));
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
    // receipts/, authority/ and keys/ always (possibly empty); every other directory the layout's files name.
    const subs = new Set(['receipts', 'authority', 'keys', ...[...files.keys()].filter((p) => p.includes('/')).map((p) => p.slice(0, p.indexOf('/')))]);
    for (const sub of subs) mkdirSync(join(staging, sub), { mode: 0o700 });
    for (const [path, bytes] of files) writeFileSync(join(staging, path), bytes, { flag: 'wx', mode: 0o644 });
    if (existsSync(out) || isSymlink(out)) fail('audit_export_output_exists', []);
    renameSync(staging, out);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    if (e instanceof Error && e.name === 'GovernedError') throw e;
    fail('audit_export_output_unwritable', []);
  }
  const proofs = [...files.keys()].filter((p) => p.startsWith('proofs/')).length;
  return { path: out, log_entries: snapshot.chain.entries, log_head: snapshot.chain.head, receipts, authority_records: records, keys, checkpoint_size: snapshot.tlog === null ? null : checkpointSize(snapshot.tlog), proofs };
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
