// Golden reports of governed mode (docs/review-pass.md#review-protocols, docs/review-pass.md#governed-mode---unit): `runGovernedMode` in-process over REAL
// review-challenge + review-run pairs (real git repository, SQLite store, bundled attestor,
// bubblewrap; the scripted run reviewer as policy reviewers). The protocol engines' clock and the
// weave label randomness are injected; the ids the store mints (unit, challenge, run, execution,
// receipt digest) are normalised to numbered placeholders in order of first appearance. So
// result.json and report.md — the engine's seed shape plus the governed section — are compared
// byte for byte. UPDATE_GOLDEN=1 rewrites them.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runGovernedMode, type Protocol } from '../src/flows/review-pass/index.js';
import { cleanupDirs, tempDir } from './state-helpers.js';
import { FIXTURES, seededRandom, steppingClock } from './review-pass-helpers.js';
import { currentPolicy, expectLogSound, makeRunWorld, updatePin, type Mode, type RunWorld } from './run-helpers.js';

afterAll(() => cleanupDirs());

/** Replace store-minted ids by stable placeholders (same id → same placeholder). */
export function normaliseIds(text: string): string {
  const seen = new Map<string, string>();
  const counters = new Map<string, number>();
  return text.replace(/\b(UNIT|CHL|RUN|EXE)-[0-9a-f]{32}\b|sha256:[0-9a-f]{64}/g, (m: string, kind: string | undefined) => {
    const k = kind ?? 'sha256';
    const key = `${k}:${m}`;
    let v = seen.get(key);
    if (v === undefined) {
      const n = (counters.get(k) ?? 0) + 1;
      counters.set(k, n);
      v = `${k === 'sha256' ? 'sha256:' : `${k}-`}<${n}>`;
      seen.set(key, v);
    }
    return v;
  });
}

function golden(name: string, actual: string): void {
  const path = join(FIXTURES, 'golden', name);
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(path, actual);
  expect(actual).toBe(readFileSync(path, 'utf8'));
}

/** A run world whose development stage has exactly these slots (slot → policy reviewer = mode). */
export async function slotWorld(modes: readonly Mode[], slots: Record<string, Mode>, streak = 2): Promise<RunWorld> {
  const w = await makeRunWorld({ modes: [...modes] });
  const policy = currentPolicy(w) as { stages: Record<string, unknown> };
  policy.stages.development = { required: false, streak, slots };
  updatePin(w, 'policy', policy);
  return w;
}

async function run(w: RunWorld, protocol: Protocol) {
  const r = await runGovernedMode({
    unit: w.unit,
    protocol,
    stage: 'development',
    writerSession: 'agent-1',
    home: w.home,
    repo: w.repo.root,
    reviewersDir: w.reviewersDir,
    attestorsDir: w.attestorsDir,
    out: join(tempDir('governed-golden-'), 'out'),
    clock: () => Math.floor(Date.now() / 1000),
    engineClock: steppingClock(),
    random: seededRandom('governed'),
  });
  expectLogSound(w);
  return { r, result: readFileSync(r.files.result, 'utf8'), report: readFileSync(r.files.report, 'utf8') };
}

describe('governed golden reports (seed shape + governed section)', () => {
  it('review-pass: two slots agree on a HIGH finding (CONFIRMED) and a CRITICAL scope finding (VETO), one clean slot', async () => {
    const w = await slotWorld(['clean', 'dirty'], { alpha: 'dirty', beta: 'dirty', gamma: 'clean' });
    const { r, result, report } = await run(w, 'review-pass');
    expect(r.exit).toBe(9);
    expect(r.outcome.runs.map((x) => `${x.round}:${x.slot}:${x.verdict}`)).toEqual(['1:alpha:DIRTY', '1:beta:DIRTY', '1:gamma:CLEAN']);
    const json = JSON.parse(result) as { schema: string; summary: { confirmed: number; vetoes: number }; governed: { advisory: boolean } };
    expect(json).toMatchObject({ schema: 'governed.review-pass-result/v1', mode: 'governed', result: 'NOT_CLEAN', summary: { confirmed: 1, vetoes: 1 }, governed: { advisory: true } });
    golden('governed-review-pass.md', normaliseIds(report));
    golden('governed-review-pass.json', normaliseIds(result));
  }, 60_000);

  it('review-pass: CLEAN rounds converge at the policy streak', async () => {
    const w = await slotWorld(['clean'], { first: 'clean', second: 'clean' });
    const { r, result, report } = await run(w, 'review-pass');
    expect(r.exit).toBe(0);
    expect(r.outcome.runs).toHaveLength(4);
    golden('governed-review-pass-clean.md', normaliseIds(report));
    golden('governed-review-pass-clean.json', normaliseIds(result));
  }, 60_000);

  it('review-pass: an ABORTED run degrades the round and halts the review (the slot is blocked, docs/decision.md#the-rules-in-short)', async () => {
    const w = await slotWorld(['clean', 'free-text'], { clean: 'clean', other: 'clean', talker: 'free-text' });
    const { r, result, report } = await run(w, 'review-pass');
    expect(r.exit).toBe(9);
    expect(r.outcome.reasons).toEqual(['orchestrator_governed_aborted', 'review_pass_halted']);
    golden('governed-review-pass-aborted.md', normaliseIds(report));
    golden('governed-review-pass-aborted.json', normaliseIds(result));
  }, 60_000);

  it('weave: consensus 2/3 (majority, one lane silent) promotes severity; labels from the injected seed', async () => {
    const w = await slotWorld(['clean', 'dirty'], { alpha: 'dirty', beta: 'dirty', gamma: 'clean' });
    const { r, result, report } = await run(w, 'weave');
    expect(r.exit).toBe(9);
    expect(JSON.parse(result)).toMatchObject({ schema: 'governed.weave-result/v1', lanes: 3 });
    golden('governed-weave.md', normaliseIds(report));
    golden('governed-weave.json', normaliseIds(result));
  }, 60_000);
});
