// Governed review-pass (docs/review-pass.md#review-protocols, docs/review-pass.md#governed-mode---unit) end to end through the BUILT CLI (GOVERNED_CLI for a
// private build): a real git repository and SQLite store (test/run-helpers.ts), the real bundled
// attestor, real bubblewrap, and as reviewers the scripted run fixture (CLEAN / DIRTY by policy env)
// and the real coverage reviewer (runner/reviewers/coverage.mjs). Every reviewer call must leave a
// real challenge, run and receipt in the store; stdout never carries reviewer output.
import { copyFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonOut, REPO_ROOT, type CliResult } from './helpers/cli.js';
import { cleanupDirs, tempDir } from './state-helpers.js';
import { countRows, currentPolicy, expectLogSound, expectNoSecrets, gov, makeRunWorld, readDb, sha256, storeDigest, updatePin, type RunWorld } from './run-helpers.js';

const COVERAGE = join(REPO_ROOT, 'runner', 'reviewers', 'coverage.mjs');

afterAll(() => cleanupDirs());

function reviewPass(w: RunWorld, extra: readonly string[], out = join(tempDir('governed-rp-out-'), 'out')): { r: CliResult; out: string } {
  const r = gov(w, [
    'review-pass',
    '--unit',
    w.unit,
    '--stage',
    'development',
    '--writer-session',
    'agent-1',
    '--reviewers-dir',
    w.reviewersDir,
    '--attestors',
    w.attestorsDir,
    '--out',
    out,
    '--json',
    ...extra,
  ]);
  expectNoSecrets(r);
  return { r, out };
}

/** Receipts of the unit as the store holds them: run id → verdict. */
function receipts(w: RunWorld): Map<string, string> {
  const db = readDb(w);
  try {
    const rows = db.prepare('SELECT run_id, verdict FROM receipts WHERE unit = ?').all(w.unit) as { run_id: string; verdict: string }[];
    return new Map(rows.map((x) => [x.run_id, x.verdict]));
  } finally {
    db.close();
  }
}

interface Out {
  ok: boolean;
  mode: string;
  result: string;
  reasons: string[];
  advisory: boolean;
  streak: number;
  slots: string[];
  rounds: number;
  clean_rounds: number;
  runs: { round: number; slot: string; verdict: string; run_id: string; receipt_id: string | null; error: string | null }[];
  finding_groups: number;
  files: { result: string; report: string };
}

describe('governed review-pass over real review-runs', () => {
  it('CLEAN rounds up to the policy streak (2): one receipt per slot per round, exit 0', async () => {
    const w = await makeRunWorld({ modes: ['clean'] });
    const { r } = reviewPass(w, ['--files', 'src/export.ts']);
    expect(r.code).toBe(0);
    const out = jsonOut(r) as unknown as Out;
    expect(out.runs.map((x) => `${x.round}:${x.slot}:${x.verdict}`)).toEqual(['1:clean:CLEAN', '2:clean:CLEAN']);
    expect(out).toMatchObject({ ok: true, mode: 'governed', result: 'CLEAN', reasons: [], advisory: true, streak: 2, slots: ['clean'], rounds: 2, clean_rounds: 2, finding_groups: 0 });
    const stored = receipts(w);
    expect(stored.size).toBe(2);
    for (const x of out.runs) expect(stored.get(x.run_id)).toBe('CLEAN');
    // The seed-shaped engine result (the same schema non-governed mode writes) plus the governed section.
    const result = JSON.parse(readFileSync(out.files.result, 'utf8')) as {
      schema: string;
      result: string;
      convergence: { threshold: number; consecutive_clean: number };
      governed: { advisory: boolean; focus_files: string[]; runs: { run_id: string; receipt_id: string; challenge_id: string }[] };
    };
    expect(result).toMatchObject({ schema: 'governed.review-pass-result/v1', mode: 'governed', result: 'CLEAN', convergence: { threshold: 2, consecutive_clean: 2 } });
    expect(result.governed).toMatchObject({ advisory: true, focus_files: ['src/export.ts'] });
    expect(result.governed.runs.map((x) => x.run_id)).toEqual(out.runs.map((x) => x.run_id));
    expect(result.governed.runs.map((x) => x.receipt_id)).toEqual(out.runs.map((x) => x.receipt_id));
    const report = readFileSync(out.files.report, 'utf8');
    expect(report).toContain('## Review Pass Report');
    expect(report).toContain('### Reviewer Health Scores');
    expect(report).toContain('decided by governed status / governed gate (docs/decision.md#the-rules-in-short)');
    for (const x of out.runs) expect(report).toContain(`| ${x.run_id} | ${x.receipt_id} | CLEAN |`);
    expect(statSync(out.files.result).mode & 0o777).toBe(0o600);
    expectLogSound(w);
  }, 60_000);

  it('the real coverage reviewer (runner/reviewers/coverage.mjs) as a policy slot: its real DIRTY receipt ends the review NOT_CLEAN', async () => {
    const w = await makeRunWorld({ modes: ['clean'] });
    copyFileSync(COVERAGE, join(w.reviewersDir, 'coverage.mjs'));
    const policy = currentPolicy(w) as { reviewers: Record<string, unknown>; stages: Record<string, unknown> };
    policy.reviewers.coverage = { sha256: sha256(readFileSync(COVERAGE)), interpreter: '/usr/bin/node', env: {} };
    policy.stages.development = { required: false, streak: 2, slots: { coverage: 'coverage', clean: 'clean' } };
    updatePin(w, 'policy', policy);
    const { r } = reviewPass(w, []);
    expect(r.code).toBe(9);
    const out = jsonOut(r) as unknown as Out;
    // The coverage reviewer judges the run world's real bundle and reports a real gap (its own rules).
    expect(out.runs.map((x) => `${x.round}:${x.slot}:${x.verdict}`)).toEqual(['1:clean:CLEAN', '1:coverage:DIRTY']);
    expect(out).toMatchObject({ ok: false, result: 'NOT_CLEAN', slots: ['clean', 'coverage'], rounds: 1 });
    expect(out.reasons).toContain('orchestrator_governed_dirty');
    const stored = receipts(w);
    expect(stored.size).toBe(2);
    for (const x of out.runs) expect(stored.get(x.run_id)).toBe(x.verdict);
    // Adjudicated by the review-pass engine: one reviewer of two (R=2) is never CONFIRMED alone, so
    // every group it reports is an escalation (or a veto) supported by the coverage slot only.
    const result = JSON.parse(readFileSync(out.files.result, 'utf8')) as {
      escalations: { supporters: string[] }[];
      vetoes: { supporters: string[] }[];
      confirmed: unknown[];
      governed: { runs: { slot: string; findings: unknown[] }[] };
    };
    const groups = [...result.escalations, ...result.vetoes];
    expect(groups.length).toBeGreaterThan(0);
    expect(result.confirmed).toEqual([]);
    for (const g of groups) expect(g.supporters).toEqual(['coverage']);
    expect(result.governed.runs.find((x) => x.slot === 'coverage')?.findings.length).toBeGreaterThan(0);
    expect(out.finding_groups).toBe(groups.length);
    expectLogSound(w);
  }, 60_000);

  it('DIRTY: the round finishes every slot, then stops NOT_CLEAN (exit 9) with the findings adjudicated by code and refs', async () => {
    const w = await makeRunWorld({ modes: ['clean', 'dirty'] });
    const { r } = reviewPass(w, ['--protocol', 'weave']);
    expect(r.code).toBe(9);
    const out = jsonOut(r) as unknown as Out;
    expect(out.runs.map((x) => `${x.round}:${x.slot}:${x.verdict}`)).toEqual(['1:clean:CLEAN', '1:dirty:DIRTY']);
    expect(out).toMatchObject({ result: 'NOT_CLEAN', reasons: ['orchestrator_governed_dirty', 'orchestrator_weave_findings'], rounds: 1, clean_rounds: 0 });
    expect(out.finding_groups).toBe(2);
    expect(countRows(w, 'receipts')).toBe(2);
    // The weave engine's shape: blind labels, consensus per issue (one of two lanes, the other silent).
    const result = JSON.parse(readFileSync(out.files.result, 'utf8')) as {
      schema: string;
      lanes: number;
      label_map: Record<string, string>;
      findings: { level: string; agree: { label: string }[]; silent: string[]; file: null; line: null; verification: string }[];
    };
    expect(result).toMatchObject({ schema: 'governed.weave-result/v1', lanes: 2 });
    expect(Object.values(result.label_map).sort()).toEqual(['clean', 'dirty']);
    const dirtyLabel = Object.entries(result.label_map).find(([, p]) => p === 'dirty')?.[0];
    expect(result.findings).toHaveLength(2);
    for (const f of result.findings) {
      expect(f).toMatchObject({ level: 'single', file: null, line: null, verification: 'plausible-unverified' });
      expect(f.agree.map((a) => a.label)).toEqual([dirtyLabel]);
      expect(f.silent).toHaveLength(1);
    }
    expectLogSound(w);
  }, 60_000);
});

describe('the governed budget guards', () => {
  it('the policy run budget (max_runs_per_content) refuses round 2: NOT_CLEAN, the engine halted, nothing half-recorded', async () => {
    const w = await makeRunWorld({ modes: ['clean'], maxRuns: 1 });
    const { r } = reviewPass(w, []);
    expect(r.code).toBe(9);
    const out = jsonOut(r) as unknown as Out;
    expect(out.runs.map((x) => `${x.round}:${x.slot}:${x.verdict}`)).toEqual(['1:clean:CLEAN']);
    expect(out).toMatchObject({ result: 'NOT_CLEAN', reasons: ['orchestrator_governed_budget_exhausted', 'review_pass_halted'], rounds: 1, clean_rounds: 1 });
    const result = JSON.parse(readFileSync(out.files.result, 'utf8')) as { result: string; rounds: number; governed: { governed_reasons: string[] } };
    expect(result).toMatchObject({ result: 'NOT_CLEAN', rounds: 1, governed: { governed_reasons: ['orchestrator_governed_budget_exhausted'] } });
    expect(countRows(w, 'receipts')).toBe(1);
    expectLogSound(w);
  }, 60_000);

  it('weave: the same budget refusal leaves one clean synthesis, never a clean result', async () => {
    const w = await makeRunWorld({ modes: ['clean'], maxRuns: 1 });
    const { r } = reviewPass(w, ['--protocol', 'weave']);
    expect(r.code).toBe(9);
    const out = jsonOut(r) as unknown as Out;
    expect(out).toMatchObject({ result: 'NOT_CLEAN', reasons: ['orchestrator_governed_budget_exhausted'], rounds: 1, clean_rounds: 1 });
    const result = JSON.parse(readFileSync(out.files.result, 'utf8')) as { schema: string; findings: unknown[]; governed: { result: string } };
    expect(result).toMatchObject({ schema: 'governed.weave-result/v1', findings: [], governed: { result: 'NOT_CLEAN' } });
  }, 60_000);

  it('a policy streak beyond the seed budget guard (8 rounds): orchestrator_governed_streak_unreachable (2) before any challenge', async () => {
    const w = await makeRunWorld({ modes: ['clean'] });
    const policy = currentPolicy(w) as { stages: Record<string, { streak: number }> };
    (policy.stages.development as { streak: number }).streak = 9;
    updatePin(w, 'policy', policy);
    const before = storeDigest(w);
    const out = join(tempDir('governed-rp-out-'), 'out');
    const { r } = reviewPass(w, [], out);
    expect({ code: (jsonOut(r).error as { code: string }).code, exit: r.code }).toEqual({ code: 'orchestrator_governed_streak_unreachable', exit: 2 });
    expect(storeDigest(w)).toBe(before);
    expect(existsSync(out)).toBe(false);
  }, 60_000);
});

describe('refusals: exact code, store unchanged, nothing written', () => {
  it.each([
    [['--protocol', 'two-pass'], 'orchestrator_protocol_not_governed', 2],
    [['--protocol', 'simple'], 'orchestrator_protocol_not_governed', 2],
    [['--config', 'review-pass.yaml'], 'orchestrator_governed_config_refused', 2],
    [['--light'], 'review_pass_light_forbidden_governed', 2],
    [['--files', '../outside'], 'orchestrator_files_invalid', 2],
    [['--files', 'src/missing.ts'], 'orchestrator_files_invalid', 2],
    [['--writer-session', 'nobody'], 'writer_not_registered', 8],
  ] as const)('%j → %s', async (args, code, exit) => {
    const w = await sharedWorld();
    const before = storeDigest(w);
    const out = join(tempDir('governed-rp-out-'), 'out');
    const r = gov(w, ['review-pass', '--unit', w.unit, '--stage', 'development', '--writer-session', 'agent-1', '--reviewers-dir', w.reviewersDir, '--attestors', w.attestorsDir, '--out', out, '--json', ...args]);
    expectNoSecrets(r);
    expect({ code: (jsonOut(r).error as { code: string }).code, exit: r.code }).toEqual({ code, exit });
    expect(storeDigest(w)).toBe(before);
    expect(existsSync(out)).toBe(false);
  });

  it('no --writer-session: orchestrator_governed_runner_unavailable (8), nothing run', async () => {
    const w = await sharedWorld();
    const before = storeDigest(w);
    const r = gov(w, ['review-pass', '--unit', w.unit, '--stage', 'development', '--json']);
    expect({ code: (jsonOut(r).error as { code: string }).code, exit: r.code }).toEqual({ code: 'orchestrator_governed_runner_unavailable', exit: 8 });
    expect(storeDigest(w)).toBe(before);
  });

  it('a stage the policy does not list: stage_not_in_policy (2)', async () => {
    const w = await sharedWorld();
    const before = storeDigest(w);
    const r = gov(w, ['review-pass', '--unit', w.unit, '--stage', 'test', '--writer-session', 'agent-1', '--json']);
    expect({ code: (jsonOut(r).error as { code: string }).code, exit: r.code }).toEqual({ code: 'stage_not_in_policy', exit: 2 });
    expect(storeDigest(w)).toBe(before);
  });
});

let shared: Promise<RunWorld> | undefined;
function sharedWorld(): Promise<RunWorld> {
  shared ??= makeRunWorld({ modes: ['clean'] });
  return shared;
}
