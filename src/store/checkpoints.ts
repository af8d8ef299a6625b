// The store's own checkpoints (docs/audit.md "Automatic checkpoints"): `<home>/checkpoints/`, one
// C2SP signed note per tree size, named by the size in 20 digits (`00000000000000000042.note`), so
// the newest is the last name. A file is written whole or not at all: a private temporary file in
// the same directory, fsync'd, then hard-linked to its name (exclusive: an existing name is never
// replaced) and the temporary removed. The directory is the store's (0700, ours, not a symlink),
// like `bundles/`. The notes are NOT trusted because they are here: every reader checks the
// signature (verifier) or the root against the log's tree (writer, exporter).
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, fsyncSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fail } from '../core/errors.js';
import { checkpointDue, type TlogCheckpointPolicy } from '../core/tlog-auto.js';
import type { Db } from './store.js';
import { SIGNED_NOTE_MAX_BYTES } from '../core/limits.js';

export const CHECKPOINTS_DIR = 'checkpoints';
const NAME_RE = /^([0-9]{20})\.note$/;
/** A checkpoint note is a few hundred bytes; witnesses add a line each (src/core/limits.ts). */
export const MAX_CHECKPOINT_BYTES = SIGNED_NOTE_MAX_BYTES;

export function checkpointName(size: number): string {
  return `${String(size).padStart(20, '0')}.note`;
}

function privateDir(home: string, create: boolean): string | null {
  const dir = join(home, CHECKPOINTS_DIR);
  let st;
  try {
    st = lstatSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') fail('store_permissions_unsafe', [CHECKPOINTS_DIR]);
    if (!create) return null;
    mkdirSync(dir, { mode: 0o700 });
    st = lstatSync(dir);
  }
  const uid = typeof process.geteuid === 'function' ? process.geteuid() : -1;
  if (st.isSymbolicLink() || !st.isDirectory() || st.uid !== uid || (st.mode & 0o077) !== 0) fail('store_permissions_unsafe', [CHECKPOINTS_DIR]);
  return dir;
}

export interface StoredCheckpoint {
  /** `checkpoints/<name>` (relative to the state directory). */
  readonly file: string;
  /** The size its name says (the note's own size is checked by whoever parses it). */
  readonly size: number;
  readonly bytes: Buffer;
}

/** The newest stored checkpoint (largest size), or null when there is none. */
export function newestStoredCheckpoint(home: string): StoredCheckpoint | null {
  const dir = privateDir(home, false);
  if (dir === null) return null;
  const names = readdirSync(dir).filter((n) => NAME_RE.test(n)).sort();
  const name = names[names.length - 1];
  if (name === undefined) return null;
  const fd = openSync(join(dir, name), constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_CHECKPOINT_BYTES) fail('tlog_checkpoint_invalid', [`${CHECKPOINTS_DIR}/${name}`]);
    return { file: `${CHECKPOINTS_DIR}/${name}`, size: Number((NAME_RE.exec(name) as RegExpExecArray)[1]), bytes: readFileSync(fd) };
  } finally {
    closeSync(fd);
  }
}

/**
 * Store the note of tree size `size`, whole or not at all. If a note of that size is already
 * there (another process wrote it first), it must be byte-identical (Ed25519 signatures are
 * deterministic: the same body signed by the same key is the same note); another is `tlog_fork`.
 */
export function storeCheckpoint(home: string, size: number, text: string): string {
  const dir = privateDir(home, true) as string;
  const name = checkpointName(size);
  const tmp = join(dir, `.tmp-${randomBytes(8).toString('hex')}`);
  const bytes = Buffer.from(text, 'utf8');
  let fd: number;
  try {
    fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch {
    fail('tlog_checkpoint_unwritable', [CHECKPOINTS_DIR]);
  }
  try {
    try {
      let off = 0;
      while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(tmp, join(dir, name));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (!readFileSync(join(dir, name)).equals(bytes)) fail('tlog_fork', [`${CHECKPOINTS_DIR}/${name}`]);
    }
    const dfd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      fsyncSync(dfd);
    } finally {
      closeSync(dfd);
    }
  } catch (e) {
    if (e instanceof Error && e.name === 'GovernedError') throw e;
    fail('tlog_checkpoint_unwritable', [CHECKPOINTS_DIR]);
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
  }
  return `${CHECKPOINTS_DIR}/${name}`;
}

/** Whether `rule` wants a checkpoint of this log when the newest one covers `newestSize` entries. */
export function checkpointDueOn(db: Db, rule: TlogCheckpointPolicy, newestSize: number): boolean {
  const head = db.prepare('SELECT seq, time FROM log ORDER BY seq DESC LIMIT 1').get() as { seq: number; time: number } | undefined;
  if (head === undefined) return false;
  // A name beyond the log is no checkpoint of it (the writer's step refuses it, tlog_log_truncated):
  // it never makes a due checkpoint look written (the gate reads names only).
  if (newestSize > head.seq) return true;
  const base = db.prepare('SELECT time FROM log WHERE seq = ?').pluck().get(Math.max(1, Math.min(newestSize, head.seq))) as number;
  return checkpointDue(rule, { entries: head.seq, headTime: head.time }, { size: newestSize, time: base });
}

/** The size the newest stored checkpoint's NAME gives (0: none). Its content is not read here. */
export function newestStoredSize(home: string): number {
  const dir = privateDir(home, false);
  if (dir === null) return 0;
  const names = readdirSync(dir).filter((n) => NAME_RE.test(n)).sort();
  const name = names[names.length - 1];
  return name === undefined ? 0 : Number((NAME_RE.exec(name) as RegExpExecArray)[1]);
}
