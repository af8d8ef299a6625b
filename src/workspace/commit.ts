// Manifests and file bytes from git objects (docs/contract.md#the-states-a-receipt-is-judged-against planning bundles come from the baseline
// tree, never the workspace; docs/contract.md#workspace-digest "For a commit (used by `gate --subject`) the same manifest is
// computed from git objects of that commit"). Revisions are resolved once to full object ids with
// replace objects disabled, so `refs/replace/*` cannot substitute another commit or tree.
import { fail, isGovernedError } from '../core/errors.js';
import { catFileBatch, CatFileSession } from './cat-file.js';
import { requireRepository, runGit, splitNul, type GitRepo } from './git.js';
import type { GitMode } from './hash-file.js';
import { manifestOf, type Manifest } from './manifest-entries.js';
import { decodePath, inScope, isNormalizedRelPath, isUnder, makeScope, type ScopeOptions } from './scope.js';

export interface Baseline {
  /** Full hex commit id (40 for SHA-1 repositories, 64 for SHA-256 ones). */
  readonly commit: string;
  readonly tree: string;
}

const OID_RE = GIT_OID_RE;
import { GIT_REV_MAX as REV_MAX } from '../core/limits.js';

interface TreeBlob {
  readonly path: string;
  readonly mode: GitMode;
  readonly oid: string;
}

/** Resolve `rev` to its commit and tree ids (never re-resolved later: callers store the ids). */
export async function resolveBaseline(root: string, rev: string): Promise<Baseline> {
  const repo = requireRepository(root);
  const commit = await resolveObject(repo, rev, 'commit');
  const tree = await resolveObject(repo, commit, 'tree');
  return { commit, tree };
}

/**
 * Manifest of the commit `commitish` names, from its tree and blobs; equals the manifest of a clean
 * checkout. ONE hardened `git cat-file --batch` process does it all (bench/gate: the gate's cold
 * start paid for three git processes): `<rev>^{commit}` resolves the commit with replace objects
 * off (as `rev-parse --verify` did), its trees are read level by level and walked in `ls-tree -r`
 * order with git's own mode canonicalisation, and the in-scope blobs are hashed as they stream.
 * Refusals are those of the `rev-parse` + `ls-tree -r` + `cat-file` pipeline, in the same order
 * (test/gate-commit-manifest.test.ts compares both over real repositories).
 */
export async function computeCommitManifest(root: string, commitish: string, options: ScopeOptions): Promise<Manifest> {
  makeScope(options);
  return beginCommitManifest(root, commitish).manifest(options);
}

/** A commit manifest being computed: the tree is walked from `beginCommitManifest` on. */
export interface CommitManifestJob {
  /** The manifest for a scope (once); rejects with the codes of `computeCommitManifest`. */
  manifest(options: ScopeOptions): Promise<Manifest>;
  /**
   * The index of the first of `prefixes` under which the commit tracks a path (a file or symlink
   * at or below it; the walk refuses gitlinks), or null: the gate refuses a subject that tracks an excluded path
   * (docs/gate.md#2-governed-gate). Rejects with the codes of `computeCommitManifest`'s walk.
   */
  trackedUnder(prefixes: readonly string[]): Promise<number | null>;
  /** Stop git if the manifest is not wanted after all; never throws. */
  cancel(): Promise<void>;
}

/**
 * Start resolving `commitish` and walking its tree before the scope is known, so git's start-up
 * and the tree walk overlap the caller's other work (the gate opens its store and reads its pinned
 * policy meanwhile). Nothing is reported until `manifest` is called: a caller that never asks (its
 * preflight failed) cancels, and sees neither a result nor an error.
 */
export function beginCommitManifest(root: string, commitish: string): CommitManifestJob {
  let session: CatFileSession | null = null;
  const walked = (async (): Promise<TreeBlob[]> => {
    const repo = requireRepository(root);
    checkRevision(commitish);
    session = new CatFileSession(repo);
    return walkCommitTree(session, commitish);
  })();
  // Observed by `manifest` or dropped by `cancel`; never an unhandled rejection.
  walked.catch(() => undefined);
  const stop = async (): Promise<void> => {
    await walked.catch(() => undefined);
    if (session !== null) await (session as CatFileSession).kill();
  };
  return {
    async manifest(options: ScopeOptions): Promise<Manifest> {
      try {
        const scope = makeScope(options);
        const blobs = (await walked).filter((b) => inScope(scope, b.path));
        const s = session as unknown as CatFileSession;
        const unique = [...new Set(blobs.map((b) => b.oid))];
        const answers = await s.request(unique, { digest: true });
        const digests = new Map<string, string>();
        answers.forEach((a, i) => {
          if (!a.found || a.oid !== unique[i] || a.sha256 === null) fail('workspace_git_failed', ['cat-file']);
          if (a.type !== 'blob') fail('workspace_git_failed', ['object-type']);
          digests.set(a.oid, a.sha256);
        });
        await s.close();
        return manifestOf(blobs.map((b) => ({ path: b.path, mode: b.mode, sha256: digests.get(b.oid) as string })));
      } catch (e) {
        await stop();
        throw e;
      }
    },
    async trackedUnder(prefixes: readonly string[]): Promise<number | null> {
      try {
        const paths = (await walked).map((b) => b.path);
        const i = prefixes.findIndex((x) => paths.some((p) => isUnder(p, x)));
        return i < 0 ? null : i;
      } catch (e) {
        await stop();
        throw e;
      }
    },
    cancel: stop,
  };
}

/**
 * Backstop for a caller without a limit of its own: no bundle can carry more raw bytes than this
 * (a bundle is one JSON string, V8 strings stop at 2^29 characters, and base64 turns 3 bytes into 4).
 */
import { COMMIT_READ_MAX_BYTES as READ_MAX_BYTES } from '../core/limits.js';

/**
 * What a reader of blob bytes may hold: `admit` is told each blob's size (from git's object header)
 * BEFORE any of its bytes are read, and throws to refuse it. A refusal stops git (SIGKILL) and
 * rejects with the thrown error, so an over-budget blob is never buffered: the caller's byte budget
 * (e.g. the bundle cap, `bundle_too_large`) holds before the memory is spent, not after.
 */
export interface BlobLimit {
  admit(index: number, size: number): void;
}

/**
 * Bytes of `paths` as stored in `commit` (a full id, typically a unit's baseline). Each path must be
 * a regular file of the commit's tree (not a symlink, tree or gitlink): docs/contract.md#validation-rules paths name files,
 * "not through a symlink". `limit` admits each blob by its size before its bytes are read (index =
 * position in `paths`); the bytes delivered are exactly the size admitted (cat-file protocol).
 * Whatever the limit, READ_MAX_BYTES in all is never exceeded.
 */
export async function readCommitFiles(root: string, commit: string, paths: readonly string[], limit?: BlobLimit): Promise<Map<string, Buffer>> {
  paths.forEach((p, i) => {
    if (!isNormalizedRelPath(p)) fail('workspace_scope_invalid', [`paths[${i}]`]);
  });
  if (!OID_RE.test(commit)) fail('workspace_revision_unresolved');
  const repo = requireRepository(root);
  const resolved = await resolveObject(repo, commit, 'commit');
  if (resolved !== commit) fail('workspace_revision_unresolved');
  const byPath = new Map((await listTree(repo, commit)).map((b) => [b.path, b]));
  const wanted = paths.map((p, i) => {
    const blob = byPath.get(p);
    if (blob === undefined || blob.mode === '120000') fail('workspace_commit_path_missing', [`paths[${i}]`]);
    return blob;
  });
  // One buffer per blob, allocated only once its size has been admitted; filled in place.
  const bufs: Buffer[] = [];
  const filled: number[] = [];
  let total = 0;
  await catFileBatch(
    repo,
    wanted.map((b) => b.oid),
    {
      begin: (i, type, size) => {
        if (type !== 'blob') fail('workspace_git_failed', ['object-type']);
        limit?.admit(i, size);
        total += size;
        if (total > READ_MAX_BYTES) fail('workspace_git_failed', ['blob-size']);
        bufs[i] = Buffer.alloc(size);
        filled[i] = 0;
      },
      data: (i, chunk) => {
        filled[i] = (filled[i] as number) + chunk.copy(bufs[i] as Buffer, filled[i] as number);
      },
      // catFileBatch delivers exactly `size` bytes between begin and end, or fails the batch.
      end: () => undefined,
    },
  );
  const out = new Map<string, Buffer>();
  wanted.forEach((b, i) => out.set(b.path, bufs[i] as Buffer));
  return out;
}

/**
 * `rev-parse --verify <rev>^{<type>}` with the revision after --end-of-options, so a value starting
 * with `-` is never an option. A revision git cannot resolve is `workspace_revision_unresolved`.
 */
export async function resolveObject(repo: GitRepo, rev: string, type: 'commit' | 'tree'): Promise<string> {
  checkRevision(rev);
  let out: Buffer;
  try {
    out = await runGit(repo, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{${type}}`]);
  } catch (e) {
    if (isGovernedError(e) && e.code === 'workspace_git_failed') fail('workspace_revision_unresolved');
    throw e;
  }
  const id = out.toString('latin1').replace(/\n$/, '');
  if (!OID_RE.test(id)) fail('workspace_git_failed', ['rev-parse']);
  return id;
}

/** A revision is never an option, a second line, or unbounded. */
function checkRevision(rev: string): void {
  if (rev.length === 0 || rev.length > REV_MAX || /[\0\n\r]/.test(rev) || rev.startsWith('-')) {
    fail('workspace_revision_unresolved');
  }
}

/** Every blob of the commit's tree with its normalized mode; gitlinks are refused. */
async function listTree(repo: GitRepo, commit: string): Promise<TreeBlob[]> {
  const out = await runGit(repo, ['ls-tree', '-r', '-z', '--full-tree', commit]);
  const blobs: TreeBlob[] = [];
  for (const rec of splitNul(out)) {
    // "<mode> <type> <oid>\t<path>"
    const tab = rec.indexOf(0x09);
    if (tab < 0) fail('workspace_git_failed', ['ls-tree']);
    const [mode, type, oid] = rec.subarray(0, tab).toString('latin1').split(' ');
    const path = decodePath(rec.subarray(tab + 1));
    if (mode === '160000' || type === 'commit') fail('workspace_submodule_refused');
    if (type !== 'blob' || oid === undefined || !OID_RE.test(oid)) fail('workspace_git_failed', ['ls-tree']);
    if (mode !== '100644' && mode !== '100755' && mode !== '120000') fail('workspace_git_failed', ['ls-tree-mode']);
    blobs.push({ path, mode, oid });
  }
  return blobs;
}

/** The cap of `runGit`'s output, applied to the `ls-tree -r` records the walk stands for. */
import { GIT_OUTPUT_MAX_BYTES as LIST_MAX_BYTES } from '../core/limits.js';
import { GIT_OID_RE } from '../core/ids.js';
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;
const S_IFDIR = 0o040000;

interface TreeEntry {
  /** git's canon_mode: '100644' | '100755' | '120000' | '40000' | '160000'. */
  readonly mode: string;
  readonly name: Buffer;
  readonly oid: string;
}

/**
 * Parse a raw tree object ("<octal mode> <name>\0<raw id>" repeated) as git's tree walker does
 * (tree-walk.c decode_tree_entry): a malformed mode, an empty name or a truncated entry is an error
 * (ls-tree would fail), and the mode is canonicalised (canon_mode): any regular file is 100644 or
 * 100755 by its owner-execute bit, a symlink 120000, a directory 40000, anything else a gitlink.
 */
function parseTree(data: Buffer, rawLen: number): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let pos = 0;
  while (pos < data.length) {
    const sp = data.indexOf(0x20, pos);
    if (sp <= pos) fail('workspace_git_failed', ['ls-tree']);
    let mode = 0;
    for (let i = pos; i < sp; i++) {
      const c = data[i] as number;
      if (c < 0x30 || c > 0x37) fail('workspace_git_failed', ['ls-tree']);
      mode = ((mode << 3) + (c - 0x30)) >>> 0;
    }
    const nul = data.indexOf(0, sp + 1);
    if (nul < 0 || nul === sp + 1 || nul + 1 + rawLen > data.length) fail('workspace_git_failed', ['ls-tree']);
    const kind = mode & S_IFMT;
    const canon = kind === S_IFREG ? ((mode & 0o100) !== 0 ? '100755' : '100644') : kind === S_IFLNK ? '120000' : kind === S_IFDIR ? '40000' : '160000';
    entries.push({ mode: canon, name: data.subarray(sp + 1, nul), oid: data.toString('hex', nul + 1, nul + 1 + rawLen) });
    pos = nul + 1 + rawLen;
  }
  return entries;
}

/**
 * Resolve `rev` to a commit and list every blob of its tree, in `ls-tree -r` order, with the
 * checks `listTree` applies to each record in that order: a path that is not UTF-8, then a gitlink
 * (submodule), are refused wherever they are (in scope or not).
 */
async function walkCommitTree(session: CatFileSession, rev: string): Promise<TreeBlob[]> {
  const [c] = await session.request([`${rev}^{commit}`]);
  if (c === undefined || !c.found) fail('workspace_revision_unresolved');
  if (c.type !== 'commit') fail('workspace_git_failed', ['rev-parse']);
  // A commit object starts with "tree <id>\n" (the id as long as the commit's: SHA-1 or SHA-256).
  const m = /^tree ([0-9a-f]+)\n/.exec(c.data.toString('latin1', 0, Math.min(c.data.length, 80)));
  if (m === null || (m[1] as string).length !== c.oid.length) fail('workspace_git_failed', ['commit']);
  const rawLen = c.oid.length / 2;
  const trees = new Map<string, TreeEntry[]>();
  for (let level = [m[1] as string]; level.length > 0; ) {
    const wanted = [...new Set(level)].filter((t) => !trees.has(t));
    const answers = await session.request(wanted);
    level = [];
    answers.forEach((a, i) => {
      if (!a.found || a.oid !== wanted[i] || a.type !== 'tree') fail('workspace_git_failed', ['ls-tree']);
      const entries = parseTree(a.data, rawLen);
      trees.set(a.oid, entries);
      for (const e of entries) if (e.mode === '40000') level.push(e.oid);
    });
  }
  const blobs: TreeBlob[] = [];
  let listed = 0;
  const SLASH = Buffer.from('/');
  const walk = (tree: string, prefix: Buffer | null): void => {
    for (const e of trees.get(tree) as TreeEntry[]) {
      const raw = prefix === null ? e.name : Buffer.concat([prefix, SLASH, e.name]);
      if (e.mode === '40000') {
        walk(e.oid, raw);
        continue;
      }
      // "<mode> <type> <oid>\t<path>\0", as ls-tree would have printed it.
      listed += e.mode.length + 7 + e.oid.length + 2 + raw.length;
      if (listed > LIST_MAX_BYTES) fail('workspace_git_failed', []);
      const path = decodePath(raw);
      if (e.mode === '160000') fail('workspace_submodule_refused');
      blobs.push({ path, mode: e.mode as GitMode, oid: e.oid });
    }
  };
  walk(m[1] as string, null);
  return blobs;
}
