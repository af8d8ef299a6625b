// docs/state.md#the-store: one-time facts are decided inside one IMMEDIATE transaction and backstopped by UNIQUE
// constraints, so two OS processes racing on one row yield exactly one winner. Two long-lived
// forked children race on hundreds of fresh rows; the log they interleave must stay a valid chain
// that replays to the stored state.
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newLeaseId } from '../src/store/ids.js';
import { mutate, readLog, verifyChain } from '../src/store/log.js';
import { closeStore } from '../src/store/open.js';
import { assertReplayMatches } from '../src/store/replay.js';
import { createUnitIn } from '../src/store/units.js';
import { registerWriterIn } from '../src/store/writers.js';
import type { Store } from '../src/store/store.js';
import { cleanupDirs, COMMIT, identityN, newStore, T0, tempDir, TREE } from './store-helpers.js';

interface Outcome {
  readonly trial: number;
  readonly ok: boolean;
  readonly code?: string;
}

const TRIALS = { acquire: 200, register: 100, raw: 100 };

let store: Store;
let bundle: string;
const children: ChildProcess[] = [];
const pending = new Map<string, (o: Outcome) => void>();

function startChild(session: string): Promise<ChildProcess> {
  const child = fork(bundle, [store.home, session], {
    env: { ...process.env, NODE_PATH: join(process.cwd(), 'node_modules') },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.on('message', (m: Outcome | { ready: true }) => {
      if ('ready' in m) return resolve(child);
      pending.get(`${child.pid}:${m.trial}`)?.(m);
    });
  });
}

function send(child: ChildProcess, job: Record<string, unknown> & { trial: number }): Promise<Outcome> {
  return new Promise((resolve) => {
    pending.set(`${child.pid}:${job.trial}`, resolve);
    child.send(job);
  });
}

/** Fresh units (each with writers w0 and w1) created in one transaction. */
function freshUnits(n: number, now: number, withWriters: boolean): string[] {
  return mutate(store, now, (tx) =>
    Array.from({ length: n }, (_, i) => {
      const { unitId } = createUnitIn(tx, { baselineCommit: COMMIT, baselineTree: TREE });
      if (withWriters) {
        registerWriterIn(tx, { unit: unitId, writerSession: 'w0', identity: identityN(2 * i) });
        registerWriterIn(tx, { unit: unitId, writerSession: 'w1', identity: identityN(2 * i + 1) });
      }
      return unitId;
    }),
  );
}

let nextTrial = 0;

/** One race per unit: both children get the same job at once; returns the outcome pairs. */
async function race(units: string[], op: string, now: number, extra: () => Record<string, unknown> = () => ({})) {
  const [a, b] = children as [ChildProcess, ChildProcess];
  const results: [Outcome, Outcome][] = [];
  for (const unit of units) {
    const job = { trial: ++nextTrial, op, unit, now, ...extra() };
    results.push(await Promise.all([send(a, job), send(b, job)]));
  }
  return results;
}

function winners(results: [Outcome, Outcome][]): { wins: number[]; loserCodes: Set<string | undefined> } {
  const loserCodes = new Set<string | undefined>();
  const wins = results.map(([x, y]) => {
    for (const o of [x, y]) if (!o.ok) loserCodes.add(o.code);
    return Number(x.ok) + Number(y.ok);
  });
  return { wins, loserCodes };
}

beforeAll(async () => {
  store = newStore();
  bundle = join(tempDir('governed-race-bundle-'), 'child.cjs');
  await build({
    entryPoints: [join(process.cwd(), 'test/store-race-child.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: bundle,
    external: ['better-sqlite3'],
    logLevel: 'silent',
  });
  await startChild('w0');
  await startChild('w1');
});

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
  closeStore(store);
  cleanupDirs();
});

describe('two processes racing on one row', () => {
  it(`acquireLease on one unit: exactly one winner in each of ${TRIALS.acquire} trials`, async () => {
    const units = freshUnits(TRIALS.acquire, T0 + 10, true);
    const { wins, loserCodes } = winners(await race(units, 'acquire', T0 + 20));
    expect(wins.every((w) => w === 1)).toBe(true);
    expect([...loserCodes]).toEqual(['lease_held']);
    const leases = store.db.prepare("SELECT unit, count(*) AS n FROM leases WHERE state = 'active' GROUP BY unit").all() as {
      n: number;
    }[];
    expect(leases).toHaveLength(TRIALS.acquire);
    expect(leases.every((l) => l.n === 1)).toBe(true);
    // Both processes won some races: the test really interleaves them.
    const holders = store.db.prepare("SELECT DISTINCT session FROM leases").pluck().all();
    expect(new Set(holders).size).toBe(2);
  });

  it(`registerWriter of one session: exactly one winner in each of ${TRIALS.register} trials`, async () => {
    const units = freshUnits(TRIALS.register, T0 + 30, false);
    const { wins, loserCodes } = winners(await race(units, 'register', T0 + 40));
    expect(wins.every((w) => w === 1)).toBe(true);
    expect([...loserCodes]).toEqual(['writer_already_registered']);
  });

  it(`an unchecked insert guarded only by the UNIQUE index: exactly one winner in ${TRIALS.raw} trials`, async () => {
    const units = freshUnits(TRIALS.raw, T0 + 50, true);
    const { wins, loserCodes } = winners(await race(units, 'raw-acquire', T0 + 60, () => ({ lease: newLeaseId() })));
    expect(wins.every((w) => w === 1)).toBe(true);
    expect([...loserCodes]).toEqual(['store_constraint_violation']);
  });

  it('the interleaved log is one valid chain that replays to the stored state', () => {
    const report = verifyChain(store);
    expect(report.entries).toBe(readLog(store).length);
    assertReplayMatches(store, join(tempDir(), 'replay.db'));
  });
});
