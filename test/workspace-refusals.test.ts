// Every workspace refusal (docs/contract.md#workspace-digest, docs/commands.md#exit-codes) asserts its exact error code and exit code.
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GovernedError } from '../src/core/errors.js';
import {
  computeCommitManifest,
  computeWorkspaceManifest,
  readCommitFiles,
  resolveBaseline,
  workspaceStatus,
} from '../src/workspace/index.js';
import { hashEntry, lstatEntry } from '../src/workspace/hash-file.js';
import { makeTempRepo, type TempRepo } from './helpers/git-repo.js';

const ALL = { productRoots: ['.'], exclude: ['.governed'] };
const repos: TempRepo[] = [];
const repo = (init = true): TempRepo => {
  const r = makeTempRepo({ init });
  repos.push(r);
  return r;
};
afterEach(() => {
  while (repos.length > 0) repos.pop()?.cleanup();
});

async function expectCode(p: Promise<unknown> | (() => unknown), code: string, exit: number): Promise<void> {
  let caught: unknown;
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(GovernedError);
  expect((caught as GovernedError).code).toBe(code);
  expect((caught as GovernedError).exit).toBe(exit);
}

describe('special files', () => {
  it('refuses an untracked FIFO quickly, without opening it', async () => {
    const r = repo();
    r.write('ok.txt', 'ok');
    execFileSync('/usr/bin/mkfifo', [join(r.root, 'pipe')]);
    const t0 = Date.now();
    await expectCode(computeWorkspaceManifest(r.root, ALL), 'workspace_special_file_refused', 2);
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('refuses a tracked file replaced by a FIFO (git still lists it)', async () => {
    const r = repo();
    r.write('data.bin', 'x');
    r.commitAll();
    rmSync(join(r.root, 'data.bin'));
    execFileSync('/usr/bin/mkfifo', [join(r.root, 'data.bin')]);
    await expectCode(computeWorkspaceManifest(r.root, ALL), 'workspace_special_file_refused', 2);
    await expectCode(workspaceStatus(r.root, ALL, join(r.root, '.governed-cache.json')), 'workspace_special_file_refused', 2);
  });

  it('refuses a FIFO outside a repository', async () => {
    const r = repo(false);
    execFileSync('/usr/bin/mkfifo', [join(r.root, 'pipe')]);
    await expectCode(computeWorkspaceManifest(r.root, ALL), 'workspace_special_file_refused', 2);
  });

  it('refuses a unix socket', async () => {
    const r = repo();
    const server = createServer();
    await new Promise<void>((res) => server.listen(join(r.root, 's.sock'), res));
    try {
      await expectCode(computeWorkspaceManifest(r.root, ALL), 'workspace_special_file_refused', 2);
    } finally {
      await new Promise<void>((res) => server.close(() => res()));
    }
  });

  it('accepts a FIFO inside an ignored directory or outside the product roots', async () => {
    const r = repo();
    r.write('.gitignore', 'tmp/\n');
    mkdirSync(join(r.root, 'tmp'));
    execFileSync('/usr/bin/mkfifo', [join(r.root, 'tmp/pipe')]);
    mkdirSync(join(r.root, 'other'));
    execFileSync('/usr/bin/mkfifo', [join(r.root, 'other/pipe')]);
    r.write('src/a.ts', 'a');
    const m = await computeWorkspaceManifest(r.root, { productRoots: ['src', '.gitignore'], exclude: [] });
    expect(m.entries.map((e) => e.path)).toEqual(['.gitignore', 'src/a.ts']);
    await expectCode(computeWorkspaceManifest(r.root, ALL), 'workspace_special_file_refused', 2);
  });
});

describe('submodules and nested repositories', () => {
  it('refuses a gitlink in the index', async () => {
    const r = repo();
    const inner = makeTempRepo();
    repos.push(inner);
    inner.write('x', 'x');
    const innerCommit = inner.commitAll();
    r.git('update-index', '--add', '--cacheinfo', `160000,${innerCommit},vendor/lib`);
    await expectCode(computeWorkspaceManifest(r.root, ALL), 'workspace_submodule_refused', 2);
  });

  it('refuses a gitlink in a commit', async () => {
    const r = repo();
    const inner = makeTempRepo();
    repos.push(inner);
    inner.write('x', 'x');
    r.git('update-index', '--add', '--cacheinfo', `160000,${inner.commitAll()},vendor/lib`);
    r.git('commit', '-q', '-m', 'with gitlink');
    await expectCode(computeCommitManifest(r.root, 'HEAD', ALL), 'workspace_submodule_refused', 2);
  });

  it('refuses an untracked nested repository', async () => {
    const r = repo();
    r.write('nested/file', 'n');
    execFileSync('/usr/bin/git', ['init', '-q', join(r.root, 'nested')], { env: { PATH: '/usr/bin:/bin' } });
    await expectCode(computeWorkspaceManifest(r.root, ALL), 'workspace_submodule_refused', 2);
  });

  it('refuses a nested repository created inside a tracked directory', async () => {
    const r = repo();
    r.write('lib/a.txt', 'a');
    r.commitAll();
    execFileSync('/usr/bin/git', ['init', '-q', join(r.root, 'lib')], { env: { PATH: '/usr/bin:/bin' } });
    await expectCode(computeWorkspaceManifest(r.root, ALL), 'workspace_submodule_refused', 2);
  });

  it('refuses a nested .git outside a repository', async () => {
    const r = repo(false);
    r.write('sub/.git/HEAD', 'ref: refs/heads/main\n');
    await expectCode(computeWorkspaceManifest(r.root, ALL), 'workspace_submodule_refused', 2);
  });
});

describe('paths', () => {
  const badName = (root: string): Buffer => Buffer.concat([Buffer.from(`${root}/bad-`), Buffer.from([0xff, 0xfe]), Buffer.from('.txt')]);

  it('refuses an untracked non-UTF-8 path', async () => {
    const r = repo();
    writeFileSync(badName(r.root), 'x');
    await expectCode(computeWorkspaceManifest(r.root, ALL), 'workspace_path_not_utf8', 2);
  });

  it('refuses a non-UTF-8 path outside a repository', async () => {
    const r = repo(false);
    writeFileSync(badName(r.root), 'x');
    await expectCode(computeWorkspaceManifest(r.root, ALL), 'workspace_path_not_utf8', 2);
  });

  it('refuses a non-UTF-8 path in a commit', async () => {
    const r = repo();
    writeFileSync(badName(r.root), 'x');
    r.commitAll();
    rmSync(badName(r.root));
    await expectCode(computeCommitManifest(r.root, 'HEAD', ALL), 'workspace_path_not_utf8', 2);
  });

  it('ignores a non-UTF-8 name that .gitignore covers', async () => {
    const r = repo();
    r.write('.gitignore', 'bad-*\n');
    writeFileSync(badName(r.root), 'x');
    const m = await computeWorkspaceManifest(r.root, ALL);
    expect(m.entries.map((e) => e.path)).toEqual(['.gitignore']);
  });

  it('refuses non-normalized product roots, excludes and requested paths', async () => {
    const r = repo();
    for (const bad of [[], ['../x'], ['/abs'], ['a//b'], ['a/'], ['./a'], ['']]) {
      await expectCode(computeWorkspaceManifest(r.root, { productRoots: bad, exclude: [] }), 'workspace_scope_invalid', 2);
    }
    await expectCode(computeWorkspaceManifest(r.root, { productRoots: ['.'], exclude: ['..'] }), 'workspace_scope_invalid', 2);
    const c = (r.write('a', 'a'), r.commitAll());
    await expectCode(readCommitFiles(r.root, c, ['../a']), 'workspace_scope_invalid', 2);
  });
});

describe('roots and revisions', () => {
  it('refuses a relative or missing root', async () => {
    await expectCode(computeWorkspaceManifest('relative/dir', ALL), 'workspace_root_invalid', 2);
    await expectCode(computeWorkspaceManifest('/nonexistent/governed-root', ALL), 'workspace_root_invalid', 2);
  });

  it('refuses a root below the repository top level', async () => {
    const r = repo();
    r.write('sub/a', 'a');
    await expectCode(computeWorkspaceManifest(join(r.root, 'sub'), ALL), 'workspace_root_not_toplevel', 2);
  });

  it('refuses revisions that do not name a commit, including option-looking ones', async () => {
    const r = repo();
    r.write('a', 'a');
    r.commitAll();
    const tree = r.git('rev-parse', 'HEAD^{tree}');
    for (const rev of ['nope', '--all', '-h', 'HEAD\nHEAD', '', tree, 'HEAD~5']) {
      await expectCode(resolveBaseline(r.root, rev), 'workspace_revision_unresolved', 2);
      await expectCode(computeCommitManifest(r.root, rev, ALL), 'workspace_revision_unresolved', 2);
    }
    const plain = repo(false);
    await expectCode(resolveBaseline(plain.root, 'HEAD'), 'workspace_revision_unresolved', 2);
  });

  it('readCommitFiles requires a full commit id and regular files of its tree', async () => {
    const r = repo();
    r.write('dir/f', 'f');
    r.symlink('lnk', 'dir/f');
    const c = r.commitAll();
    await expectCode(readCommitFiles(r.root, 'HEAD', ['dir/f']), 'workspace_revision_unresolved', 2);
    await expectCode(readCommitFiles(r.root, c, ['missing']), 'workspace_commit_path_missing', 2);
    await expectCode(readCommitFiles(r.root, c, ['dir']), 'workspace_commit_path_missing', 2);
    await expectCode(readCommitFiles(r.root, c, ['lnk']), 'workspace_commit_path_missing', 2);
  });

  it('fails closed with workspace_git_failed on a broken repository', async () => {
    const r = repo();
    r.write('a', 'a');
    rmSync(join(r.root, '.git'), { recursive: true });
    mkdirSync(join(r.root, '.git'));
    await expectCode(computeWorkspaceManifest(r.root, ALL), 'workspace_git_failed', 1);
  });
});

describe('a file swapped between lstat and open', () => {
  it('refuses a regular file replaced by another file', async () => {
    const r = repo(false);
    const p = r.write('f', 'one');
    const st = lstatEntry(p);
    if (st === null) throw new Error('setup');
    r.write('f2', 'two');
    renameSync(join(r.root, 'f2'), p);
    await expectCode(() => hashEntry(p, st), 'workspace_file_changed_during_hash', 4);
  });

  it('refuses a regular file replaced by a symlink (O_NOFOLLOW)', async () => {
    const r = repo(false);
    const p = r.write('f', 'one');
    const st = lstatEntry(p);
    if (st === null) throw new Error('setup');
    rmSync(p);
    symlinkSync('/etc/hostname', p);
    expect(lstatSync(p).isSymbolicLink()).toBe(true);
    await expectCode(() => hashEntry(p, st), 'workspace_file_changed_during_hash', 4);
  });

  it('refuses a regular file replaced by a FIFO without blocking (O_NONBLOCK)', async () => {
    const r = repo(false);
    const p = r.write('f', 'one');
    const st = lstatEntry(p);
    if (st === null) throw new Error('setup');
    rmSync(p);
    execFileSync('/usr/bin/mkfifo', [p]);
    await expectCode(() => hashEntry(p, st), 'workspace_file_changed_during_hash', 4);
  });
});
