// The auditor's state directory of `audit verify --state DIR --state-key K` (docs/audit.md#incremental-audit).
// After a clean audit it holds what the next audit starts from, so that one re-checks only the
// entries appended since:
//   replay.db   the replayed store at the note's size (tables, log copy and Merkle tree),
//   carry.json  what the record checks carry across the log (./verify.ts RecordChecks.carry),
//   state.note  a signed note (src/core/audit-state-note.ts) by the auditor's key over the log's
//               identity, size, Merkle root, chain head, the replayed tables' state digest, the
//               carry file's digest and the trust mode — written last, by rename.
// The key is the auditor's, not a governed credential: the directory is as trustworthy as that key
// and the machine the audit runs on. An empty or missing DIR starts a full audit that saves it.
import { createHash, sign } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fail } from '../../core/errors.js';
import { AUDIT_STATE_CARRY_MAX_BYTES, CHECKPOINT_FILE_MAX_BYTES } from '../../core/limits.js';
import { AUDIT_STATE_KEY_NAME, auditStateBody, parseAuditStateNote, type AuditStateAnchor } from '../../core/audit-state-note.js';
import { noteSignedBy, signatureLine } from '../../core/signed-note.js';
import { parseJsonStrict } from '../../core/strict-parse.js';
import type { SigningKey } from '../authority/private-key.js';
import { readInputFile } from '../read-input.js';

export const STATE_NOTE = 'state.note';
export const STATE_CARRY = 'carry.json';
export const STATE_DB = 'replay.db';

export type AuditStateDir =
  | { readonly kind: 'new'; readonly dir: string; readonly created: boolean }
  | { readonly kind: 'resume'; readonly dir: string; readonly anchor: AuditStateAnchor; readonly carry: unknown };

const sha256 = (b: Buffer | string): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;

/**
 * Open DIR: missing or empty → a full audit will save into it (a missing DIR is created 0700);
 * holding a state note → its signature by `key` (audit_state_untrusted, 6), its format and its
 * carry file's digest (audit_state_invalid, 4) are checked; anything else is refused (usage_error).
 */
export function openAuditStateDir(dir: string, key: SigningKey): AuditStateDir {
  if (!existsSync(dir)) {
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch {
      fail('usage_error', ['--state']);
    }
    return { kind: 'new', dir, created: true };
  }
  const st = lstatSync(dir);
  if (!st.isDirectory()) fail('usage_error', ['--state']);
  const names = readdirSync(dir);
  if (names.length === 0) return { kind: 'new', dir, created: false };
  if (!names.includes(STATE_NOTE)) fail('usage_error', ['--state']);
  const parsed = parseAuditStateNote(readInputFile(join(dir, STATE_NOTE), CHECKPOINT_FILE_MAX_BYTES).toString('utf8'));
  if (parsed === null) fail('audit_state_invalid', [STATE_NOTE]);
  if (!noteSignedBy(parsed.note, AUDIT_STATE_KEY_NAME, key.publicKey)) fail('audit_state_untrusted', [STATE_NOTE]);
  if (!existsSync(join(dir, STATE_DB))) fail('audit_state_invalid', [STATE_DB]);
  const bytes = readInputFile(join(dir, STATE_CARRY), AUDIT_STATE_CARRY_MAX_BYTES);
  if (sha256(bytes) !== parsed.anchor.carry) fail('audit_state_invalid', [STATE_CARRY]);
  let carry: unknown;
  try {
    carry = parseJsonStrict(bytes.toString('utf8'));
  } catch {
    fail('audit_state_invalid', [STATE_CARRY]);
  }
  return { kind: 'resume', dir, anchor: parsed.anchor, carry };
}

/** Undo a full audit's save that did not complete: remove what it created in DIR. */
export function abandonAuditStateDir(s: AuditStateDir): void {
  if (s.kind !== 'new') return;
  if (s.created) rmSync(s.dir, { recursive: true, force: true });
  else for (const f of [STATE_DB, `${STATE_DB}-wal`, `${STATE_DB}-shm`, `${STATE_DB}-journal`]) rmSync(join(s.dir, f), { force: true });
}

function replaceFile(path: string, text: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, text, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, path);
  } catch {
    if (existsSync(tmp)) unlinkSync(tmp);
    fail('audit_state_invalid', ['write']);
  }
}

/**
 * Write the carry file, then the note that names its digest (the note last: until it is renamed
 * into place, DIR still describes the old size). Called after replay.db was committed at the new
 * size; a crash between the two leaves a note whose state digest the database no longer has, which
 * the next audit refuses (audit_state_invalid) — the auditor then starts over with an empty DIR.
 */
export function saveAuditState(dir: string, key: SigningKey, anchor: Omit<AuditStateAnchor, 'carry'>, carryText: string): void {
  replaceFile(join(dir, STATE_CARRY), carryText);
  const body = auditStateBody({ ...anchor, carry: sha256(carryText) });
  const sig = sign(null, Buffer.from(body, 'utf8'), key.privateKey);
  replaceFile(join(dir, STATE_NOTE), `${body}\n${signatureLine(AUDIT_STATE_KEY_NAME, key.publicKey.raw, sig)}`);
}
