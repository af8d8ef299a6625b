// `governed gate ... --export DIR`: the deploy record of THIS decision (docs/commands.md#what-each-command-guarantees table, docs/decision.md#8-delivery-state-and-reason-codes;
// docs/gate.md "`--export DIR`: the deploy record"), for the deploy side to archive next to what it
// shipped. DIR holds:
//   decision.json              the decision object `gate --json` printed, as RFC 8785 canonical JSON,
//                              without its `export` field (that field names this record's manifest,
//                              which hashes decision.json: it cannot be inside it);
//   receipts/<hex of id>.json  the exact stored envelope bytes of every receipt of `reliedOn`,
//   authority/<REC-id>.json    and of every authority record of `reliedOn` (the records the gate
//                              re-verified, read in the same read snapshot);
//   probes/<hex of id>.json    the exact stored envelope of every probe receipt of `reliedOn`;
//   checkpoint.note            the newest checkpoint stored in <home>/checkpoints/ (its root the log's),
//   proofs/<hex of id>.json    and the inclusion proof of each relied-on receipt it covers
//                              (./record-tlog.ts; both absent when no checkpoint is stored);
//   trust.<json|yaml>          the exact bytes of the `--trust` file the gate judged them under;
//   vsa.json                   the `--attest` envelope, when one was written;
//   intoto/<name>.intoto.jsonl for each receipt (<name> = hex of its id) and for vsa.json (`vsa`):
//   sigstore/<name>.<i>.sigstore.json  the same envelope as an in-toto JSONL bundle and one Sigstore
//                              bundle v0.3 per signature (src/core/sigstore-bundle.ts,
//                              docs/formats.md "Standard containers");
//   manifest.json              format, the decision's unit/state/subject/evaluatedAt, policyDigest,
//                              gateTrustDigest and the sha256 of every other file (canonical JSON; its
//                              sha256 is the decision's `export.manifestDigest`).
// `governed verify DIR/receipts/*.json --trust DIR/trust.json` then checks every receipt anywhere.
// All or nothing (docs/threat-model.md#rules-that-hold-everywhere "nothing half-recorded"): the record is built in a private 0700 directory
// beside DIR — made BEFORE the attestor runs, so an unwritable place fails before anything is signed —
// every file written exclusively and fsync'd, then one rename; DIR is complete or absent. Loaded only
// when --export is given (off the lean gate path, docs/gate.md#6-the-cold-gate-path).
// Imports: node built-ins, and only the governed modules that every lazy path of the gate already
// shares with it (errors, canonical and strict JSON: one chunk with esbuild's runtime). The
// stored-envelope reader, the JSON/YAML naming rule and the snake_case twin rule live in the gate's own bundle; a value import
// of them here would make esbuild split them out of it into extra chunks, and the gate — started
// cold on every release (bench/gate) — would load more files even without --export (measured: 4 → 6
// files in dist/gate.mjs's static closure). The gate hands them in (`RecordTools`);
// test/gate-export.test.ts fails if a chunk is split off for the exporter.
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Decision } from '../../core/decision/index.js';
import { canonicalJson, digestHexOrNull, sha256Digest, sha256Hex } from '../../core/canonical.js';
import { fail, isGovernedError } from '../../core/errors.js';
import { parseJsonStrict } from '../../core/strict-json.js';
import { containersOf } from '../../core/sigstore-bundle.js';
import type { Db } from '../../store/store.js';

/** What the gate hands in (see the note on imports above). */
export interface RecordTools {
  /** The stored envelope bytes of a receipt (./facts.ts `receiptEnvelope`). */
  readonly receiptEnvelope: (db: Db, receiptId: string) => Buffer;
  /** The gate's JSON-or-YAML rule for the --trust file (src/core/structured.ts `isJsonText`). */
  readonly isJsonText: (text: string, fileName: string) => boolean;
  /** The newest stored checkpoint and the relied-on receipts' inclusion proofs (./record-tlog.ts). */
  readonly tlogFiles: (db: Db, receipts: readonly string[]) => Map<string, Buffer>;
  /** The one twin rule of the JSON style (src/core/json-style.ts `withSnakeTwins`), for manifest.json. */
  readonly withSnakeTwins: (manifest: DeployRecordManifestCamel) => DeployRecordManifest;
}

export const EXPORT_FORMAT = 'governed/gate-record';
export const EXPORT_VERSION = 1;

/** What the decision object says of a written record: `path` as given, `manifestDigest` = sha256 of manifest.json (defined once in src/core/command-output.ts). */
export type { DeployRecordRef } from '../../core/command-output.js';
import type { DeployRecordRef, GateDecisionJson } from '../../core/command-output.js';
import type { DeployRecordManifest, DeployRecordManifestCamel } from '../../core/deploy-record.js';

/** An envelope the gate itself just wrote is small; anything larger is not it. */
import { VSA_FILE_MAX_BYTES as MAX_VSA_BYTES } from '../../core/limits.js';
import { RECORD_ID_RE } from '../../core/ids.js';

/** The decision fields the manifest repeats (the rest is in decision.json, which it hashes). */
export type RecordDecision = Pick<GateDecisionJson, 'unit' | 'state' | 'subject' | 'evaluatedAt' | 'policyDigest' | 'gateTrustDigest' | 'attestation'>;

/** True when something (a file, a directory, a symlink, dangling or not) is at `path`. */
export function pathTaken(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * A deploy record being built. `begin` makes the private directory (so an unwritable place fails
 * before the attestor runs); `addRecords` copies the relied-on envelopes inside the gate's read
 * snapshot; `finish` writes the rest and renames; `abort` removes the private directory.
 */
export class DeployRecord {
  private readonly files = new Map<string, Buffer>();
  private done = false;

  private constructor(
    private readonly tools: RecordTools,
    private readonly given: string,
    private readonly out: string,
    private readonly staging: string,
  ) {}

  static begin(given: string, tools: RecordTools): DeployRecord {
    const out = resolve(given);
    if (pathTaken(out)) fail('gate_export_output_exists', []);
    const staging = join(dirname(out), `.${basename(out)}.tmp-${randomBytes(6).toString('hex')}`);
    try {
      mkdirSync(staging, { mode: 0o700 });
    } catch {
      fail('gate_export_output_unwritable', []);
    }
    return new DeployRecord(tools, given, out, staging);
  }

  /** The exact stored envelopes of what the decision relies on (read in the gate's snapshot). */
  addRecords(db: Db, reliedOn: Decision['reliedOn']): void {
    for (const id of reliedOn.receipts) {
      const hex = digestHexOrNull(id);
      if (hex === null) fail('internal_error', ['export_receipt_id']);
      const envelope = this.tools.receiptEnvelope(db, id);
      this.files.set(`receipts/${hex}.json`, envelope);
      // Beside it, the same envelope in the standard containers (docs/formats.md "Standard containers").
      for (const [path, bytes] of containersOf(envelope, hex)) this.files.set(path, bytes);
    }
    for (const [path, bytes] of this.tools.tlogFiles(db, reliedOn.receipts)) this.files.set(path, bytes);
    // The probe receipts the preservation check counted (docs/preservation.md#delivery-state): their exact stored envelopes.
    for (const id of reliedOn.probes) {
      const hex = digestHexOrNull(id);
      if (hex === null) fail('internal_error', ['export_probe_id']);
      const bytes = db.prepare('SELECT envelope FROM probe_receipts WHERE id = ?').pluck().get(id) as Buffer | undefined;
      if (bytes === undefined) fail('decision_fact_mismatch', [id]);
      this.files.set(`probes/${hex}.json`, bytes);
    }
    for (const id of reliedOn.authorities) {
      if (!RECORD_ID_RE.test(id)) fail('internal_error', ['export_record_id']);
      const bytes = db.prepare('SELECT envelope FROM authority_records WHERE id = ?').pluck().get(id) as Buffer | undefined;
      if (bytes === undefined) fail('decision_fact_mismatch', [id]);
      this.files.set(`authority/${id}.json`, bytes);
    }
  }

  /**
   * Write decision.json, trust, vsa.json (read back from the file the gate wrote, and required to
   * carry the very payload the gate signed), manifest.json; fsync; rename into place.
   * `decision` is the printed decision object without its `export` field.
   */
  finish(decision: RecordDecision & Record<string, unknown>, trust: { file: string; bytes: Buffer }): DeployRecordRef {
    const { isJsonText, withSnakeTwins } = this.tools;
    try {
      this.files.set('decision.json', Buffer.from(canonicalJson(decision), 'utf8'));
      this.files.set(`trust.${isJsonText(trust.bytes.toString('utf8'), trust.file) ? 'json' : 'yaml'}`, trust.bytes);
      if (decision.attestation !== null) {
        const vsa = vsaBytes(decision.attestation);
        this.files.set('vsa.json', vsa);
        for (const [path, bytes] of containersOf(vsa, 'vsa')) this.files.set(path, bytes);
      }
      const manifest: DeployRecordManifest = withSnakeTwins({
        format: EXPORT_FORMAT,
        version: EXPORT_VERSION,
        unit: decision.unit,
        state: decision.state,
        subject: { commit: decision.subject.commit, manifestDigest: decision.subject.manifestDigest },
        evaluatedAt: decision.evaluatedAt,
        policyDigest: decision.policyDigest,
        gateTrustDigest: decision.gateTrustDigest,
        files: [...this.files.keys()].sort().map((path) => ({ path, sha256: sha256Hex(this.files.get(path) as Buffer) })),
      });
      const manifestBytes = Buffer.from(canonicalJson(manifest), 'utf8');
      this.files.set('manifest.json', manifestBytes);
      const subs = [
        'receipts',
        'authority',
        'intoto',
        'sigstore',
        ...(this.files.has('checkpoint.note') ? ['proofs'] : []),
        ...([...this.files.keys()].some((p) => p.startsWith('probes/')) ? ['probes'] : []),
      ];
      for (const sub of subs) mkdirSync(join(this.staging, sub), { mode: 0o700 });
      for (const [path, bytes] of this.files) writeDurably(join(this.staging, path), bytes);
      for (const sub of [...subs, '.']) syncDir(join(this.staging, sub));
      // Re-checked at the last moment: DIR may have appeared while the gate ran. rename(2) refuses a
      // file, a symlink or a non-empty directory there; only an empty directory could still be
      // replaced in the instant between (nothing is lost then).
      if (pathTaken(this.out)) fail('gate_export_output_exists', []);
      renameSync(this.staging, this.out);
      this.done = true;
      try {
        syncDir(dirname(this.out));
      } catch {
        // The record is in place and complete; only the rename's durability could not be forced
        // (a parent directory this process may write but not open). Not a reason to deny.
      }
      return { path: this.given, manifestDigest: sha256Digest(manifestBytes) };
    } catch (e) {
      this.abort();
      if (isGovernedError(e) && e.code === 'gate_export_output_exists') throw e;
      return fail('gate_export_output_unwritable', []);
    }
  }

  /** Remove the private directory (idempotent; a renamed record is never removed). */
  abort(): void {
    if (this.done) return;
    rmSync(this.staging, { recursive: true, force: true });
  }
}

/** The --attest file's bytes, which must be the envelope of the payload the gate signed. */
function vsaBytes(a: { path: string; payloadDigest: string }): Buffer {
  const bytes = readCapped(a.path, MAX_VSA_BYTES);
  if (bytes === null) fail('gate_export_output_unwritable', []);
  let payload: unknown;
  try {
    payload = (parseJsonStrict(bytes.toString('utf8')) as { payload?: unknown }).payload;
  } catch {
    payload = undefined;
  }
  if (typeof payload !== 'string' || sha256Digest(Buffer.from(payload, 'base64')) !== a.payloadDigest) fail('gate_export_output_unwritable', []);
  return bytes;
}

/** A regular file of at most `max` bytes, not through a symlink; null otherwise. */
function readCapped(path: string, max: number): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > max) return null;
    const bytes = readFileSync(fd);
    return bytes.length === st.size ? bytes : null;
  } finally {
    closeSync(fd);
  }
}

function writeDurably(path: string, bytes: Buffer): void {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  try {
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function syncDir(path: string): void {
  const fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The gate's answer became an error after `--attest` wrote its file (the record could not be
 * written): the attestation goes too, so an error leaves nothing signed behind (docs/gate.md#3-the-signed-decision---attest-file "an
 * error attests nothing"). The file was created exclusively by this process moments ago.
 */
export function withdrawAttestation(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone: nothing to withdraw.
  }
}
