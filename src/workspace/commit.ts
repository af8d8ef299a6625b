// Manifests and file bytes from git objects (SPEC §6.2 planning bundles come from the baseline
// tree, never the workspace; §6.4 "For a commit (used by `gate --subject`) the same manifest is
// computed from git objects of that commit"). Revisions are resolved once to full object ids with
// replace objects disabled, so `refs/replace/*` cannot substitute another commit or tree.
import { createHash } from 'node:crypto';
import { fail, isGovernedError } from '../core/errors.js';
import { catFileBatch } from './cat-file.js';
import { requireRepository, runGit, splitNul, type GitRepo } from './git.js';
import type { GitMode } from './hash-file.js';
import { manifestOf, type Manifest, type ManifestEntry } from './manifest-entries.js';
import { decodePath, inScope, isNormalizedRelPath, makeScope, type ScopeOptions } from './scope.js';

export interface Baseline {
  /** Full hex commit id (40 for SHA-1 repositories, 64 for SHA-256 ones). */
  readonly commit: string;
  readonly tree: string;
}

const OID_RE = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const REV_MAX = 256;

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

/** Manifest of the commit `commitish` names, from its tree and blobs; equals the manifest of a clean checkout. */
export async function computeCommitManifest(root: string, commitish: string, options: ScopeOptions): Promise<Manifest> {
  const scope = makeScope(options);
  const repo = requireRepository(root);
  const commit = await resolveObject(repo, commitish, 'commit');
  const blobs = (await listTree(repo, commit)).filter((b) => inScope(scope, b.path));
  const hashes = await hashBlobs(repo, blobs.map((b) => b.oid));
  const entries: ManifestEntry[] = blobs.map((b, i) => ({ path: b.path, mode: b.mode, sha256: hashes[i] as string }));
  return manifestOf(entries);
}

/**
 * Bytes of `paths` as stored in `commit` (a full id, typically a unit's baseline). Each path must be
 * a regular file of the commit's tree (not a symlink, tree or gitlink): SPEC §6.1 paths name files,
 * "not through a symlink".
 */
export async function readCommitFiles(root: string, commit: string, paths: readonly string[]): Promise<Map<string, Buffer>> {
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
  const chunks: Buffer[][] = wanted.map(() => []);
  await catFileBatch(
    repo,
    wanted.map((b) => b.oid),
    {
      begin: (_i, type) => {
        if (type !== 'blob') fail('workspace_git_failed', ['object-type']);
      },
      data: (i, chunk) => {
        (chunks[i] as Buffer[]).push(Buffer.from(chunk));
      },
      end: () => undefined,
    },
  );
  const out = new Map<string, Buffer>();
  wanted.forEach((b, i) => out.set(b.path, Buffer.concat(chunks[i] as Buffer[])));
  return out;
}

/**
 * `rev-parse --verify <rev>^{<type>}` with the revision after --end-of-options, so a value starting
 * with `-` is never an option. A revision git cannot resolve is `workspace_revision_unresolved`.
 */
export async function resolveObject(repo: GitRepo, rev: string, type: 'commit' | 'tree'): Promise<string> {
  if (rev.length === 0 || rev.length > REV_MAX || /[\0\n\r]/.test(rev) || rev.startsWith('-')) {
    fail('workspace_revision_unresolved');
  }
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

async function hashBlobs(repo: GitRepo, oids: readonly string[]): Promise<string[]> {
  const hashers = new Map<number, ReturnType<typeof createHash>>();
  const digests: string[] = new Array<string>(oids.length);
  await catFileBatch(repo, oids, {
    begin: (i, type) => {
      if (type !== 'blob') fail('workspace_git_failed', ['object-type']);
      hashers.set(i, createHash('sha256'));
    },
    data: (i, chunk) => {
      hashers.get(i)?.update(chunk);
    },
    end: (i) => {
      const h = hashers.get(i);
      if (h === undefined) fail('workspace_git_failed', ['cat-file']);
      digests[i] = h.digest('hex');
      hashers.delete(i);
    },
  });
  return digests;
}
