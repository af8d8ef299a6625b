// `governed review-pass` end to end through the built CLI (GOVERNED_CLI or dist/governed.mjs), with
// scripted reviewer executables running in the real read-only sandbox: rounds to convergence with
// an arbiter and known-issue suppression, one reviewer timing out (degradation), a missing tool, a
// veto, two-pass, weave and simple; every refusal with its exact code and nothing written; no
// reviewer text on stdout/stderr; the repository never modified.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { CLI, jsonOut, runCli, type CliResult } from './helpers/cli.js';
import type { TempRepo } from './helpers/git-repo.js';
import { scriptedRepo, scriptedTool, treeDigest } from './review-pass-helpers.js';

const repos: TempRepo[] = [];
afterAll(() => {
  for (const r of repos) {
    r.cleanup();
    rmSync(outOf(r), { recursive: true, force: true });
  }
});
/** A unique output directory beside the repository (removed with it). */
const outOf = (repo: TempRepo): string => `${repo.root}-out`;

interface Run {
  readonly r: CliResult;
  readonly json: Record<string, unknown>;
  readonly out: string;
  readonly repo: TempRepo;
}

/** Run review-pass in a fresh scripted repository with this review-pass.yaml; the repository must not change. */
function reviewPass(configYaml: string, args: string[] = [], extraFiles: Record<string, string> = {}): Run {
  const repo = scriptedRepo({ 'review-pass.yaml': configYaml, ...extraFiles });
  repos.push(repo);
  const before = treeDigest(repo.root);
  const out = outOf(repo);
  const r = runCli(['review-pass', '--stage', 'development', '--out', out, '--json', ...args], { cwd: repo.root });
  expect(treeDigest(repo.root)).toBe(before); // the orchestrator never edits code
  return { r, json: jsonOut(r), out, repo };
}
const result = (run: Run): Record<string, any> => JSON.parse(readFileSync(join(run.out, 'result.json'), 'utf8'));
const report = (run: Run): string => readFileSync(join(run.out, 'report.md'), 'utf8');
const calls = (run: Run): string[] =>
  (run.json.reviewers as Array<{ round: number; purpose: string; reviewer: string; status: string; failure: string | null }>).map(
    (x) => `${x.round}:${x.purpose}:${x.reviewer}:${x.status}${x.failure ? `/${x.failure}` : ''}`,
  );

describe('review-pass protocol: rounds, convergence, degradation', () => {
  it('a solo finding the arbiter dismisses is suppressed next round; two clean rounds converge (exit 0)', () => {
    const run = reviewPass(`
tools:
  alpha: ${scriptedTool('text-clean', { prompt: 'file' })}
  beta: ${scriptedTool('text-solo', { args: ['src/app.js', '3', 'MEDIUM'] })}
  arb: ${scriptedTool('arbiter', { args: ['DISMISSED'] })}
stages:
  development: { reviewers: [alpha, beta], arbiter: arb, convergence: 2 }
`);
    expect(run.r.code).toBe(0);
    expect(run.json).toMatchObject({ ok: true, result: 'CLEAN', rounds: 2, reasons: [] });
    expect(calls(run)).toEqual(['1:review:alpha:ok', '1:review:beta:ok', '1:arbitrate:arb:ok', '2:review:alpha:ok', '2:review:beta:ok']);
    const res = result(run);
    expect(res.summary.contested_resolved).toEqual({ total: 1, by_arbiter: 1, by_user: 0 });
    expect(res.summary.suppressed).toBe(1);
    expect(res.review_log.map((e: { result: string }) => e.result)).toEqual(['CLEAN', 'CLEAN']);
    expect(report(run)).toContain('Auto-fix is out of scope');
  });
  it('the arbiter CONFIRMS the finding: NOT_CLEAN after round 1 (exit 9), never auto-fixed', () => {
    const run = reviewPass(`
tools:
  alpha: ${scriptedTool('text-clean')}
  beta: ${scriptedTool('text-solo', { args: ['src/app.js', '3', 'HIGH'] })}
  arb: ${scriptedTool('arbiter', { args: ['CONFIRMED'] })}
stages:
  development: { reviewers: [alpha, beta], arbiter: arb }
`);
    expect(run.r.code).toBe(9);
    expect(run.json).toMatchObject({ result: 'NOT_CLEAN', rounds: 1, reasons: ['review_pass_confirmed_findings'] });
    expect(result(run).confirmed).toHaveLength(1);
  });
  it('one reviewer times out every round: R-1 degradation, the others still converge (exit 0)', () => {
    const run = reviewPass(`
tools:
  alpha: ${scriptedTool('text-clean')}
  beta: ${scriptedTool('json-clean', { parse: 'json' })}
  slow: ${scriptedTool('sleep', { timeout: '1s' })}
stages:
  development: { reviewers: [alpha, beta, slow], arbiter: null }
`);
    expect(run.r.code).toBe(0);
    expect(calls(run)).toEqual([
      '1:review:alpha:ok', '1:review:beta:ok', '1:review:slow:timeout',
      '2:review:alpha:ok', '2:review:beta:ok', '2:review:slow:timeout',
    ]);
    const res = result(run);
    expect(res.r_actual).toBe(2);
    expect(res.warnings).toContain('degraded_reviewers:slow');
    expect(res.review_log[0].reviewers_unavailable).toEqual([{ slot: 'slow', reason: 'timeout' }]);
  });
  it('a missing tool and a crashing reviewer degrade; a lone reviewer needs two clean rounds', () => {
    const run = reviewPass(`
tools:
  alpha: ${scriptedTool('text-clean')}
  ghost: { command: ["governed-no-such-tool-7f3a", "--review"], parse: json }
  crash: ${scriptedTool('fail', { retries: 1 })}
stages:
  development: { reviewers: [alpha, ghost, crash], arbiter: null, convergence: 2 }
`);
    expect(run.r.code).toBe(0);
    const xs = run.json.reviewers as Array<{ reviewer: string; failure: string | null; attempts: number }>;
    expect(xs.filter((x) => x.reviewer === 'ghost').map((x) => [x.failure, x.attempts])).toEqual([['tool_missing', 0], ['tool_missing', 0]]);
    expect(xs.filter((x) => x.reviewer === 'crash').map((x) => [x.failure, x.attempts])).toEqual([['exit_code', 2], ['exit_code', 2]]);
    expect(result(run).warnings).toContain('single_reviewer_convergence:2');
  });
  // Skipped, visibly, where one of the built-in LLM CLIs is installed (then a reviewer is available).
  const llmCliInstalled = ['claude', 'gemini', 'codex', 'opencode'].some((t) => ['/usr/bin', '/usr/local/bin'].some((d) => existsSync(join(d, t))));
  it.skipIf(llmCliInstalled)('no reviewer available at all (the built-in LLM presets, none installed): NOT_CLEAN, no crash', () => {
    const repo = scriptedRepo();
    repos.push(repo);
    const r = runCli(['review-pass', '--stage', 'development', '--out', outOf(repo), '--json'], { cwd: repo.root });
    expect(r.code).toBe(9);
    expect(jsonOut(r)).toMatchObject({ result: 'NOT_CLEAN', reasons: ['review_pass_no_reviewers'], config: null });
  });
  it('a solo CRITICAL preservation finding is a VETO: never arbitrated, NOT_CLEAN', () => {
    const run = reviewPass(`
tools:
  alpha: ${scriptedTool('text-clean')}
  beta: ${scriptedTool('text-veto')}
  arb: ${scriptedTool('arbiter', { args: ['DISMISSED'] })}
stages:
  development: { reviewers: [alpha, beta], arbiter: arb }
`);
    expect(run.r.code).toBe(9);
    expect(run.json.reasons).toEqual(['review_pass_veto']);
    expect(calls(run).some((c) => c.includes('arbitrate'))).toBe(false);
  });
  it('a reviewer that tries to write the repository fails and degrades; the repository is unchanged', () => {
    const run = reviewPass(`
tools:
  alpha: ${scriptedTool('text-clean')}
  vandal: { command: ["/usr/bin/node", "-e", "require('fs').writeFileSync('/repo/src/app.js', 'pwned')"], parse: text_fallback, retries: 0 }
stages:
  development: { reviewers: [alpha, vandal], arbiter: null }
`);
    expect(calls(run).filter((c) => c.includes('vandal'))).toEqual(['1:review:vandal:failed/exit_code', '2:review:vandal:failed/exit_code']);
    expect(readFileSync(join(run.repo.root, 'src', 'app.js'), 'utf8')).toContain('export function total');
  });
  it('planning without governed mode ends NOT_CLEAN before any reviewer runs', () => {
    const repo = scriptedRepo();
    repos.push(repo);
    const r = runCli(['review-pass', '--stage', 'planning', '--out', outOf(repo), '--json'], { cwd: repo.root });
    expect(r.code).toBe(9);
    expect(jsonOut(r)).toMatchObject({ result: 'NOT_CLEAN', rounds: 0, reasons: ['review_pass_mandatory_inputs_missing'], reviewers: [] });
  });
});

describe('no reviewer text on stdout or stderr (docs/threat-model.md#rules-that-hold-everywhere)', () => {
  it('a reviewer echoing repository text and writing stderr: neither reaches governed\'s output', () => {
    const canary = 'CANARY-5b1d9e-source-text';
    const config = `
tools:
  alpha: ${scriptedTool('text-clean')}
  leaky: ${scriptedTool('canary')}
stages:
  development: { reviewers: [alpha, leaky], arbiter: null }
`;
    const run = reviewPass(config, [], { 'src/secret.txt': `${canary}\n` });
    expect(run.r.code).toBe(9);
    expect(run.r.stdout + run.r.stderr).not.toContain(canary);
    // The finding is in the report, which only its owner can read.
    expect(report(run)).toContain(canary);
    expect(statSync(join(run.out, 'report.md')).mode & 0o777).toBe(0o600);
    expect(statSync(join(run.out, 'result.json')).mode & 0o777).toBe(0o600);
    expect(statSync(run.out).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(run.out, 'executions.json'), 'utf8')).not.toContain(canary);
    // The human summary too.
    const repo = scriptedRepo({ 'review-pass.yaml': config, 'src/secret.txt': `${canary}\n` });
    repos.push(repo);
    const human = runCli(['review-pass', '--stage', 'development', '--out', outOf(repo)], { cwd: repo.root });
    expect(human.code).toBe(9);
    expect(human.stdout).toContain('report:');
    expect(human.stdout + human.stderr).not.toContain(canary);
  });
});

describe('fail closed around the sandbox', () => {
  it('a descriptor inherited without close-on-exec never reaches a reviewer', () => {
    const repo = scriptedRepo({
      'review-pass.yaml': `tools:\n  probe: ${scriptedTool('fd50')}\nstages:\n  development: { reviewers: [probe], arbiter: null }\n`,
      'secret.txt': 'inherited secret\n',
    });
    repos.push(repo);
    // The shell opens fd 50 (no close-on-exec) and execs the CLI with it.
    const r = spawnSync('/bin/bash', ['-c', 'exec 50<secret.txt; exec "$0" "$@"', process.execPath, CLI, 'review-pass', '--stage', 'development', '--out', outOf(repo), '--json'], {
      cwd: repo.root,
      encoding: 'utf8',
      env: { PATH: '/usr/bin:/bin', NO_COLOR: '1' },
    });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ result: 'CLEAN' });
  });
  it('without a usable bwrap nothing runs: orchestrator_sandbox_unavailable (exit 2)', () => {
    const repo = scriptedRepo({ 'review-pass.yaml': `tools:\n  alpha: ${scriptedTool('text-clean')}\nstages:\n  development: { reviewers: [alpha], arbiter: null }\n` });
    repos.push(repo);
    // The CLI runs in a mount namespace where /usr/bin/bwrap is /dev/null (not an executable file).
    const r = spawnSync(
      '/usr/bin/bwrap',
      ['--bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--ro-bind', '/dev/null', '/usr/bin/bwrap', '--chdir', repo.root, '--', process.execPath, CLI, 'review-pass', '--stage', 'development', '--out', outOf(repo), '--json'],
      { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', NO_COLOR: '1' } },
    );
    expect(r.status).toBe(2);
    expect(JSON.parse(r.stdout).error.code).toBe('orchestrator_sandbox_unavailable');
    expect(existsSync(outOf(repo))).toBe(false);
  });
});

describe('two-pass, weave and simple through the orchestrator', () => {
  it('two-pass: P1 found, the verifier rejects it → zero P0/P1 remain (exit 0); confirmed → exit 9', () => {
    const cfg = (verdict: string): string => `
tools:
  rev: ${scriptedTool('tp-review', { args: ['p1'], parse: 'json' })}
  ver: ${scriptedTool('tp-verify', { args: [verdict], parse: 'json' })}
protocols:
  two-pass: { reviewer: rev, verifier: ver }
`;
    const rejected = reviewPass(cfg('rejected'), ['--protocol', 'two-pass']);
    expect(rejected.r.code).toBe(0);
    expect(result(rejected)).toMatchObject({ outcome: 'all_rejected', p0p1_ids: [], rejected_ids: [1, 2] });
    const confirmed = reviewPass(cfg('confirmed'), ['--protocol', 'two-pass']);
    expect(confirmed.r.code).toBe(9);
    expect(confirmed.json).toMatchObject({ reasons: ['orchestrator_p0p1_remaining'], counts: { p0p1: 1, passes: 2 } });
  });
  it('two-pass: no P0/P1 in pass 1 → the verifier is never called', () => {
    const run = reviewPass(`
tools:
  rev: ${scriptedTool('tp-review', { args: ['clean'], parse: 'json' })}
  ver: ${scriptedTool('fail')}
protocols:
  two-pass: { reviewer: rev, verifier: ver }
`, ['--protocol', 'two-pass']);
    expect(run.r.code).toBe(0);
    expect(calls(run)).toEqual(['1:review:rev:ok']);
    expect(result(run).outcome).toBe('clean');
  });
  it('two-pass: an unusable reviewer answer or a timeout leaves the review incomplete (exit 9)', () => {
    const bad = reviewPass(`
tools:
  rev: ${scriptedTool('text-clean')}
protocols:
  two-pass: { reviewer: rev, verifier: rev }
`, ['--protocol', 'two-pass']);
    expect(bad.r.code).toBe(9);
    expect(result(bad)).toMatchObject({ schema: 'governed.review-pass-incomplete/v1', reasons: ['orchestrator_output_invalid'] });
    const slow = reviewPass(`
tools:
  rev: ${scriptedTool('sleep', { timeout: '1s' })}
protocols:
  two-pass: { reviewer: rev, verifier: rev }
`, ['--protocol', 'two-pass']);
    expect(slow.r.code).toBe(9);
    expect(result(slow).reasons).toEqual(['orchestrator_reviewer_unavailable']);
  });
  it('weave: two lanes agree on one issue, a claim about a missing file is refuted, one lane is silent', () => {
    const run = reviewPass(`
tools:
  la: ${scriptedTool('weave', { args: ['a'], parse: 'json' })}
  lb: ${scriptedTool('weave', { args: ['b'], parse: 'json' })}
  lc: ${scriptedTool('weave', { args: ['none'], parse: 'json' })}
protocols:
  weave: { reviewers: [la, lb, lc] }
`, ['--protocol', 'weave']);
    expect(run.r.code).toBe(9);
    const res = result(run);
    expect(res.lanes).toBe(3);
    expect(res.findings).toHaveLength(1);
    expect(res.findings[0]).toMatchObject({ agree_count: 2, level: 'majority', final_severity: 'Critical', promoted: true, verification: 'plausible-unverified' });
    expect(res.refuted).toHaveLength(1);
    expect(res.refuted[0]).toMatchObject({ file: 'src/gone.js', verification: 'false' });
    expect(Object.values(res.label_map).sort()).toEqual(['la', 'lb', 'lc']);
  });
  it('weave: a lane that times out makes the synthesis degraded, never clean', () => {
    const run = reviewPass(`
tools:
  la: ${scriptedTool('weave', { args: ['none'], parse: 'json' })}
  slow: ${scriptedTool('sleep', { timeout: '1s' })}
protocols:
  weave: { reviewers: [la, slow] }
`, ['--protocol', 'weave']);
    expect(run.r.code).toBe(9);
    expect(run.json.reasons).toEqual(['orchestrator_weave_lane_unavailable']);
    expect(result(run).unavailable).toEqual([{ participant: 'slow', failure: 'timeout' }]);
  });
  it('simple: same issue linked, a fabricated snippet rebutted by the lead, one rebuttal round', () => {
    const run = reviewPass(`
tools:
  sa: ${scriptedTool('simple', { args: ['a'], parse: 'json' })}
  sb: ${scriptedTool('simple', { args: ['b'], parse: 'json' })}
protocols:
  simple: { pair: [sa, sb] }
`, ['--protocol', 'simple', '--files', 'src/app.js']);
    expect(run.r.code).toBe(9);
    const res = result(run);
    expect(res.recommendation).toBe('CHANGES_ADVISED');
    const status = Object.fromEntries(res.findings.map((f: { finding_id: string; status: string }) => [f.finding_id, f.status]));
    expect(status).toEqual({ 'R1-SA-001': 'ACCEPTED', 'R1-SB-001': 'ACCEPTED', 'R1-SB-002': 'REBUTTED' });
    expect(calls(run)).toEqual(['1:review:sa:ok', '1:review:sb:ok', '2:rebuttal:sb:ok']);
    expect(report(run)).toContain('Final decision: USER_DECISION_REQUIRED');
  });
});

describe('refusals: exact code, nothing written', () => {
  const GOOD = `tools:\n  alpha: ${scriptedTool('text-clean')}\nstages:\n  development: { reviewers: [alpha], arbiter: null }\n`;
  function refused(args: string[], code: string, exit: number, configYaml = GOOD): void {
    const repo = scriptedRepo({ 'review-pass.yaml': configYaml });
    repos.push(repo);
    const out = outOf(repo);
    const r = runCli(['review-pass', '--out', out, '--json', ...args], { cwd: repo.root });
    expect(r.code).toBe(exit);
    expect((jsonOut(r).error as { code: string }).code).toBe(code);
    expect(r.stderr).toContain(code);
    expect(existsSync(out)).toBe(false);
  }
  const UNIT = `UNIT-${'ab'.repeat(16)}`;
  it.each([
    [['--stage', 'development', '--unit', 'UNIT-xyz'], 'orchestrator_unit_invalid', 2],
    [['--stage', 'development', '--unit', UNIT, '--protocol', 'two-pass'], 'orchestrator_protocol_not_governed', 2],
    [['--stage', 'development', '--unit', UNIT, '--protocol', 'simple'], 'orchestrator_protocol_not_governed', 2],
    [['--stage', 'development', '--unit', UNIT, '--config', 'review-pass.yaml'], 'orchestrator_governed_config_refused', 2],
    [['--stage', 'development', '--unit', UNIT, '--light'], 'review_pass_light_forbidden_governed', 2],
    [['--stage', 'development', '--unit', UNIT, '--files', '../outside'], 'orchestrator_files_invalid', 2],
    [['--stage', 'development', '--unit', UNIT], 'orchestrator_governed_runner_unavailable', 8],
    [['--stage', 'integration', '--unit', UNIT, '--protocol', 'weave', '--files', 'src/app.js'], 'orchestrator_governed_runner_unavailable', 8],
    [['--stage', 'development', '--files', '../etc/passwd'], 'orchestrator_files_invalid', 2],
    [['--stage', 'development', '--files', 'src/missing.js'], 'orchestrator_files_invalid', 2],
    [['--stage', 'development', '--repo', '/nonexistent/governed-repo'], 'orchestrator_repo_invalid', 2],
    [['--stage', 'development', '--config', 'nope.yaml'], 'orchestrator_config_unreadable', 2],
    [['--stage', 'planning', '--light'], 'review_pass_light_forbidden_stage', 2],
    [['--stage', 'development', '--protocol', 'simple'], 'orchestrator_protocol_reviewers_invalid', 2],
  ] as const)('%j → %s', (args, code, exit) => refused([...args], code, exit));
  it.each([
    ['prompt in argv', 'orchestrator_prompt_in_argv', 'tools:\n  x: { command: ["gemini", "-p", "{prompt}"], parse: json }\n'],
    ['unknown key', 'orchestrator_config_invalid', 'tools:\n  x: { command: ["/usr/bin/true"], parse: json, shell: "sh -c" }\n'],
    ['convergence below the floor', 'review_pass_convergence_below_floor', `${GOOD.replace('arbiter: null', 'arbiter: null, convergence: 1')}`],
    ['weave lane twice', 'orchestrator_protocol_reviewers_invalid', `tools:\n  la: ${scriptedTool('weave')}\nprotocols:\n  weave: { reviewers: [la, la] }\n`],
    ['machine verifier of another reviewer', 'orchestrator_protocol_reviewers_invalid', `tools:\n  rev: ${scriptedTool('tp-review', { parse: 'json' })}\nprotocols:\n  two-pass: { reviewer: rev, verifier: tsc }\n`],
  ])('config: %s → %s', (_n, code, yaml) => {
    const protocol = code === 'orchestrator_protocol_reviewers_invalid' ? (yaml.includes('weave') ? 'weave' : 'two-pass') : 'review-pass';
    refused(['--stage', 'development', '--protocol', protocol], code, 2, yaml);
  });
  it('an output directory holding a result is never overwritten', () => {
    const repo = scriptedRepo({ 'review-pass.yaml': GOOD });
    repos.push(repo);
    const out = outOf(repo);
    mkdirSync(out);
    writeFileSync(join(out, 'report.md'), 'previous report\n');
    const r = runCli(['review-pass', '--stage', 'development', '--out', out, '--json'], { cwd: repo.root });
    expect(r.code).toBe(2);
    expect((jsonOut(r).error as { code: string }).code).toBe('orchestrator_out_invalid');
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toBe('previous report\n');
    expect(existsSync(join(out, 'result.json'))).toBe(false);
  });
  it('commander usage errors exit 2; --help documents inputs and exit codes', () => {
    expect(runCli(['review-pass', '--stage', 'bogus']).code).toBe(2);
    expect(runCli(['review-pass']).code).toBe(2);
    const help = runCli(['review-pass', '--help']);
    expect(help.code).toBe(0);
    for (const word of ['--protocol', '--stage', '--files', '--config', '--out', '--unit', 'Exit codes', '0 CLEAN', '9 NOT_CLEAN', 'never edits code']) {
      expect(help.stdout.replace(/\s+/g, ' ')).toContain(word);
    }
  });
});
