// The orchestrator with the two real tools as reviewers (tsc --noEmit and ESLint, governed's own
// devDependencies bound read-only into the sandbox) over a copy of examples/sample-repo, through the
// built CLI, with examples/review-pass.yaml. Then the writer fixes the code (this test plays the
// writer; the orchestrator never edits) and a new review converges CLEAN in two rounds.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonOut, runCli, REPO_ROOT } from './helpers/cli.js';
import type { TempRepo } from './helpers/git-repo.js';
import { sampleRepoCopy, treeDigest } from './review-pass-helpers.js';

const CONFIG = join(REPO_ROOT, 'examples', 'review-pass.yaml');
const repos: TempRepo[] = [];
afterAll(() => {
  for (const r of repos) {
    r.cleanup();
    for (const p of ['review-pass', 'two-pass', 'weave', 'simple', 'fixed']) rmSync(`${r.root}-${p}`, { recursive: true, force: true });
  }
});

function review(repo: TempRepo, protocol: string, tag = protocol, extra: string[] = []) {
  const before = treeDigest(repo.root);
  const out = `${repo.root}-${tag}`;
  const r = runCli(['review-pass', '--protocol', protocol, '--stage', 'development', '--config', CONFIG, '--out', out, '--json', ...extra], { cwd: repo.root });
  expect(treeDigest(repo.root)).toBe(before);
  return { r, json: jsonOut(r), result: JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as Record<string, any>, report: readFileSync(join(out, 'report.md'), 'utf8') };
}

describe('real tools over examples/sample-repo', () => {
  const repo = sampleRepoCopy();
  repos.push(repo);

  it('review-pass: the typo both tools see is CONFIRMED; single-tool findings stay escalations (exit 9)', () => {
    const { r, json, result, report } = review(repo, 'review-pass');
    expect(r.code).toBe(9);
    expect(json).toMatchObject({ result: 'NOT_CLEAN', rounds: 1 });
    expect(result.confirmed.map((g: any) => [g.file, g.line, g.supporters])).toEqual([['src/report.js', 32, ['eslint', 'tsc']]]);
    expect(result.escalations.map((g: any) => `${g.file}:${g.line}`)).toEqual([
      'src/inventory.ts:23',
      'src/inventory.ts:31',
      'src/report.js:6',
      'src/report.js:54',
      'src/report.js:55',
    ]);
    expect(result.health.map((h: any) => [h.reviewer, h.health])).toEqual([['eslint', 100], ['tsc', 100]]);
    expect(report).toContain('tsc TS2322: Type');
  });

  it('two-pass: tsc reviews, an independent tsc re-run verifies: 3 P0/P1 confirmed (exit 9)', () => {
    const { r, result } = review(repo, 'two-pass');
    expect(r.code).toBe(9);
    expect(result.summary).toMatchObject({ p0p1_total: 3, confirmed: 3, rejected: 0 });
  });

  it('weave: the shared typo reaches consensus 2/2 and is promoted; every claim is machine-verified', () => {
    const { r, result } = review(repo, 'weave');
    expect(r.code).toBe(9);
    expect(result.lanes).toBe(2);
    const top = result.findings[0];
    expect(top).toMatchObject({ file: 'src/report.js', line: 32, agree_count: 2, level: 'unanimous', final_severity: 'Critical', promoted: true });
    expect(result.findings.every((f: any) => f.verification === 'verified')).toBe(true);
  });

  it('simple: tool findings are ACCEPTED by the lead\'s command check; ESLint cannot cover the .ts file', () => {
    const { r, result } = review(repo, 'simple', 'simple', ['--files', 'src/inventory.ts,src/report.js']);
    expect(r.code).toBe(9);
    expect(result.recommendation).toBe('INCOMPLETE_REVIEW');
    expect(result.reviewers.map((x: any) => [x.slot, x.coverage.coverage])).toEqual([['tsc', 'COMPLETE'], ['eslint', 'INCOMPLETE']]);
    expect(result.findings.filter((f: any) => f.status === 'ACCEPTED')).toHaveLength(8);
  });

  it('after the writer fixes the code, a new review converges CLEAN in two rounds (exit 0)', () => {
    const fixed = sampleRepoCopy();
    repos.push(fixed);
    const inv = readFileSync(join(fixed.root, 'src', 'inventory.ts'), 'utf8')
      .replace("    return 'none';", '    return 0;')
      .replace('  return item.price * count;', '  return item === undefined ? 0 : item.price * count;');
    writeFileSync(join(fixed.root, 'src', 'inventory.ts'), inv);
    const rep = readFileSync(join(fixed.root, 'src', 'report.js'), 'utf8')
      .replace('  let lines = [];', '  const lines = [];')
      .replace('  return totl;', '  return total;')
      .replace("  const unused = 'left over';\n", '')
      .replace('  return quantity == 0;', '  return Number(quantity) === 0;');
    writeFileSync(join(fixed.root, 'src', 'report.js'), rep);
    const { r, json, result } = review(fixed, 'review-pass', 'fixed');
    expect(r.code).toBe(0);
    expect(json).toMatchObject({ ok: true, result: 'CLEAN', rounds: 2 });
    expect(result.review_log.map((e: any) => e.details)).toEqual(['—', 'Converged']);
  });
});
