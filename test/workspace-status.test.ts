// docs/contract.md#workspace-digest stat cache: used only by workspaceStatus; never trusted beyond its stat tuple.
import { readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { computeWorkspaceManifest, workspaceStatus } from '../src/workspace/index.js';
import { makeTempRepo, type TempRepo } from './helpers/git-repo.js';

const ALL = { productRoots: ['.'], exclude: ['.governed'] };
const repos: TempRepo[] = [];
afterEach(() => {
  while (repos.length > 0) repos.pop()?.cleanup();
});
/** Files are written "now"; pretend the scan runs a minute later so they are not racily clean. */
const later = { nowMs: Date.now() + 60_000 };

function setup(): { r: TempRepo; cache: string } {
  const r = makeTempRepo();
  repos.push(r);
  r.write('a.ts', 'a');
  r.write('b.ts', 'b');
  r.symlink('l', 'a.ts');
  r.commitAll();
  r.write('.governed/.keep', '');
  return { r, cache: join(r.root, '.governed/ws-cache.json') };
}

describe('workspaceStatus', () => {
  it('hashes everything cold, reuses everything warm, and equals the uncached manifest', async () => {
    const { r, cache } = setup();
    const cold = await workspaceStatus(r.root, ALL, cache, { nowMs: later.nowMs });
    expect(cold).toMatchObject({ hashed: 3, reused: 0 });
    const warm = await workspaceStatus(r.root, ALL, cache, later);
    expect(warm).toMatchObject({ hashed: 0, reused: 3 });
    expect(warm.manifest).toEqual(await computeWorkspaceManifest(r.root, ALL));
  });

  it('re-hashes a file whose stat changed and reflects the new bytes', async () => {
    const { r, cache } = setup();
    await workspaceStatus(r.root, ALL, cache, later);
    r.write('a.ts', 'A-changed');
    const s = await workspaceStatus(r.root, ALL, cache, later);
    expect(s).toMatchObject({ hashed: 1, reused: 2 });
    expect(s.manifest).toEqual(await computeWorkspaceManifest(r.root, ALL));
  });

  it('leaves an up-to-date cache file untouched and rewrites it when a row changes or disappears', async () => {
    const { r, cache } = setup();
    await workspaceStatus(r.root, ALL, cache, later);
    const first = statSync(cache, { bigint: true });
    const warm = await workspaceStatus(r.root, ALL, cache, later);
    expect(warm).toMatchObject({ hashed: 0, reused: 3 });
    const second = statSync(cache, { bigint: true });
    expect([second.ino, second.mtimeNs]).toEqual([first.ino, first.mtimeNs]); // not rewritten
    r.write('b.ts', 'B-changed');
    await workspaceStatus(r.root, ALL, cache, later);
    const rows = (): string[][] => (JSON.parse(readFileSync(cache, 'utf8')) as { entries: string[][] }).entries;
    expect(rows().find((row) => row[0] === 'b.ts')?.[7]).toBe(
      (await computeWorkspaceManifest(r.root, ALL)).entries.find((e) => e.path === 'b.ts')?.sha256,
    );
    r.git('rm', '-q', '--cached', 'a.ts');
    r.write('.gitignore', 'a.ts\n');
    await workspaceStatus(r.root, ALL, cache, later);
    expect(rows().map((row) => row[0]).sort()).toEqual(['.gitignore', 'b.ts', 'l']);
  });

  it('does not cache racily clean entries (modified within the window before the scan)', async () => {
    const { r, cache } = setup();
    const now = { nowMs: Date.now() }; // files were written just now
    await workspaceStatus(r.root, ALL, cache, now);
    const again = await workspaceStatus(r.root, ALL, cache, now);
    expect(again).toMatchObject({ hashed: 3, reused: 0 });
  });

  it('shows that a lying mtime fools only the cache, never computeWorkspaceManifest', async () => {
    const { r, cache } = setup();
    await workspaceStatus(r.root, ALL, cache, later);
    // Same size, restored mtime: the cache key differs only in ctime, which the kernel sets.
    const p = join(r.root, 'b.ts');
    const st = statSync(p);
    writeFileSync(p, 'B');
    utimesSync(p, st.atime, st.mtime);
    const s = await workspaceStatus(r.root, ALL, cache, later);
    expect(s.hashed).toBe(1); // ctime_ns catches it
    expect(s.manifest.digest).toBe((await computeWorkspaceManifest(r.root, ALL)).digest);
  });

  it('treats a tampered, malformed or foreign cache as empty', async () => {
    const { r, cache } = setup();
    await workspaceStatus(r.root, ALL, cache, later);
    const parsed = JSON.parse(readFileSync(cache, 'utf8')) as { root: string; entries: string[][] };
    expect(parsed.entries).toHaveLength(3);
    for (const bad of ['not json', '{"version":1}', JSON.stringify({ ...parsed, root: '/elsewhere' }), JSON.stringify({ ...parsed, extra: 1 })]) {
      writeFileSync(cache, bad);
      expect(await workspaceStatus(r.root, ALL, cache, later)).toMatchObject({ hashed: 3, reused: 0 });
    }
    // A forged hash with a matching stat tuple is believed by status (by design) but never by the
    // manifest that challenges use.
    const forged = { ...parsed, entries: parsed.entries.map((e) => (e[0] === 'a.ts' ? [...e.slice(0, 7), 'f'.repeat(64)] : e)) };
    writeFileSync(cache, JSON.stringify(forged));
    const s = await workspaceStatus(r.root, ALL, cache, later);
    expect(s.manifest.entries.find((e) => e.path === 'a.ts')?.sha256).toBe('f'.repeat(64));
    expect((await computeWorkspaceManifest(r.root, ALL)).entries.find((e) => e.path === 'a.ts')?.sha256).not.toBe('f'.repeat(64));
  });

  it('works without a writable cache location', async () => {
    const { r } = setup();
    const s = await workspaceStatus(r.root, ALL, '/nonexistent/dir/cache.json', later);
    expect(s.manifest).toEqual(await computeWorkspaceManifest(r.root, ALL));
  });
});
