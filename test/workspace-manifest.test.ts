// docs/contract.md#workspace-digest workspace manifest on real git repositories and plain directories.
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { digestOf } from '../src/core/canonical.js';
import { computeWorkspaceManifest } from '../src/workspace/index.js';
import { makeTempRepo, type TempRepo } from './helpers/git-repo.js';

const ALL = { productRoots: ['.'], exclude: ['.governed'] };
const sha = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex');

const repos: TempRepo[] = [];
const repo = (init = true): TempRepo => {
  const r = makeTempRepo({ init });
  repos.push(r);
  return r;
};
afterEach(() => {
  while (repos.length > 0) repos.pop()?.cleanup();
});

describe('computeWorkspaceManifest (git)', () => {
  it('lists tracked and untracked files with working-tree bytes, sorted, digest = digestOf(entries)', async () => {
    const r = repo();
    r.write('b.txt', 'bee\n');
    r.write('a/x.ts', 'export {}\n');
    r.commitAll();
    r.write('b.txt', 'edited, not staged\n');
    r.write('new.txt', 'untracked\n');
    const m = await computeWorkspaceManifest(r.root, ALL);
    expect(m.entries).toEqual([
      { path: 'a/x.ts', mode: '100644', sha256: sha('export {}\n') },
      { path: 'b.txt', mode: '100644', sha256: sha('edited, not staged\n') },
      { path: 'new.txt', mode: '100644', sha256: sha('untracked\n') },
    ]);
    expect(m.digest).toBe(digestOf(m.entries));
    expect(m.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('is deterministic across calls and across copies of the same tree', async () => {
    const a = repo();
    const b = repo();
    for (const r of [a, b]) {
      r.write('src/one.ts', '1');
      r.write('src/two.ts', '2', 0o755);
      r.symlink('link', 'src/one.ts');
      r.commitAll();
    }
    const m1 = await computeWorkspaceManifest(a.root, ALL);
    const m2 = await computeWorkspaceManifest(a.root, ALL);
    const m3 = await computeWorkspaceManifest(b.root, ALL);
    expect(m2).toEqual(m1);
    expect(m3.digest).toBe(m1.digest);
  });

  it('reflects a changed byte, a new file and a deleted tracked file in the digest', async () => {
    const r = repo();
    r.write('f.txt', 'aaaa');
    r.write('g.txt', 'gone soon');
    r.commitAll();
    const before = await computeWorkspaceManifest(r.root, ALL);
    r.write('f.txt', 'aaab');
    const edited = await computeWorkspaceManifest(r.root, ALL);
    expect(edited.digest).not.toBe(before.digest);
    rmSync(join(r.root, 'g.txt'));
    const deleted = await computeWorkspaceManifest(r.root, ALL);
    expect(deleted.entries.map((e) => e.path)).toEqual(['f.txt']);
    r.write('h.txt', '');
    const added = await computeWorkspaceManifest(r.root, ALL);
    expect(added.entries.map((e) => e.path)).toEqual(['f.txt', 'h.txt']);
    expect(new Set([before.digest, edited.digest, deleted.digest, added.digest]).size).toBe(4);
  });

  it('detects mode 100755 from the exec bit of the working tree (not the index)', async () => {
    const r = repo();
    r.write('run.sh', '#!/bin/sh\n');
    r.commitAll();
    expect((await computeWorkspaceManifest(r.root, ALL)).entries[0]?.mode).toBe('100644');
    chmodSync(join(r.root, 'run.sh'), 0o755);
    expect((await computeWorkspaceManifest(r.root, ALL)).entries[0]).toEqual({
      path: 'run.sh',
      mode: '100755',
      sha256: sha('#!/bin/sh\n'),
    });
  });

  it('hashes a symlink as its target text and never follows it', async () => {
    const r = repo();
    const outside = makeTempRepo({ init: false });
    repos.push(outside);
    outside.write('secret', 'outside bytes');
    r.symlink('to-outside', join(outside.root, 'secret'));
    r.symlink('dangling', 'no/such/file');
    const m = await computeWorkspaceManifest(r.root, ALL);
    expect(m.entries).toEqual([
      { path: 'dangling', mode: '120000', sha256: sha('no/such/file') },
      { path: 'to-outside', mode: '120000', sha256: sha(join(outside.root, 'secret')) },
    ]);
  });

  it('does not read tracked paths through a directory that became a symlink', async () => {
    const r = repo();
    r.write('d/file', 'inside');
    r.commitAll();
    const outside = makeTempRepo({ init: false });
    repos.push(outside);
    outside.write('file', 'outside bytes');
    rmSync(join(r.root, 'd'), { recursive: true });
    symlinkSync(outside.root, join(r.root, 'd'));
    const m = await computeWorkspaceManifest(r.root, ALL);
    expect(m.entries).toEqual([{ path: 'd', mode: '120000', sha256: sha(outside.root) }]);
  });

  it('honours only in-tree .gitignore: .git/info/exclude does not hide a file', async () => {
    const r = repo();
    r.write('.gitignore', 'build/\n');
    r.write('build/out.js', 'ignored');
    r.write('hidden.txt', 'must be reviewed');
    writeFileSync(join(r.root, '.git/info/exclude'), 'hidden.txt\n');
    // Sanity: plain git does hide it, so the test can fail.
    expect(r.git('ls-files', '--others', '--exclude-standard')).not.toContain('hidden.txt');
    const paths = (await computeWorkspaceManifest(r.root, ALL)).entries.map((e) => e.path);
    expect(paths).toEqual(['.gitignore', 'hidden.txt']);
  });

  it('ignores core.excludesFile set in the repository config', async () => {
    const r = repo();
    r.write('excludes', 'secret.txt\n');
    r.git('config', 'core.excludesFile', join(r.root, 'excludes'));
    r.write('secret.txt', 'must be reviewed');
    expect(r.git('ls-files', '--others', '--exclude-standard')).not.toContain('secret.txt');
    const paths = (await computeWorkspaceManifest(r.root, ALL)).entries.map((e) => e.path);
    expect(paths).toEqual(['excludes', 'secret.txt']);
  });

  it('ignores core.ignoreCase from the repository config', async () => {
    const r = repo();
    r.write('.gitignore', 'build/\n');
    r.write('BUILD/keep.ts', 'reviewed');
    r.git('config', 'core.ignoreCase', 'true');
    expect(r.git('ls-files', '--others', '--exclude-standard')).not.toContain('BUILD/keep.ts');
    const paths = (await computeWorkspaceManifest(r.root, ALL)).entries.map((e) => e.path);
    expect(paths).toContain('BUILD/keep.ts');
  });

  it('applies product roots and excluded prefixes on path-component boundaries', async () => {
    const r = repo();
    r.write('src/a.ts', 'a');
    r.write('srcx/b.ts', 'b');
    r.write('docs/c.md', 'c');
    r.write('.governed/governed.db', 'state');
    r.write('src/gen/skip.ts', 'x');
    const m = await computeWorkspaceManifest(r.root, { productRoots: ['src', 'docs'], exclude: ['src/gen'] });
    expect(m.entries.map((e) => e.path)).toEqual(['docs/c.md', 'src/a.ts']);
    const all = await computeWorkspaceManifest(r.root, ALL);
    expect(all.entries.map((e) => e.path)).not.toContain('.governed/governed.db');
  });

  it('sorts by UTF-8 bytes, not UTF-16 code units', async () => {
    const r = repo();
    r.write('\u{1F600}.txt', 'astral'); // UTF-16 high surrogate D83D < EF; UTF-8 F0 > EF
    r.write('\uFF21.txt', 'fullwidth A');
    const m = await computeWorkspaceManifest(r.root, ALL);
    expect(m.entries.map((e) => e.path)).toEqual(['\uFF21.txt', '\u{1F600}.txt']);
  });
});

describe('computeWorkspaceManifest (outside a repository)', () => {
  it('takes every regular file and symlink under the roots, same rules', async () => {
    const r = repo(false);
    r.write('.gitignore', 'a.txt\n'); // no repository: .gitignore has no effect
    r.write('a.txt', 'A');
    r.write('bin/tool', 'T', 0o755);
    r.symlink('lnk', 'a.txt');
    mkdirSync(join(r.root, 'empty'));
    r.write('.governed/x', 'state');
    const m = await computeWorkspaceManifest(r.root, ALL);
    expect(m.entries).toEqual([
      { path: '.gitignore', mode: '100644', sha256: sha('a.txt\n') },
      { path: 'a.txt', mode: '100644', sha256: sha('A') },
      { path: 'bin/tool', mode: '100755', sha256: sha('T') },
      { path: 'lnk', mode: '120000', sha256: sha('a.txt') },
    ]);
  });

  it('gives the same manifest as a git repository holding the same tracked files', async () => {
    const plain = repo(false);
    const git = repo();
    for (const r of [plain, git]) {
      r.write('x/y.txt', 'same');
      r.write('z', 'z', 0o755);
    }
    git.commitAll();
    expect((await computeWorkspaceManifest(plain.root, ALL)).digest).toBe(
      (await computeWorkspaceManifest(git.root, ALL)).digest,
    );
  });
});
