// A worker thread of `audit verify` (docs/audit.md "Cost and memory"): it runs the one receipt
// check (./receipt-check.ts) on batches of jobs the audit's pass posts, under trust roots posted
// once each (src/core/trust-root-wire.ts), and answers on its own port, bumping a shared counter
// so the audit can wait for answers while its pass holds the thread (./receipt-pool.ts). It reads
// and writes nothing else. Built as dist/audit-receipt-worker.mjs (scripts/build.mjs).
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { trustRootFromWire, type TrustRootWire } from '../../core/trust-root-wire.js';
import type { TrustRoot } from '../../core/trust-root.js';
import { checkReceipt, type ReceiptJob, type ReceiptOutcome } from './receipt-check.js';

export type WorkerRequest = { kind: 'trust'; id: number; wire: TrustRootWire } | { kind: 'jobs'; jobs: { trust: number; job: ReceiptJob }[] };
/** One answer per 'jobs' request: the outcomes in order, or the name of an unexpected error. */
export type WorkerAnswer = { outcomes: ReceiptOutcome[] } | { internal: string };

const { port, signal } = workerData as { port: MessagePort; signal: SharedArrayBuffer };
const answered = new Int32Array(signal);
const trusts = new Map<number, TrustRoot>();

function answer(a: WorkerAnswer): void {
  port.postMessage(a);
  Atomics.add(answered, 0, 1);
  Atomics.notify(answered, 0);
}

parentPort?.on('message', (m: WorkerRequest) => {
  if (m.kind === 'trust') {
    trusts.set(m.id, trustRootFromWire(m.wire));
    return;
  }
  try {
    answer({ outcomes: m.jobs.map(({ trust, job }) => checkReceipt(job, trusts.get(trust) as TrustRoot)) });
  } catch (e) {
    // Never a coded refusal (checkReceipt collects those): a bug; the audit fails with internal_error.
    answer({ internal: e instanceof Error ? e.name : 'error' });
  }
});
parentPort?.postMessage('ready');
