// Real-tool reviewer adapters (runner/reviewers/adapters) and their protocol conversions
// (src/flows/review-pass/tool-findings.ts): fixture outputs, then the real tsc and ESLint over a
// copy of examples/sample-repo, then each conversion checked by the protocol engine that consumes it.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseEslintJson, parseTscOutput, repoRelative } from '../runner/reviewers/adapters/index.js';
import { parseJsonReviewerOutput } from '../src/protocols/review-pass/index.js';
import { adjudicateTwoPass, evaluatePass1 } from '../src/protocols/two-pass/index.js';
import { checkFindingContract, SimpleFindingSchema } from '../src/protocols/simple/index.js';
import {
  reviewPassOutputText,
  simpleFindings,
  toolReportOf,
  twoPassMachineVerify,
  twoPassPass1Output,
  weaveLaneFindings,
} from '../src/flows/review-pass/tool-findings.js';
import { governedToolsDir } from '../src/flows/review-pass/index.js';
import { FIXTURES, sampleRepoCopy } from './review-pass-helpers.js';

const fixture = (n: string): string => readFileSync(join(FIXTURES, 'tools', n), 'utf8');
const repos: Array<{ cleanup(): void }> = [];
afterAll(() => repos.forEach((r) => r.cleanup()));

describe('repoRelative', () => {
  it.each([
    ['/repo/src/a.ts', 'src/a.ts'],
    ['src/a.ts', 'src/a.ts'],
    ['./src/a.ts', 'src/a.ts'],
    ['/opt/governed/node_modules/x.d.ts', null],
    ['/repository/a.ts', null],
    ['src/../../etc/passwd', null],
    ['', null],
  ])('%s → %s', (input, expected) => expect(repoRelative(input, '/repo')).toBe(expected));
});

describe('tsc adapter (--pretty false, --listFiles)', () => {
  it('parses located diagnostics, folds continuation lines, keeps repository files only', () => {
    const r = parseTscOutput(fixture('tsc-output.txt'), '/repo');
    expect(r.tool_errors).toBe(0);
    expect(r.files_read).toEqual(['src/deep.ts', 'src/inventory.ts', 'src/report.js']);
    expect(r.diagnostics.map((d) => [d.file, d.line, d.column, d.code, d.level])).toEqual([
      ['src/deep.ts', 7, 3, 'TS2345', 'error'],
      ['src/inventory.ts', 23, 5, 'TS2322', 'error'],
      ['src/report.js', 32, 10, 'TS2552', 'error'],
    ]);
    expect(r.diagnostics[0]?.message).toBe(
      "TS2345: Argument of type '{ a: number; }' is not assignable to parameter of type 'Shape'. Object literal may only specify known properties, and 'a' does not exist in type 'Shape'.",
    );
  });
  it('a configuration error is a tool error: the run did not review', () => {
    const r = parseTscOutput(fixture('tsc-config-error.txt'), '/repo');
    expect(r.tool_errors).toBe(1);
    expect(toolReportOf('tsc', fixture('tsc-config-error.txt'))).toBeNull();
    expect(toolReportOf('tsc', '')).toBeNull(); // nothing listed: nothing reviewed
  });
});

describe('ESLint adapter (--format json)', () => {
  it('maps severity 2/1 and fatal parse errors; never reads source', () => {
    const r = parseEslintJson(fixture('eslint-output.json'), '/repo');
    expect(r).not.toBeNull();
    expect(r?.files_read).toEqual(['eslint.config.mjs', 'src/broken.js', 'src/report.js']);
    expect(r?.diagnostics.map((d) => [d.file, d.line, d.code, d.level])).toEqual([
      ['src/broken.js', 3, 'parse-error', 'fatal'],
      ['src/report.js', 6, 'prefer-const', 'warning'],
      ['src/report.js', 55, 'eqeqeq', 'error'],
    ]);
    expect(JSON.stringify(r)).not.toContain('SOURCE TEXT NEVER READ');
  });
  it('not ESLint JSON → null (unusable output)', () => {
    expect(parseEslintJson('Oops! Something went wrong', '/repo')).toBeNull();
    expect(parseEslintJson('{"filePath":"x"}', '/repo')).toBeNull();
    expect(parseEslintJson('[{"filePath":"/repo/a.js","messages":[{"severity":3,"message":"x"}]}]', '/repo')).toBeNull();
  });
  it('a result outside the repository is a tool error', () => {
    expect(parseEslintJson('[{"filePath":"/etc/x.js","messages":[]}]', '/repo')?.tool_errors).toBe(1);
  });
});

describe('the real tools over examples/sample-repo (unsandboxed here; the sandboxed runs are in review-pass-flow)', () => {
  const tools = governedToolsDir() as string;
  it('tsc reports the sample\'s type errors', () => {
    const repo = sampleRepoCopy();
    repos.push(repo);
    const r = spawnSync(join(tools, '.bin', 'tsc'), ['--noEmit', '--pretty', 'false', '--listFiles', '-p', repo.root], { cwd: repo.root, encoding: 'utf8' });
    expect(r.status).toBe(2);
    const report = parseTscOutput(r.stdout, repo.root);
    expect(report.diagnostics.map((d) => `${d.file}:${d.line} ${d.code}`)).toEqual([
      'src/inventory.ts:23 TS2322',
      'src/inventory.ts:31 TS18048',
      'src/report.js:32 TS2552',
    ]);
    expect(report.files_read).toEqual(['src/inventory.ts', 'src/report.js']);
  });
  it('ESLint reports the sample\'s lint problems', () => {
    const repo = sampleRepoCopy();
    repos.push(repo);
    const r = spawnSync(join(tools, '.bin', 'eslint'), ['--format', 'json', '.'], { cwd: repo.root, encoding: 'utf8' });
    expect(r.status).toBe(1);
    const report = parseEslintJson(r.stdout, repo.root);
    expect(report?.diagnostics.map((d) => `${d.file}:${d.line} ${d.code} ${d.level}`)).toEqual([
      'src/report.js:6 prefer-const warning',
      'src/report.js:30 no-unused-vars error',
      'src/report.js:32 no-undef error',
      'src/report.js:54 no-unused-vars error',
      'src/report.js:55 eqeqeq error',
    ]);
  });
  it('ESLint 9 (the pinned devDependency) runs on this Node', () => {
    expect(execFileSync(join(tools, '.bin', 'eslint'), ['--version'], { encoding: 'utf8' }).trim()).toBe('v9.39.5');
  });
});

describe('conversions are accepted by the engines that consume them', () => {
  const tsc = parseTscOutput(fixture('tsc-output.txt'), '/repo');
  const eslint = parseEslintJson(fixture('eslint-output.json'), '/repo');
  it('review-pass: the docs/review-pass-protocol.md#reviewer-output-format JSON output, correctness findings, FOUND_ISSUES', () => {
    const out = parseJsonReviewerOutput('tsc', reviewPassOutputText(tsc));
    expect(out.verdict).toBe('FOUND_ISSUES');
    expect(out.files_read).toEqual(tsc.files_read);
    expect(out.findings.map((f) => [f.file, f.line, f.severity, f.finding_class, f.veto])).toEqual([
      ['src/deep.ts', 7, 'HIGH', 'correctness', false],
      ['src/inventory.ts', 23, 'HIGH', 'correctness', false],
      ['src/report.js', 32, 'HIGH', 'correctness', false],
    ]);
    const lint = parseJsonReviewerOutput('eslint', reviewPassOutputText(eslint!));
    expect(lint.findings.map((f) => f.severity)).toEqual(['HIGH', 'MEDIUM', 'LOW']);
  });
  it('two-pass: machine routings pass pass 1; the re-run verifier confirms what it re-observes', () => {
    const pass1 = twoPassPass1Output(tsc);
    const p1 = evaluatePass1(pass1);
    expect(p1.progression).toBe('verify');
    const rerun = { ...tsc, diagnostics: tsc.diagnostics.filter((d) => d.code !== 'TS2322') };
    const result = adjudicateTwoPass({ pass1, pass2: twoPassMachineVerify(p1.output, rerun) });
    expect(result.findings.map((f) => [f.id, f.verdict])).toEqual([
      [1, 'confirmed'],
      [2, 'rejected'],
      [3, 'confirmed'],
    ]);
    expect(result.p0p1_ids).toEqual([1, 3]);
  });
  it('weave: lane findings with the documented severities', () => {
    expect(weaveLaneFindings(eslint!).map((f) => f.severity)).toEqual(['Critical', 'Suggestion', 'Important']);
  });
  it('simple: findings meet the finding contract (snippet from the file)', () => {
    const texts = { 'src/deep.ts': 'a\nb\nc\nd\ne\nf\n  draw({ a: 1 });\n', 'src/inventory.ts': null, 'src/report.js': null };
    const found = simpleFindings(tsc, 'R1-TSC', texts);
    const first = SimpleFindingSchema.parse(found[0]);
    expect(first.snippet).toBe('  draw({ a: 1 });');
    expect(checkFindingContract(first).disposition).toBe('complete');
    // Without the file text there is no snippet: the contract downgrades (one gap), never accepts silently.
    expect(checkFindingContract(SimpleFindingSchema.parse(found[1])).disposition).toBe('downgraded');
  });
});
