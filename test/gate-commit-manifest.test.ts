// The commit manifest from ONE `git cat-file --batch` process (src/workspace/commit.ts, bench/gate)
// is the manifest of the three-process pipeline it replaced — `rev-parse --verify <rev>^{commit}`,
// `ls-tree -r -z --full-tree`, `cat-file --batch` over the in-scope blobs — on real repositories:
// modes (exec bit, symlinks, non-canonical modes written by old tools), symlink targets, nested and
// odd names, scopes, SHA-256 repositories, annotated tags, replace refs (ignored by both), and the
// same refusal codes in the same order (non-UTF-8 path, gitlink, unresolved revision, missing object).
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isGovernedError } from '../src/core/errors.js';
import { catFileBatch } from '../src/workspace/cat-file.js';
import { beginCommitManifest, computeCommitManifest } from '../src/workspace/commit.js';
import { requireRepository, runGit, splitNul } from '../src/workspace/git.js';
import type { GitMode } from '../src/workspace/hash-file.js';
import { manifestOf, type Manifest } from '../src/workspace/manifest-entries.js';
import { decodePath, inScope, makeScope, type ScopeOptions } from '../src/workspace/scope.js';
import { makeTempRepo, type TempRepo } from './helpers/git-repo.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});
function repo(args: string[] = []): TempRepo {
  const r = makeTempRepo({ init: args.length === 0 });
  if (args.length > 0) r.git('init', '-q', '-b', 'main', ...args);
  repos.push(r);
  return r;
}

const ALL: ScopeOptions = { productRoots: ['.'], exclude: ['.governed'] };

/** The replaced implementation, verbatim in behaviour: three hardened git processes. */
async function reference(root: string, rev: string, options: ScopeOptions): Promise<Manifest> {
  const scope = makeScope(options);
  const repo = requireRepository(root);
  if (rev.length === 0 || rev.length > 256 || /[\0\n\r]/.test(rev) || rev.startsWith('-')) throw Object.assign(new Error(), { code: 'workspace_revision_unresolved' });
  let commit: string;
  try {
    commit = (await runGit(repo, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`])).toString('latin1').replace(/\n$/, '');
  } catch {
    throw Object.assign(new Error(), { code: 'workspace_revision_unresolved' });
  }
  const blobs: { path: string; mode: GitMode; oid: string }[] = [];
  for (const rec of splitNul(await runGit(repo, ['ls-tree', '-r', '-z', '--full-tree', commit]))) {
    const tab = rec.indexOf(0x09);
    const [mode, type, oid] = rec.subarray(0, tab).toString('latin1').split(' ');
    const path = decodePath(rec.subarray(tab + 1));
    if (mode === '160000' || type === 'commit') throw Object.assign(new Error(), { code: 'workspace_submodule_refused' });
    blobs.push({ path, mode: mode as GitMode, oid: oid as string });
  }
  const inside = blobs.filter((b) => inScope(scope, b.path));
  const hashes: string[] = [];
  const hashers = new Map<number, ReturnType<typeof createHash>>();
  await catFileBatch(
    repo,
    inside.map((b) => b.oid),
    {
      begin: (i) => void hashers.set(i, createHash('sha256')),
      data: (i, c) => void hashers.get(i)?.update(c),
      end: (i) => void (hashes[i] = hashers.get(i)?.digest('hex') as string),
    },
  );
  return manifestOf(inside.map((b, i) => ({ path: b.path, mode: b.mode, sha256: hashes[i] as string })));
}

/** Both implementations on the same input: equal manifests, or the same refusal code. */
async function same(root: string, rev: string, options: ScopeOptions = ALL): Promise<Manifest | string> {
  const outcome = async (p: Promise<Manifest>): Promise<Manifest | string> => {
    try {
      return await p;
    } catch (e) {
      return isGovernedError(e) ? e.code : ((e as { code?: string }).code ?? 'thrown');
    }
  };
  const [a, b] = await Promise.all([outcome(computeCommitManifest(root, rev, options)), outcome(reference(root, rev, options))]);
  expect(a).toEqual(b);
  return a;
}

function rawTree(r: TempRepo, entries: { mode: string; name: Buffer | string; oid: string }[]): string {
  const body = Buffer.concat(
    entries.flatMap((e) => [Buffer.from(`${e.mode} `), Buffer.isBuffer(e.name) ? e.name : Buffer.from(e.name), Buffer.from([0]), Buffer.from(e.oid, 'hex')]),
  );
  return execFileSync('/usr/bin/git', ['hash-object', '-t', 'tree', '--literally', '-w', '--stdin'], {
    cwd: r.root,
    input: body,
    env: { PATH: '/usr/bin:/bin', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: '/nonexistent' },
  })
    .toString()
    .trim();
}

function commitTree(r: TempRepo, tree: string): string {
  return r.git('commit-tree', tree, '-m', 'raw');
}

describe('one cat-file process gives the manifest of the three-process pipeline', () => {
  it('files, directories, exec bits, symlinks, empty and duplicate files, odd names, scopes', async () => {
    const r = repo();
    r.write('README.md', '# hi\n');
    r.write('src/a.ts', 'export const a = 1;\n');
    r.write('src/deep/er/b.ts', 'b');
    r.write('src/deep/er/dup.ts', 'b');
    r.write('bin/run', '#!/bin/sh\n', 0o755);
    r.write('empty', '');
    r.write('names/with space', 's');
    r.write('names/new\nline', 'n');
    r.write('names/ünï-çødé', 'u');
    r.write('names/emoji-😀', 'e');
    r.write('names/tab\there', 't');
    r.write('names/a-b', '1');
    r.write('names/a.b', '2');
    r.write('names/a', '3');
    r.write('names/a0', '4');
    r.symlink('link', 'src/a.ts');
    r.symlink('src/dangling', '../nowhere');
    r.write('.governed/x', 'excluded');
    r.commitAll();
    const m = (await same(r.root, 'HEAD')) as Manifest;
    expect(m.entries.length).toBe(17);
    expect(m.entries.find((e) => e.path === 'bin/run')?.mode).toBe('100755');
    expect(m.entries.find((e) => e.path === 'link')).toEqual({ path: 'link', mode: '120000', sha256: createHash('sha256').update('src/a.ts').digest('hex') });
    await same(r.root, 'HEAD', { productRoots: ['src'], exclude: ['src/deep'] });
    await same(r.root, 'HEAD', { productRoots: ['names', 'bin'], exclude: [] });
    await same(r.root, 'HEAD', { productRoots: ['nothing-here'], exclude: [] });
    await same(r.root, r.git('rev-parse', 'HEAD'));
  });

  it('an empty commit, a commit by an annotated tag, an earlier commit by name', async () => {
    const r = repo();
    const empty = r.commitAll('empty');
    r.write('f', 'one');
    r.commitAll();
    r.write('f', 'two');
    r.commitAll();
    r.git('tag', '-a', '-m', 'release', 'v1');
    expect(await same(r.root, empty)).toMatchObject({ entries: [] });
    await same(r.root, r.git('rev-parse', 'v1'));
    await same(r.root, 'v1');
    await same(r.root, 'HEAD~1');
  });

  it('a SHA-256 repository', async () => {
    const r = repo(['--object-format=sha256']);
    r.write('a/b/c', 'c');
    r.write('x', 'x', 0o755);
    r.symlink('l', 'x');
    const id = r.commitAll();
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    expect((await same(r.root, id)) as Manifest).toMatchObject({ entries: [{ path: 'a/b/c' }, { path: 'l' }, { path: 'x' }] });
  });

  it('refs/replace cannot substitute the commit or a tree for either', async () => {
    const r = repo();
    r.write('f', 'reviewed');
    const honest = r.commitAll();
    r.write('f', 'evil');
    const evil = r.commitAll();
    r.git('replace', honest, evil);
    const m = (await same(r.root, honest)) as Manifest;
    expect(m.entries[0]?.sha256).toBe(createHash('sha256').update('reviewed').digest('hex'));
  });

  it('non-canonical modes written by old tools are canonicalised as git does', async () => {
    const r = repo();
    const blob = r.git('hash-object', '-w', '--stdin');
    const a = execFileSync('/usr/bin/git', ['hash-object', '-w', '--stdin'], { cwd: r.root, input: 'a' }).toString().trim();
    const sub = rawTree(r, [{ mode: '100644', name: 'in', oid: a }]);
    const tree = rawTree(r, [
      { mode: '100664', name: 'group-writable', oid: a },
      { mode: '100775', name: 'group-exec', oid: a },
      { mode: '100700', name: 'owner-exec', oid: blob },
      { mode: '40755', name: 'odd-dir', oid: sub },
      { mode: '040000', name: 'zero-dir', oid: sub },
    ]);
    const m = (await same(r.root, commitTree(r, tree))) as Manifest;
    expect(m.entries.map((e) => `${e.mode} ${e.path}`)).toEqual(['100755 group-exec', '100644 group-writable', '100644 odd-dir/in', '100755 owner-exec', '100644 zero-dir/in']);
  });
});

describe('the same refusals, in the same order', () => {
  const badName = Buffer.concat([Buffer.from('bad-'), Buffer.from([0xff, 0xfe]), Buffer.from('.txt')]);

  function withGitlinkAndBadName(gitlinkPath: string, badDir: string): { r: TempRepo; commit: string } {
    const r = repo();
    const inner = makeTempRepo();
    repos.push(inner);
    inner.write('x', 'x');
    const innerCommit = inner.commitAll();
    const a = execFileSync('/usr/bin/git', ['hash-object', '-w', '--stdin'], { cwd: r.root, input: 'a' }).toString().trim();
    const bad = rawTree(r, [{ mode: '100644', name: badName, oid: a }]);
    const link = rawTree(r, [{ mode: '160000', name: 'lib', oid: innerCommit }]);
    const entries = [
      { mode: '40000', name: badDir, oid: bad },
      { mode: '40000', name: gitlinkPath, oid: link },
      { mode: '100644', name: 'ok', oid: a },
    ].sort((x, y) => (x.name < y.name ? -1 : 1));
    return { r, commit: commitTree(r, rawTree(r, entries)) };
  }

  it('a non-UTF-8 path first, a gitlink first — in or out of scope', async () => {
    const one = withGitlinkAndBadName('z-vendor', 'a-dir');
    expect(await same(one.r.root, one.commit)).toBe('workspace_path_not_utf8');
    expect(await same(one.r.root, one.commit, { productRoots: ['ok'], exclude: [] })).toBe('workspace_path_not_utf8');
    const two = withGitlinkAndBadName('a-vendor', 'z-dir');
    expect(await same(two.r.root, two.commit)).toBe('workspace_submodule_refused');
    expect(await same(two.r.root, two.commit, { productRoots: ['ok'], exclude: [] })).toBe('workspace_submodule_refused');
  });

  it('a gitlink added by the index, as a user would', async () => {
    const r = repo();
    const inner = makeTempRepo();
    repos.push(inner);
    inner.write('x', 'x');
    r.write('f', 'f');
    r.git('add', 'f');
    r.git('update-index', '--add', '--cacheinfo', `160000,${inner.commitAll()},vendor/lib`);
    r.git('commit', '-q', '-m', 'with gitlink');
    expect(await same(r.root, 'HEAD')).toBe('workspace_submodule_refused');
  });

  it('revisions that do not name a commit', async () => {
    const r = repo();
    r.write('f', 'f');
    const c = r.commitAll();
    const blob = r.git('rev-parse', 'HEAD:f');
    const tree = r.git('rev-parse', 'HEAD^{tree}');
    for (const rev of ['0'.repeat(40), 'f'.repeat(64), blob, tree, 'HEAD~3', 'no-such-branch', 'zz zz', '-h', '', `${c}\n${c}`, 'x'.repeat(300)]) {
      const out = await same(r.root, rev);
      expect([rev, out]).toEqual([rev, 'workspace_revision_unresolved']);
    }
    // An unambiguous abbreviation resolves in both (the gate itself only accepts full ids).
    expect(typeof (await same(r.root, c.slice(0, 7)))).toBe('object');
  });

  it('a missing blob object fails closed in both', async () => {
    const r = repo();
    r.write('f', 'unique content 1234');
    const c = r.commitAll();
    const blob = r.git('rev-parse', 'HEAD:f');
    rmSync(join(r.root, '.git', 'objects', blob.slice(0, 2), blob.slice(2)));
    expect(await same(r.root, c)).toBe('workspace_git_failed');
    expect(readdirSync(join(r.root, '.git', 'objects', blob.slice(0, 2)))).toEqual([]);
  });
});

describe('seeded random trees', () => {
  it('twelve repositories of random shape and content', async () => {
    let seed = 0x5eed;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const parts = ['a', 'b', 'src', 'lib', 'x y', 'é', 'Z', 'a.b', 'a-b', '0'];
    for (let k = 0; k < 12; k++) {
      const r = repo();
      const files = 1 + rnd(25);
      for (let i = 0; i < files; i++) {
        const depth = rnd(4);
        const path = [...Array.from({ length: depth }, () => parts[rnd(parts.length)] as string), `f${i}`].join('/');
        if (rnd(7) === 0) r.symlink(path, `t${rnd(3)}`);
        else r.write(path, `c${rnd(5)}`.repeat(rnd(3)), rnd(4) === 0 ? 0o755 : 0o644);
      }
      r.commitAll();
      await same(r.root, 'HEAD');
      await same(r.root, 'HEAD', { productRoots: [parts[rnd(4)] as string], exclude: [] });
    }
  });
});

describe('a manifest started before its scope is known (the gate)', () => {
  it('gives the same manifest, and the same codes, once asked', async () => {
    const r = repo();
    r.write('src/a', 'a');
    r.write('b', 'b');
    const c = r.commitAll();
    const job = beginCommitManifest(r.root, c);
    expect(await job.manifest({ productRoots: ['src'], exclude: [] })).toEqual(await reference(r.root, c, { productRoots: ['src'], exclude: [] }));
    await job.cancel();
    const bad = beginCommitManifest(r.root, '0'.repeat(40));
    await expect(bad.manifest(ALL)).rejects.toMatchObject({ code: 'workspace_revision_unresolved' });
    const noRepo = beginCommitManifest(join(r.root, 'nowhere'), c);
    await expect(noRepo.manifest(ALL)).rejects.toMatchObject({ code: 'workspace_root_invalid' });
  });

  it('is cancelled without a result, an error or a live git process', async () => {
    const r = repo();
    r.write('f', 'f');
    const c = r.commitAll();
    const processes = (): number => process.getActiveResourcesInfo().filter((x) => x === 'ProcessWrap').length;
    // libuv releases a child's handle a tick after its 'close' event: wait for the count to settle
    // (a generous bound, not a performance threshold) before and after.
    const settle = async (want: number): Promise<number> => {
      for (let i = 0; i < 200 && processes() !== want; i++) await new Promise((res) => setTimeout(res, 10));
      return processes();
    };
    const before = await settle(0);
    const job = beginCommitManifest(r.root, c);
    expect(processes()).toBe(before + 1); // git was started, synchronously
    await job.cancel();
    expect(await settle(before)).toBe(before);
    // Cancelling a job whose repository does not exist neither throws nor leaves anything behind.
    await beginCommitManifest(join(r.root, 'nowhere'), c).cancel();
  });
});
