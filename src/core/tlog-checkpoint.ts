// Reading a C2SP checkpoint file (docs/audit.md#checkpoints): the note's signature by a log
// key of the trust root (key name = the origin), and witness cosignatures by keys the verifier
// names in the note verifier-key format ("name+hex8+base64(0x01 ‖ pub)", Go's note.NewVerifier).
// Pure.
import { utf8OrNull } from './utf8.js';
import { fail } from './errors.js';
import { publicKeyFromRaw, type PublicKey } from './ed25519.js';
import { keyStatusAt } from './key-status.js';
import { isKeyName, noteKeyHash, noteSignedBy, parseCheckpointBody, parseSignedNote, type Checkpoint, type SignedNote } from './signed-note.js';
import type { TrustRoot } from './trust-root.js';

/** True when the bytes are a note (a legacy DSSE checkpoint is a JSON object). */
export function isNoteCheckpoint(bytes: Uint8Array): boolean {
  return bytes.length > 0 && bytes[0] !== 0x7b;
}

/** Parse a checkpoint note (no signature check): `tlog_checkpoint_invalid [id]` when malformed. */
export function parseCheckpointNote(bytes: Uint8Array, id: string): { cp: Checkpoint; note: SignedNote } {
  const text = utf8OrNull(bytes) ?? fail('tlog_checkpoint_invalid', [id]);
  const note = parseSignedNote(text);
  const cp = note === null ? null : parseCheckpointBody(note.text);
  if (note === null || cp === null) fail('tlog_checkpoint_invalid', [id]);
  return { cp, note };
}

/**
 * A checkpoint signed by a `log` key of `trust` valid at `at` (offline: any revocation counts),
 * under key name = its origin. `tlog_checkpoint_untrusted [id]` otherwise.
 */
export function verifyCheckpointNote(bytes: Uint8Array, id: string, trust: TrustRoot, at: string): { cp: Checkpoint; note: SignedNote; keyId: string } {
  const { cp, note } = parseCheckpointNote(bytes, id);
  for (const k of trust.keys.values()) {
    if (!k.roles.has('log') || keyStatusAt(k, at, true) !== 'ok') continue;
    if (noteSignedBy(note, cp.origin, k.publicKey)) return { cp, note, keyId: k.keyId };
  }
  fail('tlog_checkpoint_untrusted', [id]);
}

export interface WitnessKey {
  readonly name: string;
  readonly key: PublicKey;
}

/** Parse a verifier key string; `tlog_witness_state_invalid [id]` (usage) when it is not one. */
export function parseVerifierKey(text: string, id: string): WitnessKey {
  // name+hash+key, split at the first two '+' (base64 may contain '+'), as Go's note.NewVerifier.
  const i = text.indexOf('+');
  const j = i < 0 ? -1 : text.indexOf('+', i + 1);
  if (j < 0) fail('tlog_witness_state_invalid', [id]);
  const [name, hash, key] = [text.slice(0, i), text.slice(i + 1, j), text.slice(j + 1)];
  const raw = Buffer.from(key, 'base64');
  if (!isKeyName(name) || !/^[0-9a-f]{8}$/.test(hash) || raw.toString('base64') !== key || raw.length !== 33 || raw[0] !== 0x01) {
    fail('tlog_witness_state_invalid', [id]);
  }
  const pub = raw.subarray(1);
  if (noteKeyHash(name, pub).toString('hex') !== hash) fail('tlog_witness_state_invalid', [id]);
  return { name, key: publicKeyFromRaw(pub) };
}

/** How many of `witnesses` validly cosigned the note (each key counted once). */
export function cosignatureCount(note: SignedNote, witnesses: readonly WitnessKey[]): number {
  return witnesses.filter((w) => noteSignedBy(note, w.name, w.key)).length;
}
