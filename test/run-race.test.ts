// Exactly once (docs/state.md#the-store, docs/runner.md#the-run-step-by-step step 3): two OS processes racing to claim the same challenges at store
// level (≥ 1,000 trials), and two whole `governed review-run` processes on one challenge (≥ 50
// trials) — exactly one run every time. Trial counts are minimums, raised by GOVERNED_TRIALS.
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueChallengeFlow } from '../src/flows/challenge.js';
import {
  assertReplayMatches,
  closeStore,
  findChallenge,
  issueChallengeIn,
  mutate,
  newChallengeId,
  openStore,
  verifyChain,
  type Challenge,
} from '../src/store/index.js';
import { jsonOut } from './helpers/cli.js';
import { cleanupDirs, tempDir } from './state-helpers.js';
import { errorCode, expectLogSound, issue, makeRunWorld, readDb, runReviewAsync, sha256, trials, type RunWorld } from './run-helpers.js';

const CLAIM_TRIALS = trials('claim', 1000);
const RAW_TRIALS = trials('raw', 200);
const CLI_TRIALS = trials('cli', 50);

let w: RunWorld;
let bundle: string;
const children: ChildProcess[] = [];
const pending = new Map<string, (o: Outcome) => void>();

interface Outcome {
  readonly trial: number;
  readonly ok: boolean;
  readonly code?: string;
  readonly runId?: string;
}

function startChild(): Promise<ChildProcess> {
  const child = fork(bundle, [w.home], { env: { ...process.env, NODE_PATH: join(process.cwd(), 'node_modules') }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.on('message', (m: Outcome | { ready: true }) => {
      if ('ready' in m) return resolve(child);
      pending.get(`${child.pid}:${m.trial}`)?.(m);
    });
  });
}

function send(child: ChildProcess, job: { trial: number; op: string; challenge: string; now: number }): Promise<Outcome> {
  return new Promise((resolve) => {
    pending.set(`${child.pid}:${job.trial}`, resolve);
    child.send(job);
  });
}

/** `n` open challenges recorded at store level from one real challenge's bindings (no bundle files). */
function freshChallenges(template: Challenge, n: number, salt: string): string[] {
  const store = openStore(w.home);
  try {
    return mutate(store, Math.floor(Date.now() / 1000), (tx) =>
      Array.from({ length: n }, (_, i) => {
        const id = newChallengeId();
        issueChallengeIn(tx, {
          challenge: id,
          unit: template.unit,
          stage: template.stage,
          slot: template.slot,
          writer_session: template.writerSession,
          reviewer: template.reviewer,
          view: template.view,
          bundle_digest: template.bundleDigest,
          bundle_size: template.bundleSize,
          view_digest: template.viewDigest,
          planning_state_digest: template.planningStateDigest,
          // A distinct content digest per challenge keeps the run budget out of this test.
          content_digest: `sha256:${sha256(`${salt}:${i}`)}`,
          work_state_digest: template.workStateDigest,
          contract_digest: template.contractDigest,
          sources_digest: template.sourcesDigest,
          workspace_digest: template.workspaceDigest,
          baseline: template.baseline,
          policy_digest: template.policyDigest,
          trust_digest: template.trustDigest,
          scope_version: template.scopeVersion,
          scope_epoch: template.scopeEpoch,
          work_revision: template.workRevision,
          // As review-challenge issues them: the pinned policy's TTL (the template's, recorded by the
          // live path; replay refuses any other), and one run per fresh content digest.
          ttlSeconds: template.expiresAt - template.issuedAt,
          maxRunsPerContent: 1,
        });
        return id;
      }),
    );
  } finally {
    closeStore(store);
  }
}

let template: Challenge;

beforeAll(async () => {
  w = await makeRunWorld({ modes: ['clean'] });
  const store = openStore(w.home);
  try {
    template = findChallenge(store.db, issue(w, 'clean')) as Challenge;
  } finally {
    closeStore(store);
  }
  bundle = join(tempDir('governed-run-race-'), 'child.cjs');
  await build({
    entryPoints: [join(process.cwd(), 'test/run-race-child.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: bundle,
    external: ['better-sqlite3'],
    logLevel: 'silent',
  });
  await startChild();
  await startChild();
}, 120_000);

afterAll(async () => {
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null) return resolve();
          c.once('exit', () => resolve());
          c.disconnect();
        }),
    ),
  );
  cleanupDirs();
});

async function race(ids: readonly string[], op: string): Promise<[Outcome, Outcome][]> {
  const [a, b] = children as [ChildProcess, ChildProcess];
  const out: [Outcome, Outcome][] = [];
  let trial = op === 'claim' ? 0 : 1_000_000;
  for (const challenge of ids) {
    const job = { trial: ++trial, op, challenge, now: Math.floor(Date.now() / 1000) };
    out.push(await Promise.all([send(a, job), send(b, job)]));
  }
  return out;
}

function runsPerChallenge(ids: readonly string[]): Map<string, number> {
  const db = readDb(w);
  try {
    const count = db.prepare('SELECT COUNT(*) FROM runs WHERE challenge_id = ?').pluck();
    return new Map(ids.map((id) => [id, count.get(id) as number]));
  } finally {
    db.close();
  }
}

describe('store level: two processes claim the same challenges', () => {
  it(`claimRun: exactly one winner in each of ${CLAIM_TRIALS} trials`, async () => {
    const ids = freshChallenges(template, CLAIM_TRIALS, 'claim');
    const results = await race(ids, 'claim');
    const losers = new Set<string | undefined>();
    const winnerPids = new Set<number>();
    results.forEach(([x, y]) => {
      expect(Number(x.ok) + Number(y.ok)).toBe(1);
      losers.add((x.ok ? y : x).code);
      winnerPids.add(x.ok ? 0 : 1);
    });
    expect([...losers]).toEqual(['challenge_claimed']);
    // Both processes won some races: the trials really interleave.
    expect(winnerPids.size).toBe(2);
    expect([...runsPerChallenge(ids).values()].every((n) => n === 1)).toBe(true);
  }, 300_000);

  it(`an unchecked run_claim entry (only the reducer's guard and UNIQUE decide): exactly one winner in ${RAW_TRIALS} trials`, async () => {
    const ids = freshChallenges(template, RAW_TRIALS, 'raw');
    const results = await race(ids, 'raw-claim');
    for (const [x, y] of results) {
      expect(Number(x.ok) + Number(y.ok)).toBe(1);
      expect(['log_entry_not_applicable', 'store_constraint_violation']).toContain((x.ok ? y : x).code);
    }
    expect([...runsPerChallenge(ids).values()].every((n) => n === 1)).toBe(true);
  }, 300_000);

  it('the interleaved log is one valid chain that replays to the stored state', () => {
    const store = openStore(w.home);
    try {
      verifyChain(store);
      assertReplayMatches(store, join(tempDir('governed-run-race-replay-'), 'replay.db'));
    } finally {
      closeStore(store);
    }
  });
});

describe('CLI level: two whole review-run processes on one challenge', () => {
  it(`exactly one run, one receipt, in each of ${CLI_TRIALS} trials; the other is refused before claiming`, async () => {
    const loserCodes = new Set<string>();
    for (let i = 0; i < CLI_TRIALS; i++) {
      const c = await issueChallengeFlow({
        home: w.home,
        unit: w.unit,
        writerSession: 'agent-1',
        stage: 'development',
        slot: 'clean',
        repo: w.repo.root,
        clock: () => Math.floor(Date.now() / 1000),
      });
      const [x, y] = await Promise.all([runReviewAsync(w, c.challengeId).done, runReviewAsync(w, c.challengeId).done]);
      const winners = [x, y].filter((r) => r.code === 0);
      expect(winners).toHaveLength(1);
      const loser = (x.code === 0 ? y : x) as typeof x;
      const code = errorCode(loser).code;
      loserCodes.add(code);
      expect(['challenge_claimed', 'challenge_consumed']).toContain(code);
      expect(loser.code).toBe(5);
      const db = readDb(w);
      try {
        const runs = db.prepare('SELECT id, status FROM runs WHERE challenge_id = ?').all(c.challengeId) as { id: string; status: string }[];
        expect(runs).toEqual([{ id: jsonOut(winners[0] as typeof x).run_id, status: 'receipt' }]);
      } finally {
        db.close();
      }
    }
    expect(loserCodes.has('challenge_claimed')).toBe(true);
    expectLogSound(w);
  }, 600_000);
});
