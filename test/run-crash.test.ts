// Crash safety (docs/runner.md#the-run-step-by-step step 3, docs/threat-model.md#rules-that-hold-everywhere "Nothing half-done"): `governed review-run` processes are SIGKILLed
// at pseudo-random points of their run (before the claim, while the reviewer runs in bwrap, while the
// attestors sign, around the commit). After `governed run reap`, every claimed challenge has ended as
// exactly ONE receipt or ONE ABORTED run; the ones killed before claiming are then run to the end;
// the log verifies and replays to the stored state; no bundle or scratch file is left behind.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueChallengeFlow } from '../src/flows/challenge.js';
import { jsonOut } from './helpers/cli.js';
import { cleanupDirs } from './state-helpers.js';
import { challengeStatus, expectLogSound, gov, makeRunWorld, readDb, runReviewAsync, trials, waitForStatus, type RunWorld } from './run-helpers.js';

const CRASH_TRIALS = trials('crash', 200);
const PARALLEL = 2;

let w: RunWorld;
beforeAll(async () => {
  w = await makeRunWorld({ modes: ['clean'] });
  // Calibration: how long an uninterrupted run takes from its claim to its end, here and now.
  const spans: number[] = [];
  for (let i = 0; i < 3; i++) {
    const c = await issueChallengeFlow({ home: w.home, unit: w.unit, writerSession: 'agent-1', stage: 'development', slot: 'clean', repo: w.repo.root, clock: () => Math.floor(Date.now() / 1000) });
    const run = runReviewAsync(w, c.challengeId);
    await waitForStatus(w, c.challengeId, 'claimed');
    const t0 = Date.now();
    expect((await run.done).code).toBe(0);
    spans.push(Date.now() - t0);
  }
  claimToEndMs = [...spans].sort((a, b) => a - b)[1] as number;
}, 120_000);
afterAll(cleanupDirs);

/** mulberry32: a seeded PRNG, so a failing schedule can be replayed (the seed is printed). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Where a kill lands is chosen relative to the run's own progress, not to wall time (the machine's
 * load changes how long a run takes): about one kill in six lands early, within EARLY_MS of the
 * start (mostly before the claim); the others wait until the claim is in the store and then land
 * anywhere in up to 1.3 × the time a run needs from its claim to its end (measured in `beforeAll`),
 * so they spread over the sandbox, the drift re-hash, the signatures and the commit — and some runs
 * finish first.
 */
const EARLY_MS = 150;
let claimToEndMs = 400;

async function killedRun(rand: () => number): Promise<{ challenge: string; finished: boolean }> {
  const c = await issueChallengeFlow({
    home: w.home,
    unit: w.unit,
    writerSession: 'agent-1',
    stage: 'development',
    slot: 'clean',
    repo: w.repo.root,
    clock: () => Math.floor(Date.now() / 1000),
  });
  const run = runReviewAsync(w, c.challengeId);
  let exited = false;
  const done = run.done.then(() => {
    exited = true;
  });
  if (rand() < 0.16) {
    await Promise.race([sleep(rand() * EARLY_MS), done]);
  } else {
    while (!exited && challengeStatus(w, c.challengeId) === 'open') await sleep(5);
    await Promise.race([sleep(rand() * claimToEndMs * 1.3), done]);
  }
  const finished = exited;
  if (!finished) run.kill('SIGKILL');
  await done;
  return { challenge: c.challengeId, finished };
}

interface Row {
  id: string;
  status: string;
  runs: number;
  run_status: string | null;
  abort_code: string | null;
  receipts: number;
}

function rows(ids: readonly string[]): Row[] {
  const db = readDb(w);
  try {
    const q = db.prepare(
      `SELECT c.id, c.status,
              (SELECT COUNT(*) FROM runs r WHERE r.challenge_id = c.id) AS runs,
              (SELECT r.status FROM runs r WHERE r.challenge_id = c.id) AS run_status,
              (SELECT r.abort_code FROM runs r WHERE r.challenge_id = c.id) AS abort_code,
              (SELECT COUNT(*) FROM receipts x JOIN runs r ON r.id = x.run_id WHERE r.challenge_id = c.id) AS receipts
       FROM challenges c WHERE c.id = ?`,
    );
    return ids.map((id) => q.get(id) as Row);
  } finally {
    db.close();
  }
}

describe(`SIGKILL at random points over ${CRASH_TRIALS} runs`, () => {
  it('every challenge ends as exactly one receipt or one ABORTED run, and the log replays clean', async () => {
    const seed = Number(process.env.GOVERNED_CRASH_SEED ?? Date.now() % 2 ** 31);
    const rand = prng(seed);
    const challenges: string[] = [];
    let finishedBeforeKill = 0;
    for (let i = 0; i < CRASH_TRIALS; i += PARALLEL) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(PARALLEL, CRASH_TRIALS - i) }, () => killedRun(rand)),
      );
      for (const b of batch) {
        challenges.push(b.challenge);
        if (b.finished) finishedBeforeKill++;
      }
    }

    // The reaping command: claims whose runner is gone become ABORTED (runner_gone).
    const reap = gov(w, ['run', 'reap', '--unit', w.unit, '--json']);
    expect(reap.code, `seed ${seed}`).toBe(0);
    const reaped = (jsonOut(reap).aborted as string[]).length;

    // Killed before claiming: the challenge is still open, and runs to its end now.
    const unclaimed = rows(challenges).filter((r) => r.status === 'open');
    for (let i = 0; i < unclaimed.length; i += PARALLEL) {
      const codes = await Promise.all(unclaimed.slice(i, i + PARALLEL).map(async (r) => (await runReviewAsync(w, r.id).done).code));
      for (const code of codes) expect([0, 9]).toContain(code);
    }

    const end = rows(challenges);
    for (const r of end) {
      expect(r.runs, `seed ${seed} ${r.id}`).toBe(1);
      if (r.status === 'consumed') {
        expect({ run: r.run_status, receipts: r.receipts }).toEqual({ run: 'receipt', receipts: 1 });
      } else {
        expect({ status: r.status, run: r.run_status, receipts: r.receipts }, `seed ${seed} ${r.id}`).toEqual({ status: 'aborted', run: 'aborted', receipts: 0 });
        expect(r.abort_code).toMatch(/^[a-z][a-z0-9_]*$/);
      }
    }
    const aborted = end.filter((r) => r.status === 'aborted').length;
    // Killed claims are recorded ABORTED as runner_gone, by the reaping command or by the next
    // review-run of the unit (which reaps the unit's stale claims before claiming).
    const runnerGone = end.filter((r) => r.abort_code === 'runner_gone').length;
    const codes: Record<string, number> = {};
    for (const r of end) if (r.abort_code !== null) codes[r.abort_code] = (codes[r.abort_code] ?? 0) + 1;
    // The kills hit every phase: before the claim, between claim and commit, and after the end.
    process.stdout.write(
      `crash: seed=${seed} trials=${CRASH_TRIALS} claim_to_end_ms=${claimToEndMs} finished_before_kill=${finishedBeforeKill} reaped_by_command=${reaped} runner_gone=${runnerGone} unclaimed=${unclaimed.length} aborted=${aborted} ${JSON.stringify(codes)}\n`,
    );
    // Kills after the claim are the point of this test: they must have happened (the early kills and
    // the runs that finished first are reported above; their share depends on the machine's load).
    expect(runnerGone).toBeGreaterThan(CRASH_TRIALS / 4);

    // Nothing half-done on disk either: no bundle of an ended challenge, no scratch directory.
    const bundles = new Set(readdirSync(join(w.home, 'bundles')));
    for (const id of challenges) expect(bundles.has(`${id}.json`)).toBe(false);
    let scratch: string[] = [];
    try {
      scratch = readdirSync(join(w.home, 'runs'));
    } catch {
      scratch = [];
    }
    expect(scratch).toEqual([]);
    expectLogSound(w);
  }, 900_000);
});
