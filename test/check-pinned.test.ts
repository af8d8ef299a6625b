// The build guard: scripts/check-pinned.mjs (the first step of npm test) fails, naming the file, when a committed
// pinned program differs by one byte from a fresh build of its sources, or has no source; an intact tree passes.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './helpers/cli.js';

let tree: string;
const check = (): ReturnType<typeof spawnSync> =>
  spawnSync(process.execPath, [join(tree, 'scripts', 'check-pinned.mjs'), tree], { encoding: 'utf8' });

beforeAll(() => {
  tree = mkdtempSync(join(tmpdir(), 'governed-check-pinned-tree-'));
  for (const d of ['src', 'runner', 'attestors', 'scripts']) cpSync(join(REPO_ROOT, d), join(tree, d), { recursive: true });
  cpSync(join(REPO_ROOT, 'package.json'), join(tree, 'package.json'));
  // The runtime dependencies a pinned program may bundle are copied (esbuild names a bundled file by
  // its real path, so a symlinked package would change the bytes); the rest (esbuild itself) is linked.
  const deps = Object.keys((JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies);
  const place = (name: string): void => {
    const [from, to] = [join(REPO_ROOT, 'node_modules', name), join(tree, 'node_modules', name)];
    // better-sqlite3 is a native addon, never in a pinned program.
    if (deps.includes(name) && name !== 'better-sqlite3') cpSync(from, to, { recursive: true });
    else symlinkSync(from, to);
  };
  mkdirSync(join(tree, 'node_modules'));
  for (const e of readdirSync(join(REPO_ROOT, 'node_modules'))) {
    if (!e.startsWith('@')) place(e);
    else {
      mkdirSync(join(tree, 'node_modules', e));
      for (const sub of readdirSync(join(REPO_ROOT, 'node_modules', e))) place(`${e}/${sub}`);
    }
  }
});
afterAll(() => rmSync(tree, { recursive: true, force: true }));

describe('scripts/check-pinned.mjs', () => {
  it('passes on an intact copy of the tree (the positive control)', () => {
    const r = check();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  for (const file of ['attestors/ed25519-file.mjs', 'runner/reviewers/coverage.mjs']) {
    it(`exits 1 naming ${file} when one of its committed bytes differs`, () => {
      const path = join(tree, file);
      const good = readFileSync(path);
      const bad = Buffer.from(good);
      const at = bad.length >> 1;
      bad[at] = (bad[at] as number) ^ 0x01;
      writeFileSync(path, bad);
      try {
        const r = check();
        expect(r.status).toBe(1);
        expect(r.stderr).toContain(`${file}: differs from a fresh build`);
        expect(String(r.stderr).match(/differs from/g)).toHaveLength(1);
      } finally {
        writeFileSync(path, good);
      }
    });
  }

  it('runs first in npm test, before the build that would overwrite the committed bytes; lint runs there too', () => {
    const scripts = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    const steps = (scripts.test as string).split(' && ');
    expect(steps[0]).toBe('node scripts/check-pinned.mjs');
    expect(steps).toContain('npm run build');
    expect(steps).toContain('npm run lint');
  });

  it('exits 1 naming a pinned program that has no source', () => {
    const path = join(tree, 'attestors', 'left-over.mjs');
    writeFileSync(path, '#!/usr/bin/env node\n');
    try {
      const r = check();
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('attestors/left-over.mjs: a pinned program with no source');
    } finally {
      rmSync(path);
    }
  });
});
