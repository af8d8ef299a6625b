// The daemon's content import (docs/runnerd.md "Content crosses as git objects") is bounded by what
// a checkout WRITES, not by the request's size: a pack of a few KiB can name one 1 MiB blob at
// hundreds of paths (or compress gigabytes of zeros), and a checkout would write all of it into the
// daemon's state directory. The commit's tree is measured first (every path's blob size, repeats
// counted) and a tree over COMMIT_READ_MAX_BYTES is refused `runnerd_content_invalid` before the
// previous checkout is touched and before anything is written.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGovernedError } from '../src/core/errors.js';
import { COMMIT_READ_MAX_BYTES } from '../src/core/limits.js';
import { importContent } from '../src/flows/runnerd/content.js';
import { makeTempDir } from './helpers/temp.js';

const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t', HOME: '/nonexistent', PATH: '/usr/bin:/bin' };
const git = (cwd: string, args: string[], input?: Buffer | string): Buffer => execFileSync('git', args, { cwd, env: GIT_ENV, input, maxBuffer: 1 << 26 });

let dir: string;
let src: string;

/** A commit whose tree names one `blobBytes` blob at `paths` paths, and a pack of everything it reaches. */
function bomb(paths: number, blobBytes: number): { commit: string; bundle_b64: string } {
  const blob = git(src, ['hash-object', '-w', '--stdin'], Buffer.alloc(blobBytes, 0)).toString().trim();
  const tree = git(src, ['mktree'], Array.from({ length: paths }, (_, i) => `100644 blob ${blob}\tf${String(i).padStart(5, '0')}\n`).join('')).toString().trim();
  const commit = git(src, ['commit-tree', tree, '-m', 'bomb']).toString().trim();
  const pack = git(src, ['pack-objects', '--revs', '--stdout', '-q'], `${commit}\n`);
  return { commit, bundle_b64: pack.toString('base64') };
}

function small(): { commit: string; bundle_b64: string } {
  const blob = git(src, ['hash-object', '-w', '--stdin'], 'export const x = 1;\n').toString().trim();
  const tree = git(src, ['mktree'], `100644 blob ${blob}\tindex.ts\n`).toString().trim();
  const commit = git(src, ['commit-tree', tree, '-m', 'small']).toString().trim();
  return { commit, bundle_b64: git(src, ['pack-objects', '--revs', '--stdout', '-q'], `${commit}\n`).toString('base64') };
}

beforeAll(() => {
  dir = makeTempDir('gvd-rv7-content-');
  src = join(dir, 'src');
  mkdirSync(src);
  git(src, ['init', '-q']);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('runnerd content import is bounded by what its checkout would write', () => {
  it('positive control: a small commit is checked out', async () => {
    const out = join(dir, 'ok');
    await importContent(out, small());
    expect(readFileSync(join(out, 'index.ts'), 'utf8')).toBe('export const x = 1;\n');
  });

  it('one 1 MiB blob at enough paths to exceed the bound, in a pack of a few KiB: refused, nothing checked out, the previous checkout kept', async () => {
    const paths = Math.floor(COMMIT_READ_MAX_BYTES / (1 << 20)) + 1;
    const content = bomb(paths, 1 << 20);
    expect(content.bundle_b64.length).toBeLessThan(64 * 1024);
    const out = join(dir, 'unit');
    await importContent(out, small());
    let code = 'none';
    try {
      await importContent(out, content);
    } catch (e) {
      code = isGovernedError(e) ? e.code : String(e);
    }
    expect(code).toBe('runnerd_content_invalid');
    expect(readdirSync(out).sort()).toEqual(['.git', 'index.ts']);
    expect(existsSync(join(out, 'f00000'))).toBe(false);
  });
});
