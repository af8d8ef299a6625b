// Where `audit verify` runs its receipt checks (docs/audit.md "Cost and memory"): in its own thread,
// or on worker threads while its one pass over the log goes on. The pass is synchronous (one read
// transaction), so the worker answers are collected without the event loop: each worker answers on
// a MessagePort that `receiveMessageOnPort` drains, and bumps a shared counter the pass waits on
// with `Atomics.wait` when it must (too many jobs in flight, or the end of the pass). The check
// itself is ./receipt-check.ts either way, with the same inputs, so the report is the same.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { GovernedError } from '../../core/errors.js';
import { AUDIT_WORKER_YOUNG_GEN_MB } from '../../core/limits.js';
import { trustRootToWire } from '../../core/trust-root-wire.js';
import type { TrustRoot } from '../../core/trust-root.js';
import { checkReceipt, type ReceiptJob, type ReceiptOutcome } from './receipt-check.js';
import type { WorkerAnswer, WorkerRequest } from './receipt-worker.js';

export interface ReceiptChecker {
  /** Worker threads (0: this thread). */
  readonly workers: number;
  submit(job: ReceiptJob, trust: TrustRoot): void;
  /** The outcomes answered since the last call; with `all`, after waiting for every one submitted. */
  drain(all: boolean): ReceiptOutcome[];
  close(): void;
}

/** In this thread: each job checked as it is submitted. */
export function inThreadChecker(): ReceiptChecker {
  let done: ReceiptOutcome[] = [];
  return {
    workers: 0,
    submit: (job, trust) => void done.push(checkReceipt(job, trust)),
    drain: () => {
      const d = done;
      done = [];
      return d;
    },
    close: () => {},
  };
}

const BATCH = 32;
/** Batches in flight per worker before the pass waits (bounds the memory of queued envelopes). */
const IN_FLIGHT_PER_WORKER = 16;
/** No answer for this long while jobs are in flight: a worker is gone (fail closed). */
const STALL_MS = 600_000;

/** Start `n` workers (docs/audit.md#cost-and-memory) and wait until each says ready; on any failure all are terminated. */
async function startWorkers(n: number, workerFile: string, signal: SharedArrayBuffer): Promise<{ w: Worker; port: MessagePort }[]> {
  const workers: { w: Worker; port: MessagePort }[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const { port1, port2 } = new MessageChannel();
      // A small young generation (docs/audit.md#cost-and-memory): a worker keeps nothing between
      // batches, and V8's default let each worker's heap grow by tens of MiB over a long audit.
      const w = new Worker(workerFile, { workerData: { port: port2, signal }, transferList: [port2], resourceLimits: { maxYoungGenerationSizeMb: AUDIT_WORKER_YOUNG_GEN_MB } });
      workers.push({ w, port: port1 });
    }
    await Promise.all(
      workers.map(async ({ w }) => {
        const [m] = (await Promise.race([once(w, 'message'), once(w, 'error').then(([e]) => Promise.reject(e)), once(w, 'exit')])) as unknown[];
        if (m !== 'ready') throw new GovernedError('internal_error', { ids: ['audit_worker_start'] });
      }),
    );
  } catch (e) {
    for (const { w } of workers) void w.terminate();
    throw e instanceof GovernedError ? e : new GovernedError('internal_error', { ids: ['audit_worker_start'] });
  }
  return workers;
}

/** `n` worker threads running `workerFile` (dist/audit-receipt-worker.mjs), each ready before it returns. */
export async function workerChecker(n: number, workerFile: string): Promise<ReceiptChecker> {
  const signal = new SharedArrayBuffer(4);
  const answered = new Int32Array(signal);
  const workers = await startWorkers(n, workerFile, signal);
  for (const { w } of workers) w.unref();

  const trustIds = new Map<TrustRoot, number>();
  let batch: { trust: number; job: ReceiptJob }[] = [];
  let next = 0;
  let inFlight = 0;
  let seen = 0;
  let done: ReceiptOutcome[] = [];

  const post = (i: number, m: WorkerRequest): void => (workers[i] as { w: Worker }).w.postMessage(m);
  const take = (a: WorkerAnswer): void => {
    inFlight--;
    if ('internal' in a) throw new GovernedError('internal_error', { ids: ['audit_worker'] });
    for (const o of a.outcomes) done.push(o);
  };
  const collect = (): void => {
    for (const { port } of workers) {
      for (let m = receiveMessageOnPort(port); m !== undefined; m = receiveMessageOnPort(port)) take(m.message as WorkerAnswer);
    }
  };
  /** Wait until at most `limit` batches are in flight. */
  const waitUntil = (limit: number): void => {
    collect();
    let last = Date.now();
    while (inFlight > limit) {
      const r = Atomics.wait(answered, 0, seen, 1000);
      const now = Atomics.load(answered, 0);
      if (now !== seen) {
        seen = now;
        last = Date.now();
      } else if (r === 'timed-out' && Date.now() - last > STALL_MS) {
        throw new GovernedError('internal_error', { ids: ['audit_worker_stalled'] });
      }
      collect();
    }
  };
  const flush = (): void => {
    if (batch.length === 0) return;
    post(next, { kind: 'jobs', jobs: batch });
    next = (next + 1) % workers.length;
    batch = [];
    inFlight++;
    if (inFlight > IN_FLIGHT_PER_WORKER * workers.length) waitUntil(IN_FLIGHT_PER_WORKER * workers.length - workers.length);
    else collect();
  };
  return {
    workers: workers.length,
    submit(job, trust) {
      let id = trustIds.get(trust);
      if (id === undefined) {
        id = trustIds.size;
        trustIds.set(trust, id);
        const wire = trustRootToWire(trust);
        for (let i = 0; i < workers.length; i++) post(i, { kind: 'trust', id, wire });
      }
      batch.push({ trust: id, job });
      if (batch.length >= BATCH) flush();
    },
    drain(all) {
      if (all) {
        flush();
        waitUntil(0);
      } else collect();
      const d = done;
      done = [];
      return d;
    },
    close() {
      for (const { w, port } of workers) {
        port.close();
        void w.terminate();
      }
    },
  };
}

/** The worker program beside the CLI bundle (dist/audit-receipt-worker.mjs), or null when absent (run from sources). */
export function receiptWorkerFile(moduleUrl: string): string | null {
  for (const rel of ['../audit-receipt-worker.mjs', './audit-receipt-worker.mjs']) {
    const f = new URL(rel, moduleUrl);
    if (f.protocol === 'file:' && existsSync(f)) return fileURLToPath(f);
  }
  return null;
}
