// `governed audit cosign` (docs/audit.md "Witnesses"): an independent witness adds its signature
// line to a checkpoint of a log it follows — only after checking the log's own signature (the
// log's verifier key, given by the witness) and that the checkpoint is consistent with the last
// one it cosigned (state in a small file of its own; a consistency proof from that one to this one
// is required when the tree grew). The witness signs with its own key file, not a governed
// credential. A fork (same size, other root; a smaller size; a proof that fails) is refused and
// nothing is written. The cosignature is an Ed25519 note signature over the checkpoint body
// under the witness's key name (the note format, not C2SP's timestamped cosignature/v1).
import { renameSync, writeFileSync, existsSync, unlinkSync } from 'node:fs';
import { sign } from 'node:crypto';
import { fail } from '../../core/errors.js';
import { isKeyName, noteSignedBy, noteVerifierKey, signatureLine, type Checkpoint } from '../../core/signed-note.js';
import { parseCheckpointNote, parseVerifierKey } from '../../core/tlog-checkpoint.js';
import { checkConsistencyProof, parseConsistencyProof } from '../../core/tlog-proof.js';
import { parseJsonStrict } from '../../core/strict-parse.js';
import { WITNESS_STATE_FORMAT, witnessStateSchema, type WitnessState } from '../../core/witness-state.js';
import { WITNESS_STATE_MAX_BYTES } from '../../core/limits.js';
import { loadSigningKey } from '../authority/private-key.js';
import { readInputFile } from '../read-input.js';
import { writeOnce } from '../write-once.js';

export interface CosignArgs {
  readonly checkpoint: string;
  readonly logKey: string;
  readonly key: string;
  readonly name: string;
  readonly state: string;
  readonly proof?: string | undefined;
  readonly out: string;
}

function readState(path: string, origin: string, logKey: string): Checkpoint | null {
  if (!existsSync(path)) return null;
  let v: unknown;
  try {
    v = parseJsonStrict(readInputFile(path, WITNESS_STATE_MAX_BYTES).toString('utf8'));
  } catch {
    fail('tlog_witness_state_invalid', ['--state']);
  }
  const r = witnessStateSchema.safeParse(v);
  if (!r.success) fail('tlog_witness_state_invalid', ['--state']);
  const o = r.data;
  if (o.origin !== origin || o.log_key !== logKey) fail('tlog_witness_state_invalid', ['--state', 'origin']);
  return { origin, size: o.size, root: Buffer.from(o.root, 'base64') };
}

export function cosign(args: CosignArgs): { out: string; origin: string; size: number; previous_size: number | null; witness_key: string } {
  if (!isKeyName(args.name)) fail('usage_error', ['--name']);
  const log = parseVerifierKey(args.logKey, '--log-key');
  const { cp, note } = parseCheckpointNote(readInputFile(args.checkpoint, 1024 * 1024), args.checkpoint);
  if (log.name !== cp.origin) fail('tlog_origin_mismatch', [args.checkpoint]);
  if (!noteSignedBy(note, log.name, log.key)) fail('tlog_checkpoint_untrusted', [args.checkpoint]);
  const prev = readState(args.state, cp.origin, args.logKey);
  if (prev !== null) {
    if (cp.size < prev.size || (cp.size === prev.size && !cp.root.equals(prev.root))) fail('tlog_fork', [args.checkpoint, `size:${cp.size}`, `cosigned:${prev.size}`]);
    if (cp.size > prev.size) {
      if (args.proof === undefined) fail('usage_error', ['--proof']);
      const p = parseConsistencyProof(readInputFile(args.proof, 1024 * 1024).toString('utf8'), args.proof);
      checkConsistencyProof(p, prev, cp, args.proof);
    }
  }
  const key = loadSigningKey(args.key);
  const sig = sign(null, Buffer.from(note.text, 'utf8'), key.privateKey);
  const text = readInputFile(args.checkpoint, 1024 * 1024).toString('utf8');
  writeOnce(args.out, `${text}${signatureLine(args.name, key.publicKey.raw, sig)}`, { exists: 'tlog_output_exists', unwritable: 'audit_checkpoint_output_unwritable' });
  // The state moves forward only after the cosigned checkpoint is written (rename: whole or not at all).
  const tmp = `${args.state}.tmp-${process.pid}`;
  try {
    const next: WitnessState = { format: WITNESS_STATE_FORMAT, version: 1, origin: cp.origin, log_key: args.logKey, size: cp.size, root: cp.root.toString('base64') };
    writeFileSync(tmp, `${JSON.stringify(next)}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, args.state);
  } catch {
    if (existsSync(tmp)) unlinkSync(tmp);
    fail('tlog_witness_state_invalid', ['--state', 'write']);
  }
  return { out: args.out, origin: cp.origin, size: cp.size, previous_size: prev?.size ?? null, witness_key: noteVerifierKey(args.name, key.publicKey.raw) };
}
