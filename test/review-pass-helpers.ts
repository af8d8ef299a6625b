// Shared setup for the orchestrator tests: real git repositories with a small program and the
// scripted reviewer executable (test/fixtures/orchestrator/reviewers/scripted.mjs), configuration
// files, and a deterministic clock and random source for golden reports.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempRepo, type TempRepo } from './helpers/git-repo.js';

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'orchestrator');
export const SCRIPTED = join(FIXTURES, 'reviewers', 'scripted.mjs');
export const SAMPLE_REPO = join(dirname(fileURLToPath(import.meta.url)), '..', 'examples', 'sample-repo');

export const APP_JS = [
  'export function total(xs) {',
  '  let t = 0;',
  '  for (let i = 0; i <= xs.length; i++) t += xs[i];',
  '  return t;',
  '}',
  '',
].join('\n');

/** A repository with src/app.js and the scripted reviewer at .reviewers/scripted.mjs (committed). */
export function scriptedRepo(extra: Record<string, string> = {}): TempRepo {
  const repo = makeTempRepo({ prefix: 'governed-orch-' });
  repo.write('src/app.js', APP_JS);
  for (const [p, c] of Object.entries(extra)) repo.write(p, c);
  mkdirSync(join(repo.root, '.reviewers'), { recursive: true });
  copyFileSync(SCRIPTED, join(repo.root, '.reviewers', 'scripted.mjs'));
  repo.commitAll('initial');
  return repo;
}

/** A YAML tool entry running the scripted reviewer in `mode` (argv only carries fixed words). */
export function scriptedTool(mode: string, opts: { args?: string[]; parse?: string; timeout?: string; retries?: number; prompt?: 'stdin' | 'file' } = {}): string {
  const argv = ['/usr/bin/node', '{repo}/.reviewers/scripted.mjs', mode, ...(opts.args ?? []), ...(opts.prompt === 'file' ? ['file'] : [])];
  const fields = [
    `command: ${JSON.stringify(argv)}`,
    `parse: ${opts.parse ?? 'text_fallback'}`,
    `timeout: ${opts.timeout ?? '20s'}`,
    `retries: ${opts.retries ?? 0}`,
    ...(opts.prompt === undefined ? [] : [`prompt: ${opts.prompt}`]),
  ];
  return `{ ${fields.join(', ')} }`;
}

/** A copy of examples/sample-repo as a fresh git repository (its own top level). */
export function sampleRepoCopy(): TempRepo {
  const repo = makeTempRepo({ prefix: 'governed-sample-' });
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(SAMPLE_REPO, rel))) {
      const r = rel === '' ? name : `${rel}/${name}`;
      if (statSync(join(SAMPLE_REPO, r)).isDirectory()) walk(r);
      else repo.write(r, readFileSync(join(SAMPLE_REPO, r)));
    }
  };
  walk('');
  repo.commitAll('sample');
  return repo;
}

/** Every file of a directory tree with its sha256 (to prove a repository was not modified). */
export function treeDigest(root: string): string {
  const h = createHash('sha256');
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const r = rel === '' ? name : `${rel}/${name}`;
      const st = statSync(join(root, r));
      if (st.isDirectory()) walk(r);
      else h.update(`${r}\0${st.mode}\0`).update(readFileSync(join(root, r)));
    }
  };
  walk('');
  return h.digest('hex');
}

/** A clock that advances one second per reading (reports show whole seconds). */
export function steppingClock(start = 1_700_000_000_000): () => number {
  let t = start;
  return () => (t += 1000);
}

/** Deterministic "random" bytes: SHA-256 blocks of a counter. */
export function seededRandom(seed = 'orchestrator'): (n: number) => Buffer {
  let counter = 0;
  return (n: number) => {
    const out: Buffer[] = [];
    let len = 0;
    while (len < n) {
      const b = createHash('sha256').update(`${seed}:${counter++}`).digest();
      out.push(b);
      len += b.length;
    }
    return Buffer.concat(out).subarray(0, n);
  };
}
