// docs/contract.md#the-states-a-receipt-is-judged-against, docs/contract.md#workspace-digest: baselines, commit manifests and baseline file bytes come from git objects.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  changedPaths,
  computeCommitManifest,
  computeWorkspaceManifest,
  readCommitFiles,
  resolveBaseline,
} from '../src/workspace/index.js';
import { GIT, makeTempRepo, type TempRepo } from './helpers/git-repo.js';
import { makeTempDir } from './helpers/temp.js';

const ALL = { productRoots: ['.'], exclude: ['.governed'] };
const sha = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex');
const repos: TempRepo[] = [];
const cleanups: string[] = [];
const repo = (): TempRepo => {
  const r = makeTempRepo();
  repos.push(r);
  return r;
};
afterEach(() => {
  while (repos.length > 0) repos.pop()?.cleanup();
  while (cleanups.length > 0) rmSync(cleanups.pop() as string, { recursive: true, force: true });
});

function richRepo(): TempRepo {
  const r = repo();
  r.write('.gitignore', 'dist/\n*.log\n');
  r.write('src/index.ts', 'export const x = 1;\n');
  r.write('src/deep/nested/file.json', '{"a":1}\n');
  r.write('bin/run', '#!/bin/sh\necho hi\n', 0o755);
  r.write('empty', '');
  r.write('\u00e9t\u00e9.md', 'unicode name\n');
  r.write('big.bin', Buffer.alloc(3 * 1024 * 1024 + 17, 7));
  r.write('forced.log', 'tracked although ignored\n');
  r.symlink('link', 'src/index.ts');
  r.write('.governed/state', 'excluded');
  r.git('add', '-A');
  r.git('add', '-f', 'forced.log');
  r.git('commit', '-q', '-m', 'rich');
  return r;
}

describe('computeCommitManifest', () => {
  it('equals the workspace manifest of a clean checkout of that commit', async () => {
    const r = richRepo();
    const clone = makeTempDir('governed-clone-');
    cleanups.push(clone);
    execFileSync(GIT, ['clone', '-q', r.root, clone], { env: { PATH: '/usr/bin:/bin', HOME: '/nonexistent' } });
    const fromCommit = await computeCommitManifest(r.root, 'HEAD', ALL);
    const fromCheckout = await computeWorkspaceManifest(clone, ALL);
    expect(fromCommit).toEqual(fromCheckout);
    expect(fromCommit.entries.find((e) => e.path === 'bin/run')?.mode).toBe('100755');
    expect(fromCommit.entries.find((e) => e.path === 'link')).toEqual({ path: 'link', mode: '120000', sha256: sha('src/index.ts') });
    expect(fromCommit.entries.find((e) => e.path === 'big.bin')?.sha256).toBe(sha(Buffer.alloc(3 * 1024 * 1024 + 17, 7)));
    expect(fromCommit.entries.some((e) => e.path.startsWith('.governed'))).toBe(false);
    // and of the original working tree while it is clean
    expect((await computeWorkspaceManifest(r.root, ALL)).digest).toBe(fromCommit.digest);
  });

  it('differs from the workspace once the workspace changes, and honours product roots', async () => {
    const r = richRepo();
    r.write('src/index.ts', 'export const x = 2;\n');
    const c = await computeCommitManifest(r.root, 'HEAD', ALL);
    const w = await computeWorkspaceManifest(r.root, ALL);
    expect(c.digest).not.toBe(w.digest);
    const onlySrc = await computeCommitManifest(r.root, 'HEAD', { productRoots: ['src'], exclude: ['src/deep'] });
    expect(onlySrc.entries.map((e) => e.path)).toEqual(['src/index.ts']);
  });

  it('is not altered by a refs/replace object (GIT_NO_REPLACE_OBJECTS)', async () => {
    const r = repo();
    r.write('app.ts', 'honest\n');
    const honest = r.commitAll('honest');
    const before = await computeCommitManifest(r.root, honest, ALL);
    const baseBefore = await resolveBaseline(r.root, honest);
    r.write('app.ts', 'malicious\n');
    const evil = r.commitAll('evil');
    r.git('replace', honest, evil);
    // Sanity: plain git now shows the replacement's content for the honest commit.
    expect(r.git('show', `${honest}:app.ts`)).toBe('malicious');
    const after = await computeCommitManifest(r.root, honest, ALL);
    expect(after).toEqual(before);
    expect(after.entries).toEqual([{ path: 'app.ts', mode: '100644', sha256: sha('honest\n') }]);
    expect(await resolveBaseline(r.root, honest)).toEqual(baseBefore);
    expect((await readCommitFiles(r.root, honest, ['app.ts'])).get('app.ts')?.toString()).toBe('honest\n');
  });
});

describe('resolveBaseline and readCommitFiles', () => {
  it('resolves a revision once to full commit and tree ids', async () => {
    const r = repo();
    r.write('a', 'a');
    const c1 = r.commitAll('one');
    r.write('a', 'b');
    r.commitAll('two');
    r.git('tag', 'v1', c1);
    const b = await resolveBaseline(r.root, 'v1');
    expect(b).toEqual({ commit: c1, tree: r.git('rev-parse', `${c1}^{tree}`) });
    expect(b.commit).toMatch(/^[0-9a-f]{40}$/);
    expect((await resolveBaseline(r.root, 'HEAD~1')).commit).toBe(c1);
  });

  it('reads file bytes from the commit, never from the workspace or the index', async () => {
    const r = repo();
    r.write('req.md', 'original request\n');
    r.write('bin.dat', Buffer.from([0, 1, 2, 255]));
    const c = r.commitAll();
    r.write('req.md', 'rewritten by the writer\n');
    r.git('add', 'req.md');
    const files = await readCommitFiles(r.root, c, ['req.md', 'bin.dat']);
    expect(files.get('req.md')?.toString()).toBe('original request\n');
    expect(files.get('bin.dat')).toEqual(Buffer.from([0, 1, 2, 255]));
    expect([...files.keys()]).toEqual(['req.md', 'bin.dat']);
  });
});

describe('changedPaths', () => {
  it('reports edited, staged, untracked, deleted and mode-changed paths, sorted by bytes', async () => {
    const r = repo();
    r.write('.gitignore', 'ignored.txt\n');
    r.write('edit.ts', 'e1');
    r.write('stage.ts', 's1');
    r.write('del.ts', 'd');
    r.write('same.ts', 'same');
    r.write('chmod.sh', 'c');
    const base = r.commitAll();
    r.write('edit.ts', 'e2');
    r.write('stage.ts', 's2');
    r.git('add', 'stage.ts');
    rmSync(join(r.root, 'del.ts'));
    r.write('untracked.ts', 'u');
    r.write('ignored.txt', 'i');
    chmodSync(join(r.root, 'chmod.sh'), 0o755);
    writeFileSync(join(r.root, '.git/info/exclude'), 'untracked.ts\n');
    const changes = await changedPaths(r.root, base, ALL);
    expect(changes).toEqual([
      { path: 'chmod.sh', baseline: sha('c'), current: sha('c') },
      { path: 'del.ts', baseline: sha('d'), current: null },
      { path: 'edit.ts', baseline: sha('e1'), current: sha('e2') },
      { path: 'stage.ts', baseline: sha('s1'), current: sha('s2') },
      { path: 'untracked.ts', baseline: null, current: sha('u') },
    ]);
  });

  it('is empty for a clean workspace', async () => {
    const r = richRepo();
    expect(await changedPaths(r.root, r.git('rev-parse', 'HEAD'), ALL)).toEqual([]);
  });
});
