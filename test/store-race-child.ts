// Child process of test/store-race.test.ts (bundled with esbuild, run with child_process.fork):
// opens the store given in argv and performs the operation the parent sends, replying with the
// outcome. Each child is a separate OS process with its own SQLite connection (docs/state.md#the-store: "two
// processes racing on one challenge yield exactly one run").
import { isGovernedError } from '../src/core/errors.js';
import { acquireLease } from '../src/store/leases.js';
import { mutate } from '../src/store/log.js';
import { openStore } from '../src/store/open.js';
import { readProcessIdentity } from '../src/store/process-identity.js';
import { registerWriter } from '../src/store/writers.js';

interface Job {
  readonly trial: number;
  readonly op: 'acquire' | 'register' | 'raw-acquire';
  readonly unit: string;
  readonly now: number;
  readonly lease?: string;
}

const home = process.argv[2];
const session = process.argv[3];
if (home === undefined || session === undefined) process.exit(2);
const store = openStore(home);
const identity = readProcessIdentity(process.pid);

function run(job: Job): void {
  if (job.op === 'acquire') {
    acquireLease(store, { unit: job.unit, writerSession: session as string, ttlSeconds: 600, now: job.now });
  } else if (job.op === 'register') {
    registerWriter(store, { unit: job.unit, writerSession: 'racer', identity, now: job.now });
  } else {
    // No check at all: only the partial UNIQUE index decides who wins.
    mutate(store, job.now, (tx) =>
      tx.append('lease_acquire', job.unit, {
        lease: job.lease as string,
        unit: job.unit,
        writer_session: session as string,
        acquired_at: job.now,
        expires_at: job.now + 600,
      }),
    );
  }
}

process.on('message', (job: Job) => {
  try {
    run(job);
    process.send?.({ trial: job.trial, ok: true });
  } catch (e) {
    process.send?.({ trial: job.trial, ok: false, code: isGovernedError(e) ? e.code : 'unexpected' });
  }
});
process.on('disconnect', () => {
  store.db.close();
  process.exit(0);
});
process.send?.({ ready: true });
