// Hardened git (docs/contract.md#workspace-digest): the repository under review is written by the party being reviewed, so
// nothing it configures may run. git is started with an empty environment (no inherited GIT_*,
// no user config), no system/global config, replace objects off, and every repository-configurable
// program disabled on the command line (command-line config wins over .git/config). Only plumbing
// that never runs drivers, filters or textconv is used (ls-files, ls-tree, rev-parse, cat-file
// --batch without --filters/--textconv). Output is NUL-separated wherever git offers it.
import { spawn } from 'node:child_process';
import { lstatSync, readFileSync, type Stats } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fail } from '../core/errors.js';

export interface GitRepo {
  /** The repository's git directory (`.git`, or the target of a `.git` file). */
  readonly gitDir: string;
  /** The top level of the working tree; every manifest path is relative to it. */
  readonly workTree: string;
}

/** A HOME that does not exist, so `~/.gitconfig` and `~/.config/git/*` can never be read. */
const NO_HOME = '/nonexistent/governed-git-home';

/**
 * `-c` options that neutralise every repository-configured program or lookup path git could
 * otherwise honour for the commands used here. Why each one:
 * - core.fsmonitor / core.hooksPath: docs/contract.md#workspace-digest names them; an fsmonitor is an arbitrary command.
 * - core.untrackedCache=false: a cached untracked list written by someone else must not decide the set.
 * - core.excludesFile / core.attributesFile: live outside the reviewed content (docs/contract.md#workspace-digest).
 * - core.ignoreCase=false: a .git/config setting must not widen .gitignore matches.
 * - protocol.allow=never: a partial clone would otherwise lazily fetch missing objects through a
 *   remote helper or ssh command (git 2.39 has no GIT_NO_LAZY_FETCH).
 * - diff.external / core.pager / credential.helper: never invoked by the plumbing used, blanked so a
 *   future command added here cannot pick them up silently.
 */
export const GIT_HARDENING_ARGS: readonly string[] = [
  '--no-pager',
  '--no-replace-objects',
  '-c', 'core.fsmonitor=',
  '-c', 'core.hooksPath=/dev/null',
  '-c', 'core.untrackedCache=false',
  '-c', 'core.excludesFile=/dev/null',
  '-c', 'core.attributesFile=/dev/null',
  '-c', 'core.ignoreCase=false',
  '-c', 'core.pager=cat',
  '-c', 'protocol.allow=never',
  '-c', 'diff.external=',
  '-c', 'credential.helper=',
];

/** The complete environment of every git child: nothing inherited from the caller. */
export function gitEnv(repo: GitRepo): Record<string, string> {
  return {
    PATH: '/usr/bin:/bin',
    HOME: NO_HOME,
    XDG_CONFIG_HOME: NO_HOME,
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_DIR: repo.gitDir,
    GIT_WORK_TREE: repo.workTree,
  };
}

export interface RunGitOptions {
  /** Bytes written to git's stdin (then closed). */
  readonly input?: Buffer;
  /** Output cap; a larger output is a failure, never a silent truncation. */
  readonly maxBytes?: number;
  readonly timeoutMs?: number;
}

import { GIT_OUTPUT_MAX_BYTES as DEFAULT_MAX_BYTES } from '../core/limits.js';
const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * Run one hardened git command and return its stdout. Any non-zero exit, signal, timeout or
 * oversize output fails closed with `workspace_git_failed`. stderr is discarded: it can echo paths
 * or revision text, which must never reach an error message (docs/threat-model.md#rules-that-hold-everywhere).
 */
export function runGit(repo: GitRepo, args: readonly string[], options: RunGitOptions = {}): Promise<Buffer> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  return new Promise<Buffer>((resolvePromise, reject) => {
    const child = spawn('git', [...GIT_HARDENING_ARGS, ...args], {
      cwd: repo.workTree,
      env: gitEnv(repo),
      stdio: ['pipe', 'pipe', 'ignore'],
      timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      windowsHide: true,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let oversize = false;
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        oversize = true;
        child.kill('SIGKILL');
        return;
      }
      chunks.push(chunk);
    });
    child.stdin.on('error', () => {
      // EPIPE when git exits early; the exit status decides the outcome.
    });
    child.on('error', (e) => reject(failure(e)));
    child.on('close', (code, signal) => {
      if (oversize || code !== 0 || signal !== null) {
        reject(failure(undefined));
        return;
      }
      resolvePromise(Buffer.concat(chunks, size));
    });
    child.stdin.end(options.input ?? Buffer.alloc(0));
  });
}

function failure(cause: unknown): Error {
  try {
    fail('workspace_git_failed', [], cause);
  } catch (e) {
    return e as Error;
  }
}

/** Split NUL-terminated git output into raw byte records (paths stay bytes until validated). */
export function splitNul(out: Buffer): Buffer[] {
  const records: Buffer[] = [];
  let start = 0;
  for (;;) {
    const end = out.indexOf(0, start);
    if (end < 0) break;
    records.push(out.subarray(start, end));
    start = end + 1;
  }
  if (start !== out.length) fail('workspace_git_failed', ['unterminated-record']);
  return records;
}

/**
 * Find the repository whose top level is `root`, without asking git (discovery would read the
 * repository's config before our overrides apply). Returns null when no ancestor has a `.git`
 * entry (docs/contract.md#workspace-digest "Outside a git repository"). A `.git` file (linked worktree) is followed.
 * `root` being a subdirectory of a repository is refused: manifest paths must be relative to the
 * top level so that the same tree gives the same manifest wherever it is checked out.
 */
export function findRepository(root: string): GitRepo | null {
  if (!isAbsolute(root)) fail('workspace_root_invalid');
  const top = resolve(root);
  const st = lstatQuiet(top);
  if (st === null || !st.isDirectory()) fail('workspace_root_invalid');
  const dotGit = join(top, '.git');
  const own = lstatQuiet(dotGit);
  if (own !== null) {
    if (own.isDirectory()) return { gitDir: dotGit, workTree: top };
    if (own.isFile()) return { gitDir: gitDirFromFile(top, dotGit), workTree: top };
    fail('workspace_root_invalid');
  }
  for (let dir = dirname(top); ; dir = dirname(dir)) {
    if (lstatQuiet(join(dir, '.git')) !== null) fail('workspace_root_not_toplevel');
    if (dirname(dir) === dir) return null;
  }
}

/**
 * The repository whose working tree holds `path` (an absolute path, which need not exist), found by
 * the nearest ancestor with a `.git` entry, or null. For advice only (init's warning): unlike
 * `findRepository`, any depth below the top level is accepted.
 */
export function findEnclosingRepository(path: string): GitRepo | null {
  if (!isAbsolute(path)) fail('workspace_root_invalid');
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    if (lstatQuiet(join(dir, '.git')) !== null) return findRepository(dir);
    if (dirname(dir) === dir) return null;
  }
}

/** A repository for a directory that must be one (baselines, commits). */
export function requireRepository(root: string): GitRepo {
  const repo = findRepository(root);
  if (repo === null) fail('workspace_revision_unresolved', ['not-a-repository']);
  return repo;
}

function gitDirFromFile(top: string, dotGit: string): string {
  const text = readFileSync(dotGit, 'utf8');
  const m = /^gitdir: (.+)\n?$/.exec(text);
  if (m === null || m[1] === undefined) fail('workspace_root_invalid', ['.git']);
  return resolve(top, m[1]);
}

function lstatQuiet(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}
