// Sealed snapshots (docs/sandbox.md#sealed-snapshots): the reviewed content, materialised into a
// private directory from the very bytes that are hashed, so that what a check (or a probe) runs on
// is provably the content a challenge bound — never the live working tree, which the writer can
// still change while the run goes on.
//
//   sealWorkspace    the workspace manifest (same listing and scope as issuance) copied file by
//                    file: each file is read ONCE, hashed, and those bytes written; the manifest of
//                    the written bytes must equal the digest the caller expects (the challenge's
//                    workspace digest), else `review_post_launch_drift` [workspace].
//   sealDirectory    a declared dependency root (e.g. node_modules), copied the same way; its
//                    digest is the manifest digest of every file and symlink under it.
//   digestDirectory  that digest without a copy (issuance binds it; the run re-derives it by sealing).
//   verifySealed     a full re-walk of a sealed tree: any file added, removed, changed or re-moded
//                    since sealing is `snapshot_altered` (the tree is refused, never used).
//   removeSealed     make the read-only tree deletable again and remove it.
//
// A sealed tree is owned by governed, files 0444 (0555 when executable), directories 0555, in a
// fresh root made by `makeSealRoot` (mkdtemp under the sticky /tmp, mode 0711: other users can
// neither list, rename nor write it). The sandbox reaches it through a descriptor bound read-only
// (bwrap --ro-bind-fd; bwrap resolves that descriptor's path as the sandbox uid, which is why the
// root must be traversable and cannot live under governed's 0700 state directory). In separated mode
// the root is made in the daemon's `<dir>/sealed` (governed, group the sandbox gid, 0710) instead, and
// the sandbox host opens the trees itself (docs/runnerd.md#check-slots-on-the-sandbox-host).
// Special files are refused (`workspace_special_file_refused`); symlinks are copied as
// symlinks (their target text is what is hashed, docs/contract.md#workspace-digest), never followed.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  rmSync,
  symlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { fail } from '../core/errors.js';
import { SEALED_FILE_MAX_BYTES } from '../core/limits.js';
import { computeWorkspaceManifest, type ScopeOptions } from './manifest.js';
import { computeCommitManifest, readCommitFiles } from './commit.js';
import { manifestOf, type Manifest, type ManifestEntry } from './manifest-entries.js';
import type { GitMode } from './hash-file.js';

export interface SealedTree {
  /** Absolute path of the sealed copy (private; read-only). */
  readonly dir: string;
  /** `sha256:<hex>`: the manifest digest of the sealed bytes (docs/contract.md#workspace-digest form). */
  readonly digest: string;
  readonly entries: readonly ManifestEntry[];
  /** Empty directories left in the tree as mount points (relative paths), excluded from the digest. */
  readonly mountPoints: readonly string[];
}

const FILE_MODE: Record<GitMode, number> = { '100644': 0o444, '100755': 0o555, '120000': 0 };
/** Bytes of one file held in memory while it is copied (larger files are refused). */
export const MAX_SEALED_FILE_BYTES = SEALED_FILE_MAX_BYTES;

interface ReadEntry {
  readonly mode: GitMode;
  readonly bytes: Buffer;
}

/** Read one entry once, without following a symlink, refusing special files. */
function readEntry(abs: string): ReadEntry {
  let st;
  try {
    st = lstatSync(abs);
  } catch {
    return fail('workspace_file_unreadable');
  }
  if (st.isSymbolicLink()) return { mode: '120000', bytes: Buffer.from(readlinkSync(abs, { encoding: 'buffer' })) };
  if (!st.isFile()) return fail('workspace_special_file_refused');
  let fd: number;
  try {
    fd = openSync(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return fail('workspace_file_unreadable');
  }
  try {
    const fst = fstatSync(fd);
    if (!fst.isFile() || fst.ino !== st.ino || fst.dev !== st.dev) fail('workspace_file_changed_during_hash');
    if (fst.size > MAX_SEALED_FILE_BYTES) fail('workspace_file_unreadable');
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.max(65536, Math.min(fst.size + 1, 1 << 20)));
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      total += n;
      if (total > MAX_SEALED_FILE_BYTES) fail('workspace_file_unreadable');
      chunks.push(buf.subarray(0, n));
    }
    return { mode: (fst.mode & 0o100) !== 0 ? '100755' : '100644', bytes: Buffer.concat(chunks, total) };
  } finally {
    closeSync(fd);
  }
}

const sha256Hex = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** Create the parent directories of `rel` under `root` (0755 while writing; sealed to 0555 after). */
function ensureParents(root: string, rel: string, made: Set<string>): void {
  const parts = rel.split('/');
  let cur = '';
  for (let i = 0; i < parts.length - 1; i++) {
    cur = cur === '' ? (parts[i] as string) : `${cur}/${parts[i] as string}`;
    if (made.has(cur)) continue;
    mkdirSync(join(root, cur), { mode: 0o755 });
    made.add(cur);
  }
}

/** Write one entry exclusively (O_EXCL: never through something already there). */
function writeEntry(root: string, rel: string, e: ReadEntry): void {
  const abs = join(root, rel);
  if (e.mode === '120000') {
    symlinkSync(e.bytes.toString('utf8'), abs);
    return;
  }
  const fd = openSync(abs, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    let off = 0;
    while (off < e.bytes.length) off += writeSync(fd, e.bytes, off, e.bytes.length - off);
  } finally {
    closeSync(fd);
  }
  chmodSync(abs, FILE_MODE[e.mode]);
}

/** Seal: every directory read-only, deepest first. */
function sealDirs(root: string, made: Set<string>): void {
  for (const d of [...made].sort((a, b) => b.length - a.length)) chmodSync(join(root, d), 0o555);
  chmodSync(root, 0o555);
}

function assertRel(p: string): void {
  if (p === '' || p.startsWith('/') || p.split('/').some((s) => s === '' || s === '.' || s === '..')) fail('internal_error', ['snapshot.path']);
}

/** Copy `(path → source file)` into a fresh `into` directory, hashing the very bytes written. */
function copyTree(sourceOf: (rel: string) => string, paths: readonly string[], into: string, mountPoints: readonly string[]): ManifestEntry[] {
  return copyEntries((rel) => readEntry(sourceOf(rel)), paths, into, mountPoints);
}

/** Copy `(path → entry bytes)` into a fresh `into` directory, hashing the very bytes written. */
function copyEntries(entryOf: (rel: string) => ReadEntry, paths: readonly string[], into: string, mountPoints: readonly string[]): ManifestEntry[] {
  mkdirSync(into, { mode: 0o755 });
  const made = new Set<string>();
  const entries: ManifestEntry[] = [];
  try {
    for (const rel of paths) {
      assertRel(rel);
      const e = entryOf(rel);
      ensureParents(into, rel, made);
      writeEntry(into, rel, e);
      entries.push({ path: rel, mode: e.mode, sha256: sha256Hex(e.bytes) });
    }
    for (const m of mountPoints) {
      assertRel(m);
      ensureParents(into, `${m}/x`, made);
    }
    sealDirs(into, made);
  } catch (e) {
    removeSealed(into);
    throw e;
  }
  return entries;
}

/**
 * Materialise the workspace (the policy's product roots and excludes, listed as issuance lists them)
 * into `into` (must not exist; its parent should be private). `mountPoints` are empty directories
 * created for binds on top of the snapshot (a dependency root); none may hold a manifest entry.
 * Throws `review_post_launch_drift` [workspace] when the sealed bytes are not `expectedDigest`.
 */
export async function sealWorkspace(o: {
  readonly repo: string;
  readonly scope: ScopeOptions;
  readonly into: string;
  readonly expectedDigest: string;
  readonly mountPoints?: readonly string[];
}): Promise<SealedTree> {
  const listed = await computeWorkspaceManifest(o.repo, o.scope);
  const mountPoints = o.mountPoints ?? [];
  for (const m of mountPoints) {
    if (listed.entries.some((e) => e.path === m || e.path.startsWith(`${m}/`))) fail('check_dependency_root_in_workspace', [m]);
  }
  const entries = copyTree((rel) => join(o.repo, rel), listed.entries.map((e) => e.path), o.into, mountPoints);
  const m = manifestOf(entries);
  if (m.digest !== o.expectedDigest) {
    removeSealed(o.into);
    fail('review_post_launch_drift', ['workspace']);
  }
  return { dir: o.into, digest: m.digest, entries: m.entries, mountPoints };
}

/**
 * Materialise a COMMIT's tree (the policy's product roots and excludes) from git objects: the
 * baseline of a unit, for preservation probes (docs/preservation.md#probes). The bytes written are
 * the blobs read once from the object store; their manifest must equal `expectedDigest` (the commit
 * manifest, docs/contract.md#workspace-digest), else `review_post_launch_drift` [baseline].
 */
export async function sealCommit(o: {
  readonly repo: string;
  readonly commit: string;
  readonly scope: ScopeOptions;
  readonly into: string;
  readonly expectedDigest: string;
  readonly mountPoints?: readonly string[];
}): Promise<SealedTree> {
  const listed = await computeCommitManifest(o.repo, o.commit, o.scope);
  const mountPoints = o.mountPoints ?? [];
  for (const m of mountPoints) {
    if (listed.entries.some((e) => e.path === m || e.path.startsWith(`${m}/`))) fail('check_dependency_root_in_workspace', [m]);
  }
  const modes = new Map(listed.entries.map((e) => [e.path, e.mode]));
  // Blobs are read as regular files (readCommitFiles refuses symlinks and trees): a baseline holding
  // a symlink is refused here rather than materialised differently from its manifest.
  const blobs = await readCommitFiles(o.repo, o.commit, listed.entries.map((e) => e.path), {
    admit(_index, size) {
      if (size > MAX_SEALED_FILE_BYTES) fail('workspace_file_unreadable');
    },
  });
  const entries = copyEntries(
    (rel) => {
      const bytes = blobs.get(rel);
      const mode = modes.get(rel);
      if (bytes === undefined || mode === undefined) return fail('workspace_file_unreadable');
      return { mode, bytes };
    },
    listed.entries.map((e) => e.path),
    o.into,
    mountPoints,
  );
  const m = manifestOf(entries);
  if (m.digest !== o.expectedDigest) {
    removeSealed(o.into);
    fail('review_post_launch_drift', ['baseline']);
  }
  return { dir: o.into, digest: m.digest, entries: m.entries, mountPoints };
}

/** Every file and symlink under `dir` (relative paths, sorted walk); directories are not entries. */
function listTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    const abs = rel === '' ? dir : join(dir, rel);
    let names: string[];
    try {
      names = readdirSync(abs);
    } catch {
      return fail('workspace_file_unreadable');
    }
    for (const name of names.sort()) {
      const r = rel === '' ? name : `${rel}/${name}`;
      const st = lstatSync(join(dir, r));
      if (st.isDirectory()) walk(r);
      else if (st.isFile() || st.isSymbolicLink()) out.push(r);
      else fail('workspace_special_file_refused');
    }
  };
  walk('');
  return out;
}

/** The root itself must be a real directory (not a symlink to one: it would be followed). */
function assertDirectory(dir: string, code: 'check_dependency_root_invalid'): void {
  let st;
  try {
    st = lstatSync(dir);
  } catch {
    return fail(code);
  }
  if (!st.isDirectory()) fail(code);
}

/** The manifest (and digest) of a directory tree, read now: issuance binds it. */
export function digestDirectory(dir: string): Manifest {
  assertDirectory(dir, 'check_dependency_root_invalid');
  const entries = listTree(dir).map((rel) => {
    const e = readEntry(join(dir, rel));
    return { path: rel, mode: e.mode, sha256: sha256Hex(e.bytes) };
  });
  return manifestOf(entries);
}

/**
 * Copy a directory tree into `into`, hashing the bytes written; throws `review_post_launch_drift`
 * [`driftId`] when they are not `expectedDigest` (the tree changed since it was bound).
 */
export function sealDirectory(o: { readonly source: string; readonly into: string; readonly expectedDigest: string; readonly driftId: string }): SealedTree {
  assertDirectory(o.source, 'check_dependency_root_invalid');
  const entries = copyTree((rel) => join(o.source, rel), listTree(o.source), o.into, []);
  const m = manifestOf(entries);
  if (m.digest !== o.expectedDigest) {
    removeSealed(o.into);
    fail('review_post_launch_drift', [o.driftId]);
  }
  return { dir: o.into, digest: m.digest, entries: m.entries, mountPoints: [] };
}

/**
 * Re-walk a sealed tree in full: the same files with the same bytes and modes, read-only modes
 * intact, mount points still empty directories, and nothing else. Otherwise `snapshot_altered`.
 */
export function verifySealed(t: SealedTree): void {
  let listed: string[];
  try {
    listed = listTree(t.dir);
    for (const m of t.mountPoints) {
      const st = lstatSync(join(t.dir, m));
      if (!st.isDirectory() || readdirSync(join(t.dir, m)).length !== 0) fail('snapshot_altered');
    }
  } catch {
    return fail('snapshot_altered');
  }
  const entries: ManifestEntry[] = [];
  for (const rel of listed) {
    let e: ReadEntry;
    try {
      e = readEntry(join(t.dir, rel));
    } catch {
      return fail('snapshot_altered');
    }
    if (e.mode !== '120000') {
      const mode = lstatSync(join(t.dir, rel)).mode & 0o7777;
      if (mode !== FILE_MODE[e.mode]) fail('snapshot_altered');
    }
    entries.push({ path: rel, mode: e.mode, sha256: sha256Hex(e.bytes) });
  }
  if (manifestOf(entries).digest !== t.digest) fail('snapshot_altered');
}

/** Remove a sealed tree (its read-only directories made writable first). Never throws. */
export function removeSealed(dir: string): void {
  const open = (d: string): void => {
    try {
      chmodSync(d, 0o700);
      for (const name of readdirSync(d)) {
        const p = join(d, name);
        if (lstatSync(p).isDirectory()) open(p);
      }
    } catch {
      // gone or not ours
    }
  };
  open(dir);
  rmSync(dir, { recursive: true, force: true });
}

/** Where seal roots are made: the fixed sticky /tmp (never $TMPDIR, which a caller could point
 * at a directory it owns and so rename a sealed tree away). */
export const SEAL_PARENT = '/tmp';
const LABEL_RE = /^[A-Za-z0-9-]{1,64}$/;

/** A fresh, root-of-run directory for sealed trees: `<parent>/governed-sealed-<label>-XXXXXX`, 0711.
 * `parent` is the sticky /tmp, or a directory only governed can write (separated mode's
 * `<dir>/sealed`, docs/runnerd.md#check-slots-on-the-sandbox-host) — never one a caller names. */
export function makeSealRoot(label: string, parent: string = SEAL_PARENT): string {
  if (!LABEL_RE.test(label)) fail('internal_error', ['snapshot.label']);
  const dir = mkdtempSync(join(parent, `governed-sealed-${label}-`));
  chmodSync(dir, 0o711);
  return dir;
}

/** Open a sealed tree's root for bwrap --ro-bind-fd (O_RDONLY | O_DIRECTORY | O_NOFOLLOW, close-on-exec). */
export function openSealedDir(t: SealedTree): number {
  return openSync(t.dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
}
