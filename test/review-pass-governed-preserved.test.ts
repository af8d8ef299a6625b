// Governed review-pass on a PRESERVED unit (docs/review-pass.md, docs/preservation.md#what-a-reviewer-sees-and-what-a-probe-proves)
// through the built CLI, with real bubblewrap, the real attestor and real receipts: a policy that
// REQUIRES preservation, planning stage (a role stage, so the engine's product-preservation preflight
// applies).
//   - no preservation contract bound: the preflight's preservation inputs are missing, so the review
//     starts and ends NOT_CLEAN (review_pass_mandatory_inputs_missing) and no challenge is issued;
//   - a contract bound whose every surface has its evidence: the preflight counts the bound contract
//     and its incident history, the rounds run (real challenges, runs and receipts),
//     and the result is CLEAN;
//   - a contract bound with a surface that has no evidence (a preserve surface never probed): the
//     first challenge whose view shows the section is refused with preservation_surface_unreviewable
//     (8) naming the surface, and the store is unchanged (nothing recorded).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOut, type CliResult } from './helpers/cli.js';
import { cleanupDirs, tempDir, writeJsonFile } from './state-helpers.js';
import { countRows, currentPolicy, expectLogSound, expectNoSecrets, gov, govOk, makeRunWorld, readDb, storeDigest, updatePin, type RunWorld } from './run-helpers.js';

const IS_ROOT = process.geteuid?.() === 0;
const ROLES = ['source_fidelity', 'baseline_preservation', 'implementation_test', 'authority_release'];

afterAll(() => cleanupDirs());

function reviewPass(w: RunWorld): CliResult {
  const out = join(tempDir('gvd-pres4-rp-out-'), 'out');
  const r = gov(w, ['review-pass', '--unit', w.unit, '--stage', 'planning', '--writer-session', 'agent-1', '--reviewers-dir', w.reviewersDir, '--attestors', w.attestorsDir, '--out', out, '--json']);
  expectNoSecrets(r);
  return r;
}

/** A run world whose policy requires preservation and lists planning with the four roles (the scripted CLEAN reviewer in each). */
async function preservedWorld(): Promise<RunWorld> {
  const w = await makeRunWorld({ modes: ['clean'] });
  const policy = currentPolicy(w) as Record<string, unknown> & { stages: Record<string, unknown> };
  policy.preservation = 'required';
  policy.stages.planning = { required: true, streak: 2, slots: Object.fromEntries(ROLES.map((r) => [r, 'clean'])) };
  updatePin(w, 'policy', policy);
  return w;
}

function bind(w: RunWorld, surfaces: Record<string, unknown>[]): void {
  const contract = { kind: 'governed/preservation-contract', version: 1, baseline: w.baseline, intent: 'Keep the export module and its runbook.', surfaces, vendor_sources: [] };
  govOk(w, ['preservation', 'set', '--unit', w.unit, '--contract', writeJsonFile(join(tempDir('gvd-pres4-rp-c-'), 'preservation.json'), contract)]);
}

const RUNBOOK = { id: 'SURF-rb', kind: 'other', na_reason: 'an operations runbook: nothing to run', paths: ['requests'], disposition: 'preserve', baseline_evidence_id: 'EVD-rb-b', current_evidence_id: 'EVD-rb-c' };
const EXPORT = { id: 'SURF-exp', kind: 'library_export', paths: ['src'], disposition: 'preserve', probe: 'export:.', baseline_evidence_id: 'EVD-exp-b', current_evidence_id: 'EVD-exp-c' };

interface Out {
  ok: boolean;
  result: string;
  reasons: string[];
  rounds: number;
  runs: { round: number; slot: string; verdict: string; run_id: string }[];
  files: { result: string; report: string };
}

let unbound: RunWorld;
let bound: RunWorld;
let unreviewable: RunWorld;
beforeAll(async () => {
  if (!IS_ROOT) return;
  unbound = await preservedWorld();
  bound = await preservedWorld();
  bind(bound, [RUNBOOK]);
  unreviewable = await preservedWorld();
  bind(unreviewable, [RUNBOOK, EXPORT]);
}, 180_000);

describe.skipIf(!IS_ROOT)('governed review-pass on a unit whose policy requires preservation (planning)', () => {
  it('no contract bound: the preflight misses the preservation inputs → NOT_CLEAN review_pass_mandatory_inputs_missing, no challenge issued', () => {
    const before = countRows(unbound, 'runs');
    const r = reviewPass(unbound);
    const out = jsonOut(r) as unknown as Out;
    expect({ exit: r.code, result: out.result, runs: out.runs.length }).toEqual({ exit: 9, result: 'NOT_CLEAN', runs: 0 });
    expect(out.reasons).toContain('review_pass_mandatory_inputs_missing');
    expect(countRows(unbound, 'runs')).toBe(before);
    const db = readDb(unbound);
    try {
      expect(db.prepare('SELECT COUNT(*) FROM challenges').pluck().get()).toBe(0);
    } finally {
      db.close();
    }
  }, 120_000);

  it('a bound contract whose surfaces all have evidence: the preflight counts it, every role runs, CLEAN', () => {
    const r = reviewPass(bound);
    const out = jsonOut(r) as unknown as Out;
    expect({ exit: r.code, result: out.result, reasons: out.reasons, rounds: out.rounds }).toEqual({ exit: 0, result: 'CLEAN', reasons: [], rounds: 2 });
    expect(out.runs.map((x) => `${x.round}:${x.slot}:${x.verdict}`)).toEqual([1, 2].flatMap((n) => [...ROLES].sort().map((s) => `${n}:${s}:CLEAN`)));
    const result = JSON.parse(readFileSync(out.files.result, 'utf8')) as { result: string; reasons: string[]; governed: { runs: { slot: string; challenge_id: string }[] } };
    expect(result).toMatchObject({ result: 'CLEAN' });
    expect(result.reasons ?? []).not.toContain('review_pass_mandatory_inputs_missing');
    // Every run was a real challenge of this unit (the bundles are deleted once run; which views
    // carry the section is test/preservation-review-views.test.ts's).
    expect(result.governed.runs).toHaveLength(8);
    const db = readDb(bound);
    try {
      expect(db.prepare('SELECT COUNT(*) FROM challenges WHERE unit = ?').pluck().get(bound.unit)).toBe(8);
      expect(db.prepare('SELECT COUNT(*) FROM receipts WHERE unit = ?').pluck().get(bound.unit)).toBe(8);
    } finally {
      db.close();
    }
    expectLogSound(bound);
  }, 240_000);

  it('a surface without evidence: preservation_surface_unreviewable (8) naming it, nothing recorded', () => {
    const before = storeDigest(unreviewable);
    const r = reviewPass(unreviewable);
    const text = r.stdout;
    expect(r.code).toBe(8);
    expect(text).toContain('preservation_surface_unreviewable');
    expect(text).toContain('SURF-exp');
    expect(text).not.toContain('SURF-rb"');
    expect(storeDigest(unreviewable)).toBe(before);
  }, 120_000);
});
