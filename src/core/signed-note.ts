// C2SP signed notes and tlog checkpoints (docs/audit.md#checkpoints; the formats of
// c2sp.org/signed-note and c2sp.org/tlog-checkpoint, as Go's golang.org/x/mod/sumdb/note reads them).
//   checkpoint body : "<origin>\n<tree size, decimal>\n<base64 root hash>\n"
//   signed note     : body + "\n" + one or more "— <key name> <base64(key hash ‖ signature)>\n"
//   Ed25519 key hash: the first 4 bytes of SHA-256(key name ‖ 0x0A ‖ 0x01 ‖ 32-byte public key)
//   signature       : Ed25519 over the body bytes exactly.
// governed's log signs with key name = the origin; witnesses sign with names of their own. The
// parsers return null on anything malformed (the callers name the file and the code). Pure.
import { createHash } from 'node:crypto';
import { verifyEd25519, type PublicKey } from './ed25519.js';
import { SIGNED_NOTE_MAX_BYTES, SIGNED_NOTE_MAX_SIGNATURES } from './limits.js';
import { BASE64_RE } from './ids.js';

/** U+2014 EM DASH, then a space: how every signature line starts. */
const SIG_PREFIX = '\u2014 ';
/** At most this many signature lines are read from a note, and this many bytes (src/core/limits.ts). */
export const MAX_NOTE_SIGNATURES = SIGNED_NOTE_MAX_SIGNATURES;
export const MAX_NOTE_BYTES = SIGNED_NOTE_MAX_BYTES;
const ORIGIN_RE = /^[\x21-\x7e]{1,255}$/;
const KEY_NAME_RE = /^[\x21-\x2a\x2c-\x7e]{1,255}$/; // printable, no space, no '+'
const B64_RE = BASE64_RE;
const SIZE_RE = /^(?:0|[1-9][0-9]{0,15})$/;

export interface Checkpoint {
  readonly origin: string;
  readonly size: number;
  readonly root: Buffer;
}

export interface NoteSignature {
  readonly name: string;
  readonly keyHash: Buffer;
  readonly sig: Buffer;
}

export interface SignedNote {
  readonly text: string;
  readonly signatures: readonly NoteSignature[];
}

function b64(s: string): Buffer | null {
  if (!B64_RE.test(s)) return null;
  const b = Buffer.from(s, 'base64');
  return b.toString('base64') === s ? b : null;
}

export function checkpointBody(c: Checkpoint): string {
  return `${c.origin}\n${c.size}\n${c.root.toString('base64')}\n`;
}

/** Parse a checkpoint body: exactly origin, size and a 32-byte root (no extension lines). */
export function parseCheckpointBody(text: string): Checkpoint | null {
  const lines = text.split('\n');
  if (lines.length !== 4 || lines[3] !== '') return null;
  const [origin, size, root] = lines as [string, string, string];
  if (!ORIGIN_RE.test(origin) || !SIZE_RE.test(size)) return null;
  const n = Number(size);
  const r = b64(root);
  if (!Number.isSafeInteger(n) || r === null || r.length !== 32) return null;
  return { origin, size: n, root: r };
}

export function isKeyName(name: string): boolean {
  return KEY_NAME_RE.test(name);
}

/** Ed25519 key hash of the note format: SHA-256(name ‖ "\n" ‖ 0x01 ‖ pub)[0:4]. */
export function noteKeyHash(name: string, pub: Uint8Array): Buffer {
  return createHash('sha256').update(name, 'utf8').update(Buffer.of(0x0a, 0x01)).update(pub).digest().subarray(0, 4);
}

/** The verifier key string Go's note.NewVerifier reads: "name+hex(key hash)+base64(0x01 ‖ pub)". */
export function noteVerifierKey(name: string, pub: Uint8Array): string {
  return `${name}+${noteKeyHash(name, pub).toString('hex')}+${Buffer.concat([Buffer.of(0x01), pub]).toString('base64')}`;
}

export function signatureLine(name: string, pub: Uint8Array, sig: Uint8Array): string {
  return `${SIG_PREFIX}${name} ${Buffer.concat([noteKeyHash(name, pub), sig]).toString('base64')}\n`;
}

/** Split a signed note into its text and signature lines; null when malformed. */
export function parseSignedNote(note: string): SignedNote | null {
  if (note.length > MAX_NOTE_BYTES || !note.endsWith('\n')) return null;
  const split = note.lastIndexOf('\n\n');
  if (split < 0) return null;
  const text = note.slice(0, split + 1);
  if (text.includes('\n\n') || text.includes('\r')) return null;
  const lines = note.slice(split + 2, -1).split('\n');
  if (lines.length < 1 || lines.length > MAX_NOTE_SIGNATURES) return null;
  const signatures: NoteSignature[] = [];
  for (const line of lines) {
    if (!line.startsWith(SIG_PREFIX)) return null;
    const parts = line.slice(SIG_PREFIX.length).split(' ');
    if (parts.length !== 2) return null;
    const [name, blob] = parts as [string, string];
    const raw = b64(blob);
    if (!isKeyName(name) || raw === null || raw.length < 5) return null;
    signatures.push({ name, keyHash: raw.subarray(0, 4), sig: raw.subarray(4) });
  }
  return { text, signatures };
}

/** True when the note carries a valid Ed25519 signature by (name, key). */
export function noteSignedBy(note: SignedNote, name: string, key: PublicKey): boolean {
  const hash = noteKeyHash(name, key.raw);
  return note.signatures.some((s) => s.name === name && s.keyHash.equals(hash) && s.sig.length === 64 && verifyEd25519(key, Buffer.from(note.text, 'utf8'), s.sig));
}
