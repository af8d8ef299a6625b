// A non-governed reviewer that fails says how it ended (exit status class) instead of only "health 0, consider different model"; --tool-log DIR keeps each attempt's stderr in 0600 files (DIR 0700, exclusive create) and that text never reaches stdout, report.md, result.json or executions.json.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonOut, runCli, type CliResult } from './helpers/cli.js';
import type { TempRepo } from './helpers/git-repo.js';
import { sampleRepoCopy, scriptedRepo, scriptedTool } from './review-pass-helpers.js';
import { governedToolsDir } from '../src/flows/review-pass/index.js';
import { exitClassOf } from '../src/flows/review-pass/run-reviewer.js';

const CANARY = 'CANARY-tool-stderr-4e1f0a';
const repos: TempRepo[] = [];
const dirs: string[] = [];
afterAll(() => {
  for (const r of repos) r.cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const scratch = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'governed-tool-log-'));
  dirs.push(d);
  return d;
};

interface Run {
  readonly r: CliResult;
  readonly out: string;
  readonly outputs: string;
}

function review(repo: TempRepo, args: string[]): Run {
  const out = join(scratch(), 'out');
  const r = runCli(['review-pass', '--stage', 'development', '--out', out, '--json', ...args], { cwd: repo.root });
  const outputs = ['result.json', 'report.md', 'executions.json'].map((f) => readFileSync(join(out, f), 'utf8')).join('\n');
  return { r, out, outputs };
}

// The reviewer runs as pid 1 of its namespace, which ignores signals it sends itself; a real fault
// (SIGSEGV from a null read) is forced by the kernel and kills it: bwrap reports 128 + 11.
const KILLED = `{ command: ${JSON.stringify([
  '/usr/bin/python3',
  '-c',
  "import sys, ctypes; sys.stderr.write('tool stderr before the fault ' + open('/repo/src/secret.txt').read()); sys.stderr.flush(); ctypes.string_at(0)",
])}, parse: text_fallback, timeout: 20s, retries: 0, prompt: none }`;

const CONFIG = `
tools:
  loud: ${scriptedTool('stderr-fail')}
  killed: ${KILLED}
  fine: ${scriptedTool('text-clean')}
stages:
  development: { reviewers: [loud, killed, fine], arbiter: null }
`;

describe('exit status classes (pure)', () => {
  it('classifies every way a sandboxed tool can end', () => {
    expect(exitClassOf({ status: 'exited', exitCode: 0 })).toBe('exited_zero');
    expect(exitClassOf({ status: 'exited', exitCode: 2 })).toBe('exited_nonzero');
    expect(exitClassOf({ status: 'exited', exitCode: 128 })).toBe('exited_nonzero');
    expect(exitClassOf({ status: 'exited', exitCode: 137 })).toBe('killed_by_signal');
    expect(exitClassOf({ status: 'exited', exitCode: 193 })).toBe('exited_nonzero');
    expect(exitClassOf({ status: 'timeout', exitCode: null })).toBe('timed_out');
    expect(exitClassOf({ status: 'output_cap', exitCode: null })).toBe('output_capped');
    expect(exitClassOf({ status: 'sandbox_failed', exitCode: null })).toBe('sandbox_failed');
  });
});

describe('a failing tool says why', () => {
  it('without --tool-log: exit classes in stdout, report and executions.json; stderr nowhere; the report offers --tool-log', () => {
    const repo = scriptedRepo({ 'review-pass.yaml': CONFIG, 'src/secret.txt': `${CANARY}\n` });
    repos.push(repo);
    const run = review(repo, []);
    expect([0, 9]).toContain(run.r.code); // the engine degrades around the two failed reviewers
    const classes = (jsonOut(run.r).reviewers as { reviewer: string; exit_class: string }[]).map((x) => [x.reviewer, x.exit_class]);
    expect(classes.slice(0, 3)).toEqual([['loud', 'exited_nonzero'], ['killed', 'killed_by_signal'], ['fine', 'exited_zero']]);
    const report = readFileSync(join(run.out, 'report.md'), 'utf8');
    expect(report).toContain('| exited non-zero |');
    expect(report).toContain('| killed by signal |');
    expect(report).toContain('Run again with `--tool-log DIR`');
    expect(JSON.parse(readFileSync(join(run.out, 'executions.json'), 'utf8')).executions.map((x: { exit_class: string }) => x.exit_class).slice(0, 3)).toEqual([
      'exited_nonzero',
      'killed_by_signal',
      'exited_zero',
    ]);
    expect(run.r.stdout + run.r.stderr + run.outputs).not.toContain(CANARY);
  });

  it('with --tool-log DIR: stderr reaches 0600 files in a 0700 DIR, and only them', () => {
    const repo = scriptedRepo({ 'review-pass.yaml': CONFIG, 'src/secret.txt': `${CANARY}\n` });
    repos.push(repo);
    const log = join(scratch(), 'tool-log');
    const run = review(repo, ['--tool-log', log]);
    expect([0, 9]).toContain(run.r.code);
    expect(run.r.stdout + run.r.stderr + run.outputs).not.toContain(CANARY);
    expect(readFileSync(join(run.out, 'report.md'), 'utf8')).toContain('stderr is in the --tool-log directory');
    expect(statSync(log).mode & 0o777).toBe(0o700);
    const ids = (JSON.parse(readFileSync(join(run.out, 'executions.json'), 'utf8')).executions as { reviewer: string; execution_id: string }[]).map(
      (x) => [x.reviewer, x.execution_id] as const,
    );
    const files = readdirSync(log).sort();
    expect(files).toEqual(ids.map(([, id]) => `${id}-1.stderr`).sort());
    for (const f of files) expect(statSync(join(log, f)).mode & 0o777).toBe(0o600);
    const text = (reviewer: string): string => readFileSync(join(log, `${ids.find(([r]) => r === reviewer)?.[1]}-1.stderr`), 'utf8');
    expect(text('loud')).toBe(`tool stderr ${CANARY}\n`);
    expect(text('killed')).toContain(CANARY);
    expect(text('fine')).toBe('');
  });

  it('refusals before any reviewer runs: an unsafe or taken --tool-log directory (orchestrator_tool_log_invalid, 2)', () => {
    const repo = scriptedRepo({ 'review-pass.yaml': CONFIG, 'src/secret.txt': `${CANARY}\n` });
    repos.push(repo);
    const base = scratch();
    const open = join(base, 'open');
    mkdirSync(open, { mode: 0o700 });
    chmodSync(open, 0o755);
    const link = join(base, 'link');
    const real = join(base, 'real');
    mkdirSync(real, { mode: 0o700 });
    symlinkSync(real, link);
    const file = join(base, 'file');
    writeFileSync(file, '');
    for (const dir of [open, link, file, join(base, 'missing', 'nested')]) {
      const out = join(scratch(), 'out');
      const r = runCli(['review-pass', '--stage', 'development', '--out', out, '--json', '--tool-log', dir], { cwd: repo.root });
      expect(r.code, dir).toBe(2);
      expect(jsonOut(r), dir).toMatchObject({ ok: false, error: { code: 'orchestrator_tool_log_invalid' } });
      expect(readdirSync(real)).toEqual([]);
    }
    // governed mode has no tool log (its reviewers run through review-run)
    const g = runCli(['review-pass', '--stage', 'development', '--unit', `UNIT-${'0'.repeat(32)}`, '--tool-log', join(base, 'g'), '--json'], { cwd: repo.root });
    expect(jsonOut(g)).toMatchObject({ error: { code: 'orchestrator_tool_log_invalid' } });
  });
});

describe.skipIf(governedToolsDir() === null)('real ESLint without a configuration', () => {
  it('is reported "exited non-zero" with its stderr in the tool log only', () => {
    const repo = sampleRepoCopy();
    repos.push(repo);
    rmSync(join(repo.root, 'eslint.config.mjs'));
    repo.commitAll('no eslint config');
    writeFileSync(join(repo.root, 'review-pass.yaml'), 'tools:\n  eslint: { preset: eslint }\nstages:\n  development: { reviewers: [eslint], arbiter: null }\n');
    const log = join(scratch(), 'eslint-log');
    const run = review(repo, ['--tool-log', log]);
    expect(run.r.code).toBe(9);
    const x = (jsonOut(run.r).reviewers as { exit_class: string; exit_code: number }[])[0];
    expect(x).toMatchObject({ exit_class: 'exited_nonzero', exit_code: 2 });
    const [f] = readdirSync(log);
    const stderr = readFileSync(join(log, f as string), 'utf8');
    expect(stderr).toMatch(/eslint\.config/);
    expect(run.r.stdout + run.outputs).not.toContain(stderr.trim().split('\n')[0] as string);
  });
});
