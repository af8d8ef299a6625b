// The candidate path set of the workspace digest (docs/contract.md#workspace-digest): files git tracks or would track
// under the product roots, minus excluded prefixes. In a repository, git lists them:
//   `ls-files -t --cached --stage --others --exclude-per-directory=.gitignore`
// (tracked entries with their modes, so gitlinks are seen and refused, plus untracked files).
// NOT --exclude-standard: only the .gitignore files inside the tree decide what is ignored;
// .git/info/exclude and core.excludesFile live outside the reviewed content.
// git silently skips FIFOs, sockets and devices and lists a nested repository as `dir/`, so a
// directory walk (pruned at ignored directories) finds special files and nested `.git` entries to
// refuse them. Outside a repository the walk itself yields every regular file and symlink.
//
// The walk also records the file type readdir reported for every entry it saw (d_type, or lstat
// where the filesystem reports DT_UNKNOWN). That is the "type before open" fact docs/contract.md#workspace-digest needs
// (special files are refused without being opened, symlinks are never followed), obtained once per
// directory instead of one lstat per file (docs/performance.md#workspace-digest: ~3 µs per file, ~30 ms per
// 10,000 files). An entry reached by the walk was reached through real directories only (the walk never
// enters a symlink), so it also needs no parent check. Paths git lists that the walk did not see
// (a tracked file under an ignored directory, a deleted file, a path below a directory that became
// a symlink) carry kind `null`: the caller falls back to parent check + lstat for them.
import { isUtf8 } from 'node:buffer';
import { readdirSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { fail } from '../core/errors.js';
import { runGit, splitNul, type GitRepo } from './git.js';
import { isErrno, lstatEntry } from './hash-file.js';
import { decodePath, inScope, mayContainScoped, type Scope } from './scope.js';

const GITLINK_MODE = '160000';

/** What the directory walk saw at a path: a regular file or a symlink; null = not seen by it. */
export type ListedKind = 'file' | 'symlink' | null;

export interface ListedPath {
  readonly path: string;
  readonly kind: ListedKind;
  /** Position of the path in the walk's `Walked` arrays; -1 when the walk did not see it. */
  readonly walkIndex: number;
}

/**
 * Every in-scope, non-ignored regular file and symlink the walk saw, with its readdir type, as
 * parallel arrays (the order hashing uses) plus a path → position index: the manifest step looks
 * results up by position instead of building a second map of 10,000 paths.
 */
export class Walked {
  readonly paths: string[] = [];
  readonly kinds: ('file' | 'symlink')[] = [];
  readonly index = new Map<string, number>();

  add(path: string, kind: 'file' | 'symlink'): void {
    if (this.index.has(path)) return;
    this.index.set(path, this.paths.length);
    this.paths.push(path);
    this.kinds.push(kind);
  }
}

/** The walk's result, available before git's tracked/untracked listing has arrived. */
export interface WalkedListing {
  readonly seen: Walked;
  /**
   * The candidate set (repository-relative, unsorted, unique; entries may have vanished) with the
   * type the walk saw: git's listing in a repository, the walk itself outside one. Every path the
   * walk saw and git lists is in it with its kind and walk position; a path git lists that the
   * walk did not see has kind null and position -1.
   */
  candidates(): Promise<ListedPath[]>;
}

/** `beginListing` then its candidates: the whole listing in one call. */
export async function listWorkspaceEntries(root: string, repo: GitRepo | null, scope: Scope): Promise<ListedPath[]> {
  return (await beginListing(root, repo, scope)).candidates();
}

/**
 * Start git's two listings, walk the tree as soon as the (shorter) ignored listing is in, and
 * return the walk's result while git may still be producing the tracked/untracked listing: the
 * caller can start hashing the walked files in that time (./manifest.ts), so the listing costs
 * little wall time of its own.
 */
export async function beginListing(root: string, repo: GitRepo | null, scope: Scope): Promise<WalkedListing> {
  if (repo === null) {
    const seen = new Walked();
    walk(root, scope, null, seen);
    return {
      seen,
      candidates: () =>
        Promise.resolve(seen.paths.map((path, walkIndex) => ({ path, kind: seen.kinds[walkIndex] ?? null, walkIndex }))),
    };
  }
  // The ignored listing is spawned first: it is the one awaited before the walk can start, so it
  // gets the head start (on a busy machine each child waits for a CPU of its own).
  const ignoredP = runGit(repo, [
    'ls-files', '-z', '--others', '--ignored', '--directory', '--exclude-per-directory=.gitignore',
  ]);
  // One listing for tracked and untracked paths: `-t` prefixes every record with a status tag
  // ("? " for untracked, a letter for index entries), so an untracked name that mimics a
  // "<mode> <oid> <stage>\t" index record can never be parsed as one. Two git processes, not
  // three: each spawn of a child costs several ms of the status fast path.
  const listedP = runGit(repo, [
    'ls-files', '-z', '-t', '--cached', '--stage', '--others', '--exclude-per-directory=.gitignore',
  ]);
  // Keep the second listing's rejection handled until a caller awaits it.
  listedP.catch(() => undefined);
  let ignored: IgnoredSet;
  try {
    ignored = ignoredSetOf(await ignoredP);
  } catch (e) {
    await listedP.catch(() => undefined); // never leave a git child running behind a failure
    throw e;
  }
  const seen = new Walked();
  try {
    walk(root, scope, ignored, seen);
  } catch (e) {
    // A failed git listing (exit 1) outranks a refusal found by the walk (docs/commands.md#exit-codes precedence).
    await listedP;
    throw e;
  }
  return { seen, candidates: async () => parseListed(await listedP, scope, seen) };
}

/** git's tracked/untracked listing as candidates, typed by what the walk saw. */
function parseListed(listed: Buffer, scope: Scope, seen: Walked): ListedPath[] {
  const paths = new Set<string>();
  const out: ListedPath[] = [];
  for (const rec of nulRecordsUtf8(listed)) {
    if (rec.length < 3 || rec.charCodeAt(1) !== 0x20) fail('workspace_git_failed', ['ls-files']);
    let path: string;
    if (rec.charCodeAt(0) === 0x3f /* ? */) {
      path = rec.slice(2);
      if (path.endsWith('/')) {
        // An untracked directory git reports whole: it holds its own repository.
        if (inScope(scope, path.slice(0, -1))) fail('workspace_submodule_refused');
        continue;
      }
      if (!inScope(scope, path)) continue;
    } else {
      // "<tag> <mode> <oid> <stage>\t<path>"; the prefix is ASCII.
      const tab = rec.indexOf('\t');
      if (tab < 0) fail('workspace_git_failed', ['ls-files']);
      path = rec.slice(tab + 1);
      if (!inScope(scope, path)) continue;
      if (rec.startsWith(GITLINK_MODE, 2)) fail('workspace_submodule_refused');
    }
    if (paths.has(path)) continue; // an unmerged path has one index record per stage
    paths.add(path);
    const walkIndex = seen.index.get(path) ?? -1;
    out.push({ path, kind: walkIndex < 0 ? null : (seen.kinds[walkIndex] as 'file' | 'symlink'), walkIndex });
  }
  return out;
}

/**
 * NUL-terminated git output as decoded records. Valid UTF-8 as a whole means every record is
 * (NUL never occurs inside a multi-byte sequence), so the common case decodes once; otherwise each
 * record is decoded on its own and the first non-UTF-8 one is refused (docs/contract.md#workspace-digest).
 */
function nulRecordsUtf8(out: Buffer): string[] {
  if (!isUtf8(out)) return splitNul(out).map((rec) => decodePath(rec));
  if (out.length === 0) return [];
  if (out[out.length - 1] !== 0) fail('workspace_git_failed', ['unterminated-record']);
  return out.toString('utf8', 0, out.length - 1).split('\0');
}

/**
 * Paths git reports as ignored, by raw bytes (latin1 is a 1:1 byte mapping: an ignored name need
 * not be UTF-8) and, when the whole listing is UTF-8, also as decoded text for the walk's fast path.
 */
interface IgnoredSet {
  readonly raw: ReadonlySet<string>;
  readonly text: ReadonlySet<string> | null;
}

function ignoredSetOf(out: Buffer): IgnoredSet {
  const raw = new Set<string>();
  for (const rec of splitNul(out)) raw.add(rec.toString('latin1').replace(/\/$/, ''));
  let text: Set<string> | null = null;
  if (isUtf8(out)) {
    text = new Set<string>();
    for (const rec of splitNul(out)) text.add(rec.toString('utf8').replace(/\/$/, ''));
  }
  return { raw, text };
}

/**
 * Walk the in-scope part of the tree, recording in `seen` every in-scope regular file and symlink
 * with its type, and refusing special files and nested `.git` entries. With `ignored` (git mode)
 * entries git reports as ignored are skipped (and ignored directories not entered). Directories
 * are entered by name, never through a symlink.
 *
 * Names are read as text, which is cheaper than raw bytes; text decoding replaces invalid UTF-8
 * with U+FFFD, so a directory with any U+FFFD in a name (a real one or a replaced byte) is read
 * again as raw bytes, where every name is strictly decoded (and refused when not UTF-8) and
 * matched against the raw ignored set. The same happens everywhere when the ignored listing itself
 * is not UTF-8.
 */
function walk(root: string, scope: Scope, ignored: IgnoredSet | null, seen: Walked): void {
  const stack: string[] = [''];
  while (stack.length > 0) {
    // Descended directories always have UTF-8 names (others are refused first), so `dir` is
    // both the decoded path and, re-encoded, the raw one.
    const dir = stack.pop() as string;
    const abs = dir === '' ? root : join(root, dir);
    // Whether every entry of this directory is in scope (the common case: under a root, and no
    // excluded prefix at or below it), so the per-entry scope test can be skipped.
    const wholeDirInScope = dir !== '' && inScope(scope, dir) && !scope.exclude.some((x) => x.startsWith(`${dir}/`));
    const visit = (name: string, d: Dirent<string> | Dirent<Buffer>): void => {
      const rel = dir === '' ? name : `${dir}/${name}`;
      if (name === '.git') {
        if (dir === '' && ignored !== null) return; // the repository's own git directory
        if (mayContainScoped(scope, dir)) fail('workspace_submodule_refused');
        return;
      }
      let kind: 'dir' | 'file' | 'symlink' | 'special';
      if (d.isFile()) kind = 'file';
      else if (d.isDirectory()) kind = 'dir';
      else if (d.isSymbolicLink()) kind = 'symlink';
      else if (d.isFIFO() || d.isSocket() || d.isBlockDevice() || d.isCharacterDevice()) kind = 'special';
      else {
        // DT_UNKNOWN on some filesystems: ask lstat (never open).
        const st = lstatEntry(join(root, rel));
        if (st === null) return;
        kind = st.isDirectory() ? 'dir' : st.isFile() ? 'file' : st.isSymbolicLink() ? 'symlink' : 'special';
      }
      if (kind === 'dir') {
        if (mayContainScoped(scope, rel)) stack.push(rel);
        return;
      }
      if (!wholeDirInScope && !inScope(scope, rel)) return;
      if (kind === 'special') fail('workspace_special_file_refused');
      seen.add(rel, kind);
    };

    const textIgnored = ignored === null ? null : ignored.text;
    if (ignored === null || textIgnored !== null) {
      const entries = readDir(abs, 'utf8');
      if (entries === null) continue; // removed while walking
      if (!entries.some((d) => d.name.includes('\uFFFD'))) {
        for (const d of entries) {
          if (textIgnored !== null && textIgnored.size > 0 && textIgnored.has(dir === '' ? d.name : `${dir}/${d.name}`)) continue;
          visit(d.name, d);
        }
        continue;
      }
    }
    const entries = readDir(abs, 'buffer');
    if (entries === null) continue;
    const dirRaw = Buffer.from(dir, 'utf8').toString('latin1');
    for (const d of entries) {
      if (ignored !== null) {
        const nameRaw = d.name.toString('latin1');
        if (ignored.raw.has(dir === '' ? nameRaw : `${dirRaw}/${nameRaw}`)) continue;
      }
      visit(decodePath(d.name), d);
    }
  }
}

function readDir(abs: string, encoding: 'utf8'): Dirent[] | null;
function readDir(abs: string, encoding: 'buffer'): Dirent<Buffer>[] | null;
function readDir(abs: string, encoding: 'utf8' | 'buffer'): Dirent<string>[] | Dirent<Buffer>[] | null {
  try {
    return encoding === 'utf8'
      ? readdirSync(abs, { withFileTypes: true, encoding: 'utf8' })
      : readdirSync(abs, { withFileTypes: true, encoding: 'buffer' });
  } catch (e) {
    if (isErrno(e, 'ENOENT') || isErrno(e, 'ENOTDIR')) return null; // removed while walking
    return fail('workspace_file_unreadable', [], e);
  }
}
