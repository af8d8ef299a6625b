// The lstat-free hashing of walked entries and the parallel helpers (docs/contract.md#workspace-digest; src/workspace/
// hash-core.ts, hash-file.ts, hash-pool.ts): same bytes, same checks, same refusal codes on every
// thread, and a manifest that does not depend on how many threads computed it.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GovernedError } from '../src/core/errors.js';
import { hashWalkedEntry } from '../src/workspace/hash-file.js';
import { availableParallelism } from 'node:os';
import { hashJobs, hashJobsInOneHelper, hashJobsWithStats, helpersFor, IdleProbe, type HashJob } from '../src/workspace/hash-pool.js';
import { computeWorkspaceManifest } from '../src/workspace/index.js';
import { makeTempRepo, type TempRepo } from './helpers/git-repo.js';

const ALL = { productRoots: ['.'], exclude: ['.governed'] };
/** Helpers start after the first file, whatever the size: the parallel path runs on tiny trees too. */
const FORCE = { helpers: 2, parallelAfterMs: 0, minRemainingMs: 0 };
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

function caught(fn: () => unknown): GovernedError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(GovernedError);
    return e as GovernedError;
  }
  throw new Error('expected a refusal');
}

async function caughtAsync(p: Promise<unknown>): Promise<GovernedError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(GovernedError);
    return e as GovernedError;
  }
  throw new Error('expected a refusal');
}

/** No path, file name or content in what a refusal prints (docs/threat-model.md#rules-that-hold-everywhere "No secrets in output"). */
function expectNoLeak(e: GovernedError, ...secrets: string[]): void {
  const shown = `${e.message} ${JSON.stringify(e)} ${String(e.stack)}`;
  for (const s of secrets) expect(shown).not.toContain(s);
}

/** A tree with sizes around the 1 MiB read buffer, exec bits, symlinks and odd names. */
function populate(r: TempRepo, files: number): void {
  const sizes = [0, 1, 4095, 65_536, 1024 * 1024 - 1, 1024 * 1024, 1024 * 1024 + 1, 2 * 1024 * 1024 + 7];
  for (let i = 0; i < files; i++) {
    // Every size around the 1 MiB read buffer once, then small files.
    const size = i < sizes.length ? (sizes[i] as number) : 100 + (i % 13) * 997;
    const content = Buffer.alloc(size, (i * 31) & 0xff);
    content.write(`file ${i}`);
    r.write(`dir${i % 5}/f${i}.bin`, content, i % 3 === 0 ? 0o755 : 0o644);
  }
  r.symlink('dir0/link', '../dir1/f1.bin');
  r.symlink('dangling', 'no/such');
  r.write('sp ace/quote"and\\back.txt', 'odd');
  r.write('\u{1F600}/\uFFFD-literal.txt', 'a real U+FFFD in a valid UTF-8 name');
}

describe('hashWalkedEntry (typed by the walk, no lstat)', () => {
  it('hashes a regular file, an executable and a symlink as the lstat path does', () => {
    const r = repo(false);
    const f = r.write('f', 'bytes');
    const x = r.write('x', 'run', 0o755);
    r.symlink('l', 'f');
    expect(hashWalkedEntry(f, 'file')).toEqual({ mode: '100644', sha256: sha('bytes') });
    expect(hashWalkedEntry(x, 'file')).toEqual({ mode: '100755', sha256: sha('run') });
    expect(hashWalkedEntry(join(r.root, 'l'), 'symlink')).toEqual({ mode: '120000', sha256: sha('f') });
  });

  it('refuses a file that became a symlink (O_NOFOLLOW), never reading its target', () => {
    const r = repo(false);
    const p = join(r.root, 'f');
    symlinkSync('/etc/hostname', p);
    const e = caught(() => hashWalkedEntry(p, 'file'));
    expect(e.code).toBe('workspace_file_changed_during_hash');
    expect(e.exit).toBe(4);
    expectNoLeak(e, r.root, '/etc/hostname');
  });

  it('refuses a file that became a FIFO without blocking (O_NONBLOCK + fstat)', () => {
    const r = repo(false);
    const p = join(r.root, 'f');
    execFileSync('/usr/bin/mkfifo', [p]);
    const t0 = Date.now();
    expect(caught(() => hashWalkedEntry(p, 'file')).code).toBe('workspace_file_changed_during_hash');
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('refuses a file that became a directory, or vanished', () => {
    const r = repo(false);
    mkdirSync(join(r.root, 'd'));
    expect(caught(() => hashWalkedEntry(join(r.root, 'd'), 'file')).code).toBe('workspace_file_changed_during_hash');
    expect(caught(() => hashWalkedEntry(join(r.root, 'gone'), 'file')).code).toBe('workspace_file_changed_during_hash');
    expect(caught(() => hashWalkedEntry(join(r.root, 'gone'), 'symlink')).code).toBe('workspace_file_changed_during_hash');
  });

  it('refuses a symlink that became a regular file (EINVAL)', () => {
    const r = repo(false);
    const p = r.write('was-link', 'now a file');
    expect(caught(() => hashWalkedEntry(p, 'symlink')).code).toBe('workspace_file_changed_during_hash');
  });

  it('reports any other open failure as unreadable, with no path in the error', () => {
    const r = repo(false);
    const long = join(r.root, 'n'.repeat(300)); // ENAMETOOLONG: a name over 255 bytes
    const e = caught(() => hashWalkedEntry(long, 'file'));
    expect(e.code).toBe('workspace_file_unreadable');
    expect(e.exit).toBe(2);
    expectNoLeak(e, r.root, 'nnnnnnnn');
  });
});

describe('the helper thread program', () => {
  it('hashes every job itself, identically to the calling thread', async () => {
    const r = repo(false);
    populate(r, 40);
    const m = await computeWorkspaceManifest(r.root, ALL, { helpers: 0 });
    const jobs: HashJob[] = m.entries.map((e) => ({
      absPath: join(r.root, e.path),
      kind: e.mode === '120000' ? 'symlink' : 'file',
    }));
    const { outcome, results } = await hashJobsInOneHelper(jobs);
    expect(outcome.kind).toBe('done');
    expect(results).toEqual(m.entries.map((e) => ({ mode: e.mode, sha256: e.sha256 })));
  });

  it('reports the same refusal codes as the calling thread', async () => {
    const r = repo(false);
    const ok = r.write('ok', 'fine');
    const link = join(r.root, 'link');
    symlinkSync('/etc/hostname', link);
    const fifo = join(r.root, 'fifo');
    execFileSync('/usr/bin/mkfifo', [fifo]);
    for (const bad of [link, fifo, join(r.root, 'gone')]) {
      const { outcome, results } = await hashJobsInOneHelper([
        { absPath: ok, kind: 'file' },
        { absPath: bad, kind: 'file' },
      ]);
      expect(outcome).toMatchObject({ kind: 'refused', code: 'workspace_file_changed_during_hash' });
      expect(results).toEqual([{ mode: '100644', sha256: sha('fine') }, null]);
    }
    const { outcome } = await hashJobsInOneHelper([{ absPath: join(r.root, 'n'.repeat(300)), kind: 'file' }]);
    expect(outcome).toMatchObject({ kind: 'refused', code: 'workspace_file_unreadable', errno: 'ENAMETOOLONG' });
  });
});

describe('hashJobs / computeWorkspaceManifest with helper threads', () => {
  it('gives the same manifest with 0, 1 and 2 helpers, in a repository and outside one', async () => {
    for (const init of [true, false]) {
      const r = repo(init);
      populate(r, 120);
      if (init) r.commitAll();
      r.write('untracked.txt', 'new');
      const single = await computeWorkspaceManifest(r.root, ALL, { helpers: 0 });
      expect(single.entries.length).toBe(125);
      expect(single.entries.find((e) => e.path === 'dir0/f0.bin')?.mode).toBe('100755');
      expect(single.entries.find((e) => e.path === 'dir0/link')).toEqual({
        path: 'dir0/link',
        mode: '120000',
        sha256: sha('../dir1/f1.bin'),
      });
      for (const helpers of [1, 2]) {
        const parallel = await computeWorkspaceManifest(r.root, ALL, { ...FORCE, helpers });
        expect(parallel).toEqual(single);
      }
      expect(await computeWorkspaceManifest(r.root, ALL)).toEqual(single);
    }
  });

  it('returns results in job order whichever thread hashed them', async () => {
    const r = repo(false);
    const jobs: HashJob[] = [];
    const content = (i: number): Buffer => Buffer.alloc(64 * 1024, i & 0xff);
    for (let i = 0; i < 400; i++) jobs.push({ absPath: r.write(`f${i}`, content(i)), kind: 'file' });
    const run = await hashJobsWithStats(jobs, FORCE);
    expect(run.entries).toEqual(jobs.map((_, i) => ({ mode: '100644', sha256: sha(content(i)) })));
    expect(run.helpersStarted).toBe(2);
    expect(run.byHelpers).toBeLessThanOrEqual(jobs.length);
    const alone = await hashJobsWithStats(jobs, { helpers: 0 });
    expect(alone).toEqual({ entries: run.entries, helpersStarted: 0, byHelpers: 0 });
  });

  it('refuses with the exact code whichever thread meets the bad entry, and leaks no path', async () => {
    const r = repo(false);
    const jobs: HashJob[] = [];
    for (let i = 0; i < 300; i++) jobs.push({ absPath: r.write(`f${i}`, `content ${i}`), kind: 'file' });
    // Typed as files by an earlier walk, then swapped: one for a symlink, one for a FIFO.
    rmSync(join(r.root, 'f150'));
    symlinkSync('/etc/hostname', join(r.root, 'f150'));
    rmSync(join(r.root, 'f299'));
    execFileSync('/usr/bin/mkfifo', [join(r.root, 'f299')]);
    for (const options of [{ helpers: 0 }, FORCE]) {
      const e = await caughtAsync(hashJobs(jobs, options));
      expect(e.code).toBe('workspace_file_changed_during_hash');
      expectNoLeak(e, r.root, 'f150', '/etc/hostname');
    }
  });

  it('reports the listing refusal, not the stopped hashing, when git lists a gitlink mid-hash', async () => {
    const r = repo();
    for (let i = 0; i < 1500; i++) r.write(`many/f${i}`, Buffer.alloc(4096, i & 0xff));
    r.commitAll();
    const inner = r.git('rev-parse', 'HEAD');
    r.git('update-index', '--add', '--cacheinfo', `160000,${inner},vendor/lib`);
    for (const options of [{ helpers: 0 }, FORCE, {}]) {
      const e = await caughtAsync(computeWorkspaceManifest(r.root, ALL, options));
      expect(e.code).toBe('workspace_submodule_refused');
    }
  });

  it('refuses a special file found by the walk before any helper could open it', async () => {
    const r = repo();
    populate(r, 30);
    execFileSync('/usr/bin/mkfifo', [join(r.root, 'dir2', 'pipe')]);
    const e = await caughtAsync(computeWorkspaceManifest(r.root, ALL, FORCE));
    expect(e.code).toBe('workspace_special_file_refused');
  });
});

describe('when helpers start by default', () => {
  it('starts none without an idle CPU, one per idle CPU, never more than the spare CPUs or 3', () => {
    const spare = Math.min(3, availableParallelism() - 1);
    expect(helpersFor(0)).toBe(0);
    expect(helpersFor(0.4)).toBe(0);
    expect(helpersFor(0.8)).toBe(Math.min(1, spare));
    expect(helpersFor(1.8)).toBe(Math.min(2, spare));
    expect(helpersFor(64)).toBe(spare);
  });

  it('measures idle CPUs as a non-negative rate', async () => {
    const probe = new IdleProbe();
    await new Promise((r) => setTimeout(r, 30));
    const free = probe.freeCpus();
    expect(free).toBeGreaterThanOrEqual(0);
    expect(free).toBeLessThanOrEqual(availableParallelism() + 0.5);
  });

  it('hashes small jobs on the calling thread alone by default', async () => {
    const r = repo(false);
    const jobs: HashJob[] = [0, 1, 2].map((i) => ({ absPath: r.write(`f${i}`, `c${i}`), kind: 'file' }));
    expect(await hashJobsWithStats(jobs)).toMatchObject({ helpersStarted: 0, byHelpers: 0 });
  });
});

describe('listing: walk types and the lstat fallback', () => {
  it('hashes a tracked file inside an ignored directory (git lists it; the walk does not enter)', async () => {
    const r = repo();
    r.write('build/keep.txt', 'tracked although ignored');
    r.git('add', 'build/keep.txt');
    r.write('.gitignore', 'build/\n');
    r.write('build/ignored.txt', 'not reviewed');
    r.commitAll();
    const m = await computeWorkspaceManifest(r.root, ALL, { helpers: 0 });
    expect(m.entries.map((e) => e.path)).toEqual(['.gitignore', 'build/keep.txt']);
    expect(m.entries[1]?.sha256).toBe(sha('tracked although ignored'));
  });

  it('hashes a tracked file replaced by a directory as the files inside it', async () => {
    const r = repo();
    r.write('thing', 'was a file');
    r.commitAll();
    rmSync(join(r.root, 'thing'));
    r.write('thing/inner.txt', 'now a directory');
    const m = await computeWorkspaceManifest(r.root, ALL);
    expect(m.entries).toEqual([{ path: 'thing/inner.txt', mode: '100644', sha256: sha('now a directory') }]);
  });

  it('refuses a non-UTF-8 name in a directory whose other names are valid (raw re-read)', async () => {
    for (const init of [true, false]) {
      const r = repo(init);
      r.write('d/ok.txt', 'ok');
      writeFileSync(Buffer.from(`${r.root}/d/bad-\xff.txt`, 'latin1'), 'x');
      const e = await caughtAsync(computeWorkspaceManifest(r.root, ALL));
      expect(e.code).toBe('workspace_path_not_utf8');
    }
  });

  it('accepts a name holding a literal U+FFFD and keeps it byte-exact', async () => {
    const r = repo();
    r.write('d/\uFFFD.txt', 'replacement char is a valid character');
    const m = await computeWorkspaceManifest(r.root, ALL);
    expect(m.entries.map((e) => e.path)).toEqual(['d/\uFFFD.txt']);
  });

  it('ignores a non-UTF-8 ignored name next to reviewed files (raw ignored set)', async () => {
    const r = repo();
    r.write('.gitignore', '*.tmp\n');
    r.write('d/keep.ts', 'k');
    writeFileSync(Buffer.from(`${r.root}/d/junk-\xfe.tmp`, 'latin1'), 'x');
    const m = await computeWorkspaceManifest(r.root, ALL);
    expect(m.entries.map((e) => e.path)).toEqual(['.gitignore', 'd/keep.ts']);
  });

  it('reads the exec bit from the file itself (fstat), not from the index', async () => {
    const r = repo();
    r.write('s.sh', '#!/bin/sh\n', 0o755);
    r.commitAll();
    chmodSync(join(r.root, 's.sh'), 0o644);
    const m = await computeWorkspaceManifest(r.root, ALL);
    expect(m.entries[0]?.mode).toBe('100644');
  });
});
