// Child process of test/run-race.test.ts (bundled with esbuild, run with child_process.fork): opens
// the store and claims the challenge the parent names, as ITSELF (its own pid is the runner identity
// of the claim), replying with the outcome. Two such OS processes race on every challenge (docs/state.md#the-store:
// "two processes racing on one challenge yield exactly one run").
import { isGovernedError } from '../src/core/errors.js';
import { claimRun, findChallenge, mutate, newExecutionId, newRunId, openStore, readProcessIdentity } from '../src/store/index.js';

interface Job {
  readonly trial: number;
  readonly op: 'claim' | 'raw-claim';
  readonly challenge: string;
  readonly now: number;
}

const home = process.argv[2];
if (home === undefined) process.exit(2);
const store = openStore(home);
const runner = readProcessIdentity(process.pid);

function run(job: Job): string {
  const c = findChallenge(store.db, job.challenge);
  if (c === null) throw new Error('no challenge');
  if (job.op === 'claim') {
    return claimRun(store, job.now, {
      challengeId: c.challengeId,
      unit: c.unit,
      stage: c.stage,
      slot: c.slot,
      reviewerName: c.reviewer.name,
      reviewerSha256: c.reviewer.sha256,
      runner,
      deadline: job.now + 600,
    }).runId;
  }
  // No check at all before the entry: only the reducer's guarded UPDATE and UNIQUE(challenge_id) decide.
  const run = newRunId();
  mutate(store, job.now, (tx) =>
    tx.append('run_claim', c.unit, {
      run,
      challenge: c.challengeId,
      execution: newExecutionId(),
      unit: c.unit,
      stage: c.stage,
      slot: c.slot,
      reviewer_name: c.reviewer.name,
      reviewer_sha256: c.reviewer.sha256,
      runner: { boot_id: runner.bootId, pid: runner.pid, start_time: String(runner.startTime) },
      claimed_at: job.now,
      deadline: job.now + 600,
    }),
  );
  return run;
}

process.on('message', (job: Job) => {
  try {
    const runId = run(job);
    process.send?.({ trial: job.trial, ok: true, runId });
  } catch (e) {
    process.send?.({ trial: job.trial, ok: false, code: isGovernedError(e) ? e.code : 'unexpected' });
  }
});
process.on('disconnect', () => {
  store.db.close();
  process.exit(0);
});
process.send?.({ ready: true, pid: process.pid });
