// The file bytes a bundle carries (docs/bundle.md#views `current_files`, `baseline_files`), taken so that the
// bundle is "built from the very bytes that were hashed" (docs/contract.md#workspace-digest):
// - workspace: each file is read once more after the full re-hash (computeWorkspaceManifest) and
//   its bytes must hash to the manifest entry's sha256 and mode; any difference means the file
//   changed between the two reads (`workspace_file_changed_during_hash`, exit 4) and nothing is
//   issued. The bundle therefore holds exactly the bytes the bound workspace digest covers.
// - baseline: blobs of the baseline commit (git objects), checked against the baseline manifest.
// A contract path (docs/contract.md#validation-rules "names a file, not a directory ..., not through a symlink") that is a
// directory, a symlink, a special file, below a symlink or a regular file outside the reviewed
// workspace (ignored or excluded) is refused with `contract_path_not_file`, naming the contract
// item (never the path). A path that does not exist (a file still to be written, a file deleted)
// is carried as `present: false`.
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../../core/canonical.js';
import { fail } from '../../core/errors.js';
import type { Contract } from '../../core/contract/schema.js';
import { isGitMetadataPath } from '../../core/contract/paths.js';
import type { FileInput } from '../../core/bundle/index.js';
import { readCommitFiles, type ManifestEntry } from '../../workspace/index.js';

/** The first contract item (target, implementation, evidence) naming each path: what errors cite. */
export function pathOwners(contract: Contract): Map<string, string> {
  const owners = new Map<string, string>();
  const add = (path: string, id: string): void => {
    if (!owners.has(path)) owners.set(path, id);
  };
  for (const d of contract.directives) for (const t of d.targets) for (const p of t.paths) add(p, t.id);
  for (const i of contract.implementations) for (const p of i.paths) add(p, i.id);
  for (const e of contract.evidence) for (const p of e.paths) add(p, e.id);
  return owners;
}

/**
 * Running total of raw file bytes: refuse before reading more than the bundle cap can hold. Both
 * readers call `take` with a file's size before reading it (fstat for the workspace, the cat-file
 * object header for the baseline), so an oversized file is refused, never buffered.
 */
export class ByteBudget {
  private used = 0;
  constructor(private readonly maxBundleBytes: number) {}
  take(bytes: number, where: string): void {
    this.used += bytes;
    // base64 makes 3 bytes 4 characters: past this, the bundle cannot fit whatever else it holds.
    if (Math.ceil(this.used / 3) * 4 > this.maxBundleBytes) fail('bundle_too_large', [where]);
  }
}

type Manifested = Map<string, ManifestEntry>;

/** Every proper parent directory of every manifest path. */
function directoriesOf(entries: readonly ManifestEntry[]): Set<string> {
  const dirs = new Set<string>();
  for (const e of entries) {
    let i = e.path.lastIndexOf('/');
    while (i > 0) {
      const d = e.path.slice(0, i);
      if (dirs.has(d)) break;
      dirs.add(d);
      i = d.lastIndexOf('/');
    }
  }
  return dirs;
}

/** A proper prefix of `path` that is itself a manifest file or symlink (the path would go through it). */
function hasFileAncestor(path: string, byPath: Manifested): boolean {
  for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1)) if (byPath.has(path.slice(0, i))) return true;
  return false;
}

type Classified = { kind: 'file'; entry: ManifestEntry } | { kind: 'absent' };

/** `path` equals an excluded prefix or lies below it (docs/contract.md#workspace-digest: excluded paths are not reviewed content). */
function isExcluded(path: string, exclude: readonly string[]): boolean {
  return exclude.some((x) => path === x || path.startsWith(`${x}/`));
}

function classify(path: string, owner: string, byPath: Manifested, dirs: Set<string>, exclude: readonly string[]): Classified | { kind: 'unlisted' } {
  if (isGitMetadataPath(path)) fail('contract_path_git_metadata', [owner]);
  if (isExcluded(path, exclude)) fail('contract_path_not_file', [owner]);
  const entry = byPath.get(path);
  if (entry !== undefined) {
    if (entry.mode === '120000') fail('contract_path_not_file', [owner]);
    return { kind: 'file', entry };
  }
  if (dirs.has(path) || hasFileAncestor(path, byPath)) fail('contract_path_not_file', [owner]);
  return { kind: 'unlisted' };
}

/**
 * A path the workspace manifest does not list is either truly absent or hidden from the digest
 * (ignored, excluded, below a symlinked directory, a special file): only the first is acceptable.
 * Walks the components with lstat, never following a link.
 */
function assertTrulyAbsent(root: string, path: string, owner: string): void {
  const parts = path.split('/');
  for (let i = 1; i <= parts.length; i++) {
    let st;
    try {
      st = lstatSync(join(root, ...parts.slice(0, i)));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return;
      return fail('workspace_file_unreadable', [owner]);
    }
    if (st.isSymbolicLink()) fail('contract_path_not_file', [owner]);
    if (i < parts.length && !st.isDirectory()) return; // a file where a directory would be: the path cannot exist
  }
  // It exists, yet the reviewed workspace does not list it.
  fail('contract_path_not_file', [owner]);
}

/** Read a regular workspace file without following links; its bytes must hash to `entry`. */
function readHashedFile(root: string, entry: ManifestEntry, owner: string, budget: ByteBudget): FileInput {
  let fd: number;
  try {
    fd = openSync(join(root, entry.path), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOENT') fail('workspace_file_changed_during_hash', [owner]);
    return fail('workspace_file_unreadable', [owner]);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) fail('workspace_file_changed_during_hash', [owner]);
    budget.take(st.size, owner);
    const buf = Buffer.alloc(st.size);
    let off = 0;
    while (off < st.size) {
      const n = readSync(fd, buf, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
    const mode = (st.mode & 0o100) !== 0 ? '100755' : '100644';
    if (off !== st.size || sha256Hex(buf) !== entry.sha256 || mode !== entry.mode) fail('workspace_file_changed_during_hash', [owner]);
    return { path: entry.path, present: true, mode, sha256: entry.sha256, bytes: buf };
  } finally {
    closeSync(fd);
  }
}

/** `current_files`: the workspace bytes of `paths`, each equal to what the workspace digest hashed. */
export function readWorkspaceEvidence(args: {
  readonly root: string;
  readonly manifest: readonly ManifestEntry[];
  readonly paths: readonly string[];
  readonly owners: ReadonlyMap<string, string>;
  readonly exclude: readonly string[];
  readonly budget: ByteBudget;
}): FileInput[] {
  const byPath: Manifested = new Map(args.manifest.map((e) => [e.path, e]));
  const dirs = directoriesOf(args.manifest);
  return args.paths.map((path) => {
    const owner = args.owners.get(path) ?? 'contract';
    const c = classify(path, owner, byPath, dirs, args.exclude);
    if (c.kind === 'file') return readHashedFile(args.root, c.entry, owner, args.budget);
    assertTrulyAbsent(args.root, path, owner);
    return { path, present: false };
  });
}

/** `baseline_files`: blobs of the baseline commit, checked against the baseline manifest. */
export async function readBaselineEvidence(args: {
  readonly root: string;
  readonly commit: string;
  readonly manifest: readonly ManifestEntry[];
  readonly paths: readonly string[];
  readonly owners: ReadonlyMap<string, string>;
  readonly exclude: readonly string[];
  readonly budget: ByteBudget;
}): Promise<FileInput[]> {
  const byPath: Manifested = new Map(args.manifest.map((e) => [e.path, e]));
  const dirs = directoriesOf(args.manifest);
  const present: ManifestEntry[] = [];
  const out = new Map<string, FileInput>();
  for (const path of args.paths) {
    const c = classify(path, args.owners.get(path) ?? 'contract', byPath, dirs, args.exclude);
    // In git objects there is nothing hidden: a path the baseline manifest does not list did not exist.
    if (c.kind === 'file') present.push(c.entry);
    else out.set(path, { path, present: false });
  }
  // The budget admits each blob by the size git announces, BEFORE its bytes are read: an
  // over-budget baseline file is `bundle_too_large` without ever being buffered (git is stopped).
  const limit = { admit: (i: number, size: number) => args.budget.take(size, args.owners.get((present[i] as ManifestEntry).path) ?? 'contract') };
  const bytes = present.length === 0 ? new Map<string, Buffer>() : await readCommitFiles(args.root, args.commit, present.map((e) => e.path), limit);
  for (const e of present) {
    const b = bytes.get(e.path);
    const owner = args.owners.get(e.path) ?? 'contract';
    if (b === undefined || sha256Hex(b) !== e.sha256) fail('digest_mismatch', [owner]);
    out.set(e.path, { path: e.path, present: true, mode: e.mode as '100644' | '100755', sha256: e.sha256, bytes: b });
  }
  return args.paths.map((p) => out.get(p) as FileInput);
}
