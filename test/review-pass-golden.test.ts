// Golden reports of the orchestrator (docs/review-pass.md#review-protocols "a JSON result and a Markdown report in the seeds'
// shapes"): the flow run in-process with scripted reviewers in the real sandbox, a stepping clock
// and a seeded random source, so result.json and report.md (the engine's shape plus the
// orchestrator's section) are byte-for-byte reproducible. UPDATE_GOLDEN=1 rewrites them.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runReviewPass, type Protocol } from '../src/flows/review-pass/index.js';
import type { TempRepo } from './helpers/git-repo.js';
import { FIXTURES, scriptedRepo, scriptedTool, seededRandom, steppingClock } from './review-pass-helpers.js';

const repos: TempRepo[] = [];
afterAll(() => {
  for (const r of repos) {
    r.cleanup();
    rmSync(`${r.root}-out`, { recursive: true, force: true });
  }
});

function golden(name: string, actual: string): void {
  const path = join(FIXTURES, 'golden', name);
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(path, actual);
  expect(actual).toBe(readFileSync(path, 'utf8'));
}

async function run(protocol: Protocol, config: string, files?: string[]) {
  const repo = scriptedRepo({ 'review-pass.yaml': config });
  repos.push(repo);
  const r = await runReviewPass({
    protocol,
    stage: 'development',
    repoDir: repo.root,
    out: `${repo.root}-out`,
    env: {},
    clock: steppingClock(),
    random: seededRandom(),
    ...(files === undefined ? {} : { files }),
  });
  return { exit: r.exit, result: readFileSync(r.files.result, 'utf8'), report: readFileSync(r.files.report, 'utf8') };
}

describe('golden reports', () => {
  it('review-pass: arbiter dismissal, suppression, convergence', async () => {
    const r = await run('review-pass', `
tools:
  alpha: ${scriptedTool('text-clean')}
  beta: ${scriptedTool('text-solo', { args: ['src/app.js', '3', 'MEDIUM'] })}
  slow: ${scriptedTool('sleep', { timeout: '1s' })}
  arb: ${scriptedTool('arbiter', { args: ['DISMISSED'] })}
stages:
  development: { reviewers: [alpha, beta, slow], arbiter: arb }
`);
    expect(r.exit).toBe(0);
    golden('review-pass.md', r.report);
    golden('review-pass.json', r.result);
  });
  it('two-pass: a P1 demoted by the verifier', async () => {
    const r = await run('two-pass', `
tools:
  rev: ${scriptedTool('tp-review', { args: ['p1'], parse: 'json' })}
  ver: ${scriptedTool('tp-verify', { args: ['demoted'], parse: 'json' })}
protocols:
  two-pass: { reviewer: rev, verifier: ver }
`);
    expect(r.exit).toBe(0);
    golden('two-pass.md', r.report);
    golden('two-pass.json', r.result);
  });
  it('weave: consensus, refutation, blind labels', async () => {
    const r = await run('weave', `
tools:
  la: ${scriptedTool('weave', { args: ['a'], parse: 'json' })}
  lb: ${scriptedTool('weave', { args: ['b'], parse: 'json' })}
  lc: ${scriptedTool('weave', { args: ['none'], parse: 'json' })}
protocols:
  weave: { reviewers: [la, lb, lc] }
`);
    expect(r.exit).toBe(9);
    golden('weave.md', r.report);
    golden('weave.json', r.result);
  });
  it('simple: linked issue, lead rebuttal, recommendation', async () => {
    const r = await run('simple', `
tools:
  sa: ${scriptedTool('simple', { args: ['a'], parse: 'json' })}
  sb: ${scriptedTool('simple', { args: ['b'], parse: 'json' })}
protocols:
  simple: { pair: [sa, sb] }
`, ['src/app.js']);
    expect(r.exit).toBe(9);
    golden('simple.md', r.report);
    golden('simple.json', r.result);
  });
  it('two-pass incomplete: the reviewer times out', async () => {
    const r = await run('two-pass', `
tools:
  rev: ${scriptedTool('sleep', { timeout: '1s' })}
protocols:
  two-pass: { reviewer: rev, verifier: rev }
`);
    expect(r.exit).toBe(9);
    golden('two-pass-incomplete.md', r.report);
    golden('two-pass-incomplete.json', r.result);
  });
});
