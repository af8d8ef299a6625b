// Helpers started before the listing (src/workspace/ws-load.ts, hash-pool.ts PrestartedHelpers,
// manifest.ts): a performance device only. The manifest must be identical with and without them
// on every listing path (tracked below an ignored directory, deleted tracked, untracked, unicode,
// symlinks, exec bits), refusals keep their exact codes, and the start decision never opens
// anything in `.git` (the index could be a FIFO).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GovernedError } from '../src/core/errors.js';
import { hashJobsWithStats, PrestartedHelpers, type HashJob } from '../src/workspace/hash-pool.js';
import { computeWorkspaceManifest } from '../src/workspace/index.js';
import { indexBytes, otherRunnableTasks, prestartCount, PRESTART_MIN_INDEX_BYTES } from '../src/workspace/ws-load.js';
import { makeTempRepo, type TempRepo } from './helpers/git-repo.js';

const ALL = { productRoots: ['.'], exclude: ['.governed'] };
const sha = (b: string | Buffer): string => createHash('sha256').update(b).digest('hex');

const repos: TempRepo[] = [];
const repo = (init = true): TempRepo => {
  const r = makeTempRepo({ init });
  repos.push(r);
  return r;
};
afterEach(() => {
  while (repos.length > 0) repos.pop()?.cleanup();
});

async function caughtAsync(p: Promise<unknown>): Promise<GovernedError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(GovernedError);
    return e as GovernedError;
  }
  throw new Error('expected a refusal');
}

/** Every listing path at once: the walk's files, git-only paths, and paths git no longer sees. */
function mixedTree(r: TempRepo): void {
  for (let i = 0; i < 300; i++) r.write(`src/m${i % 7}/f${i}.txt`, Buffer.alloc(1000 + i * 37, i & 0xff));
  r.write('bin/run.sh', '#!/bin/sh\n', 0o755);
  r.write('ünï/cödé-日本.txt', 'unicode path');
  r.write('build/keep.txt', 'tracked although ignored');
  r.write('gone.txt', 'deleted after commit');
  mkdirSync(join(r.root, 'links'));
  symlinkSync('../bin/run.sh', join(r.root, 'links', 'run'));
  r.git('add', '-A');
  r.write('.gitignore', 'build/\n*.log\n');
  r.commitAll();
  rmSync(join(r.root, 'gone.txt'));
  r.write('build/ignored.txt', 'not reviewed');
  r.write('debug.log', 'not reviewed');
  r.write('new/untracked.txt', 'untracked but not ignored');
}

describe('the start decision (ws-load.ts)', () => {
  it('starts none for a small index, one CPU, or an unknown load; one per CPU no other task wants', () => {
    const big = PRESTART_MIN_INDEX_BYTES;
    expect(prestartCount(big - 1, 0, 2)).toBe(0);
    expect(prestartCount(big, null, 2)).toBe(0);
    expect(prestartCount(big, 0, 1)).toBe(0);
    expect(prestartCount(big, 0, 2)).toBe(1);
    expect(prestartCount(big, 1, 2)).toBe(0);
    expect(prestartCount(big, 9, 2)).toBe(0);
    expect(prestartCount(big, 0, 8)).toBe(3);
    expect(prestartCount(big, 5, 8)).toBe(2);
    expect(prestartCount(big, 7, 8)).toBe(0);
  });

  it('reads the runnable count as a non-negative integer (or null without /proc)', () => {
    const n = otherRunnableTasks();
    if (n !== null) {
      expect(Number.isInteger(n)).toBe(true);
      expect(n).toBeGreaterThanOrEqual(0);
    }
  });

  it('sizes the index by lstat only: a FIFO in its place is neither opened nor waited on', () => {
    const r = repo();
    expect(indexBytes(join(r.root, '.git'))).toBe(0); // no index yet
    r.write('a.txt', 'a');
    r.commitAll();
    expect(indexBytes(join(r.root, '.git'))).toBeGreaterThan(0);
    rmSync(join(r.root, '.git', 'index'));
    execFileSync('/usr/bin/mkfifo', [join(r.root, '.git', 'index')]);
    expect(indexBytes(join(r.root, '.git'))).toBe(0); // would hang forever if it opened the FIFO
  });
});

describe('computeWorkspaceManifest with helpers started before the listing', () => {
  it('gives the manifest of the calling thread alone, on every listing path', async () => {
    const r = repo();
    mixedTree(r);
    const single = await computeWorkspaceManifest(r.root, ALL, { helpers: 0 });
    const paths = single.entries.map((e) => e.path);
    expect(paths).toContain('build/keep.txt');
    expect(paths).toContain('ünï/cödé-日本.txt');
    expect(paths).toContain('new/untracked.txt');
    expect(paths).not.toContain('gone.txt');
    expect(paths).not.toContain('build/ignored.txt');
    expect(paths).not.toContain('debug.log');
    expect(single.entries.find((e) => e.path === 'links/run')).toEqual({
      path: 'links/run',
      mode: '120000',
      sha256: sha('../bin/run.sh'),
    });
    expect(single.entries.find((e) => e.path === 'bin/run.sh')?.mode).toBe('100755');
    for (const prestart of [1, 2]) {
      expect(await computeWorkspaceManifest(r.root, ALL, { prestart })).toEqual(single);
    }
    expect(await computeWorkspaceManifest(r.root, ALL)).toEqual(single);
  });

  it('keeps the listing refusal when git lists a gitlink, and the walk refusal for a FIFO', async () => {
    const r = repo();
    for (let i = 0; i < 200; i++) r.write(`many/f${i}`, `c${i}`);
    r.commitAll();
    const inner = r.git('rev-parse', 'HEAD');
    r.git('update-index', '--add', '--cacheinfo', `160000,${inner},vendor/lib`);
    expect((await caughtAsync(computeWorkspaceManifest(r.root, ALL, { prestart: 1 }))).code).toBe(
      'workspace_submodule_refused',
    );
    const q = repo();
    for (let i = 0; i < 200; i++) q.write(`many/f${i}`, `c${i}`);
    execFileSync('/usr/bin/mkfifo', [join(q.root, 'many', 'pipe')]);
    expect((await caughtAsync(computeWorkspaceManifest(q.root, ALL, { prestart: 1 }))).code).toBe(
      'workspace_special_file_refused',
    );
  });
});

describe('hashJobs with prestarted helpers', () => {
  function jobsIn(r: TempRepo, n: number): { jobs: HashJob[]; contents: Buffer[] } {
    const jobs: HashJob[] = [];
    const contents: Buffer[] = [];
    for (let i = 0; i < n; i++) {
      contents.push(Buffer.alloc(32 * 1024, i & 0xff));
      jobs.push({ absPath: r.write(`f${i}`, contents[i] as Buffer), kind: 'file' });
    }
    return { jobs, contents };
  }

  it('hands the jobs to helpers started earlier and returns the same entries in job order', async () => {
    const r = repo(false);
    const { jobs, contents } = jobsIn(r, 400);
    const pre = new PrestartedHelpers(1);
    // Give the helper time to finish starting, so it certainly takes part.
    await new Promise((res) => setTimeout(res, 300));
    const run = await hashJobsWithStats(jobs, { prestarted: pre });
    expect(run.entries).toEqual(contents.map((c) => ({ mode: '100644', sha256: sha(c) })));
    expect(run.helpersStarted).toBe(1);
    expect(pre.take()).toEqual([]); // handed over once
  });

  it('refuses with the exact code when a helper started earlier meets a swapped entry', async () => {
    const r = repo(false);
    const { jobs } = jobsIn(r, 300);
    rmSync(join(r.root, 'f299'));
    execFileSync('/usr/bin/mkfifo', [join(r.root, 'f299')]);
    const e = await caughtAsync(hashJobsWithStats(jobs, { prestarted: new PrestartedHelpers(1) }));
    expect(e.code).toBe('workspace_file_changed_during_hash');
  });

  it('cancels helpers never handed over', async () => {
    const pre = new PrestartedHelpers(2);
    expect(pre.workers.length).toBe(2);
    await pre.cancel();
    expect(pre.take()).toEqual([]);
    await pre.cancel(); // idempotent
  });

  it('does not measure idle CPUs (nor start a helper) before the caller says its git children are gone', async () => {
    const r = repo(false);
    const { jobs } = jobsIn(r, 300);
    const never = new Promise<void>(() => undefined);
    const run = await hashJobsWithStats(jobs, { parallelAfterMs: 0, minRemainingMs: 0, quietFrom: never });
    expect(run).toMatchObject({ helpersStarted: 0, byHelpers: 0 });
  });
});
