// Governed review-pass (SPEC §12, issue 6 item 3) end to end through the BUILT CLI (GOVERNED_CLI for a
// private build): a real git repository and SQLite store (test/run-helpers.ts), the real bundled
// attestor, real bubblewrap, and as reviewers the scripted run fixture (CLEAN / DIRTY by policy env)
// and the real coverage reviewer (runner/reviewers/coverage.mjs). Every reviewer call must leave a
// real challenge, run and receipt in the store; stdout never carries reviewer output.
import { copyFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonOut, REPO_ROOT, type CliResult } from './helpers/cli.js';
import { cleanupDirs, tempDir } from './issue-helpers.js';
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
    const result = JSON.parse(readFileSync(out.files.result, 'utf8')) as { advisory: boolean; focus_files: string[]; runs: unknown[] };
    expect(result).toMatchObject({ advisory: true, focus_files: ['src/export.ts'] });
    expect(result.runs).toHaveLength(2);
    expect(readFileSync(out.files.report, 'utf8')).toContain('decided by governed status / gate (SPEC §10)');
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
    expect(out).toMatchObject({ ok: false, result: 'NOT_CLEAN', reasons: ['orchestrator_governed_dirty'], slots: ['clean', 'coverage'], rounds: 1 });
    const stored = receipts(w);
    expect(stored.size).toBe(2);
    for (const x of out.runs) expect(stored.get(x.run_id)).toBe(x.verdict);
    const result = JSON.parse(readFileSync(out.files.result, 'utf8')) as { findings: { supporters: string[]; consensus: null }[] };
    expect(result.findings.length).toBeGreaterThan(0);
    for (const f of result.findings) expect(f).toMatchObject({ supporters: ['coverage'], consensus: null });
    expectLogSound(w);
  }, 60_000);

  it('DIRTY: the round finishes every slot, then stops NOT_CLEAN (exit 9) with the findings adjudicated by code and refs', async () => {
    const w = await makeRunWorld({ modes: ['clean', 'dirty'] });
    const { r } = reviewPass(w, ['--protocol', 'weave']);
    expect(r.code).toBe(9);
    const out = jsonOut(r) as unknown as Out;
    expect(out.runs.map((x) => `${x.round}:${x.slot}:${x.verdict}`)).toEqual(['1:clean:CLEAN', '1:dirty:DIRTY']);
    expect(out).toMatchObject({ result: 'NOT_CLEAN', reasons: ['orchestrator_governed_dirty'], rounds: 1, clean_rounds: 0 });
    expect(out.finding_groups).toBeGreaterThan(0);
    expect(countRows(w, 'receipts')).toBe(2);
    const result = JSON.parse(readFileSync(out.files.result, 'utf8')) as { findings: { code: string; refs: string[]; supporters: string[]; consensus: string }[] };
    for (const f of result.findings) {
      expect(f.supporters).toEqual(['dirty']);
      expect(f.consensus).toBe('single');
      expect(f.refs.length).toBeGreaterThan(0);
    }
    expectLogSound(w);
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
