// Hash many walked workspace entries, on the calling thread and — when the job proves big enough and
// a core is free — on helper worker threads at the same time. docs/contract.md#workspace-digest is unchanged by this: every
// byte is re-hashed now, by ./hash-core.ts, with the same O_NOFOLLOW / fstat / re-check rules on
// every thread.
//
// Why threads: node:crypto SHA-256 and the page-cache copies of readSync are CPU work on the one JS
// thread; a free second core can do part of it (docs/performance.md#workspace-digest has the measurements).
// Why adaptive: a helper costs ~20-30 ms of its own startup, which a small workspace never repays,
// and on a machine whose cores are already busy it only competes with the calling thread. So the
// calling thread starts alone; after PARALLEL_AFTER_MS, if the work left (estimated from the pace so
// far) can repay a helper's startup and a CPU sat idle meanwhile, helpers are started.
// Work is shared through one atomic counter in shared memory: each thread claims the next index, so
// a helper that starts late or runs slowly simply claims fewer files.
//
// Results travel through shared memory too: per index, the 32 digest bytes, then (atomically, after
// them) a mode code; a code of 0 means "not hashed by a helper". Failure handling, fail closed:
// - a refusal seen on any thread (file changed, unreadable) stops every thread and is thrown;
// - an index without a result (its helper could not start, crashed, or was ended still starting up)
//   is hashed on the calling thread, so the result never depends on whether a helper worked;
// - the result is assembled by index, so it is identical whichever thread hashed what.
import { availableParallelism, cpus } from 'node:os';
import { setImmediate as setImmediatePromise } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { fail } from '../core/errors.js';
import { hashPathCore, type HashKind, type HashRefusal } from './hash-core.js';
import { hashWalkedEntry, HASH_CHUNK, type GitMode, type HashedEntry } from './hash-file.js';

export interface HashJob {
  readonly absPath: string;
  readonly kind: HashKind;
}

export interface HashPoolOptions {
  /**
   * Helper threads beside the calling one; 0 hashes on the calling thread only. Default: one per
   * CPU that sat idle while the calling thread hashed alone (`helpersFor`), decided when helpers
   * would start; an explicit number skips that measurement.
   */
  readonly helpers?: number;
  /** Hashing time on the calling thread before helpers are considered (default 25 ms; tests set 0). */
  readonly parallelAfterMs?: number;
  /**
   * Helpers start only when the work still left, estimated from the pace so far, is at least this
   * long (default: a helper's own startup time, so it can repay it; tests set 0).
   */
  readonly minRemainingMs?: number;
  /**
   * Stops the work at the next yield (the caller's listing failed: nothing hashed is needed any
   * more); the call then rejects with the signal's reason.
   */
  readonly signal?: AbortSignal;
  /** Told who did the work, once the call succeeded (the benchmark reports it). */
  readonly onRun?: (run: HashPoolStats) => void;
  /**
   * Helpers the caller started before the jobs were known (`PrestartedHelpers`, while git was
   * still listing): they are given the jobs at once and no later start is considered. The call
   * takes ownership: they are ended or finished by it, whatever the outcome.
   */
  readonly prestarted?: PrestartedHelpers | null;
  /**
   * Settles when the caller's other CPU users (its git children) are gone: the idle measurement
   * for a later helper start begins only then, so it sees the machine's load, not our own listing.
   */
  readonly quietFrom?: Promise<unknown>;
}

export interface HashPoolStats {
  /** Helper threads started (0 when the job was too small, no core was free, or helpers are off). */
  readonly helpersStarted: number;
  /** Entries whose result came from a helper (the rest were hashed on the calling thread). */
  readonly byHelpers: number;
}

export interface HashPoolRun extends HashPoolStats {
  readonly entries: HashedEntry[];
}

/** Also the idle-measuring window: a few of the kernel's 10 ms ticks. */
const PARALLEL_AFTER_MS = 25;
/** The calling thread yields to the event loop this often while hashing. */
const YIELD_EVERY_MS = 4;
/** A helper's own startup (measured 20-30 ms on the 2-vCPU machine): less work left is not worth one. */
const HELPER_STARTUP_MS = 25;
const MAX_DEFAULT_HELPERS = 3;
const MIN_JOBS_FOR_HELPERS = 64;
// Shared control words: the next unclaimed index; 1 once any thread saw a refusal; then one
// "started claiming" flag per helper.
const NEXT = 0;
const STOP = 1;
const STARTED = 2;
// Shared results: per index a mode code (Int32, 0 = none) and 32 digest bytes.
const MODES: readonly GitMode[] = ['100644', '100755', '120000']; // code = index + 1
const DIGEST_BYTES = 32;

/**
 * How many CPUs sat idle since `begin()`, from the kernel's per-CPU idle time (os.cpus(), i.e.
 * /proc/stat, 10 ms ticks): the "is a core free right now" signal for starting helpers. The load
 * average was tried first and rejected: it averages over a minute, so a busy minute before the
 * call (even this process's own earlier work) kept helpers off on an idle machine.
 */
export class IdleProbe {
  private readonly t0 = performance.now();
  private readonly idle0 = IdleProbe.idleMs();

  elapsedMs(): number {
    return performance.now() - this.t0;
  }

  /** Idle CPUs, on average, over the time since construction (0 when the kernel reports nothing). */
  freeCpus(): number {
    const elapsed = performance.now() - this.t0;
    if (elapsed <= 0) return 0;
    return Math.max(0, (IdleProbe.idleMs() - this.idle0) / elapsed);
  }

  private static idleMs(): number {
    return cpus().reduce((sum, cpu) => sum + cpu.times.idle, 0);
  }
}

/**
 * Helpers worth starting given `freeCpus` idle CPUs: one per free CPU, rounding 0.75 up because the
 * caller's own git listing usually shares the measuring window; never more than the CPUs beside the
 * calling thread, nor MAX_DEFAULT_HELPERS.
 */
export function helpersFor(freeCpus: number): number {
  return Math.max(0, Math.min(MAX_DEFAULT_HELPERS, availableParallelism() - 1, Math.floor(freeCpus + 0.25)));
}

/** The hashed entries of `jobs`, in job order; throws the first refusal any thread met. */
export async function hashJobs(jobs: readonly HashJob[], options: HashPoolOptions = {}): Promise<HashedEntry[]> {
  return (await hashJobsWithStats(jobs, options)).entries;
}

/**
 * After this thread's loop (docs/performance.md#workspace-digest): every index is claimed; the helpers'
 * results taken into `results` (a helper's refusal thrown), any job a helper left unfinished hashed
 * here. Returns how many entries the helpers hashed.
 */
async function collectHelpers(jobs: readonly HashJob[], results: (HashedEntry | undefined)[], shared: SharedResults, running: readonly HelperRun[]): Promise<number> {
  // Every index is claimed. A helper that has not begun claiming (still starting up) holds nothing
  // we need: end it instead of waiting for its startup.
  for (const r of running) {
    if (r.worker !== null && Atomics.load(shared.control, STARTED + r.slot) === 0) void r.worker.terminate();
  }
  const outcomes = await Promise.all(running.map((r) => r.outcome));
  for (const outcome of outcomes) {
    if (outcome.kind === 'refused') fail(outcome.code, [], outcome.errno === null ? undefined : { errno: outcome.errno });
  }
  let byHelpers = 0;
  for (let i = 0; i < jobs.length; i++) {
    if (results[i] !== undefined) continue;
    const fromHelper = shared.result(i);
    if (fromHelper !== null) {
      results[i] = fromHelper;
      byHelpers++;
      continue;
    }
    // Claimed by a helper that did not finish it (failed to start, crashed, ended above).
    const job = jobs[i] as HashJob;
    results[i] = hashWalkedEntry(job.absPath, job.kind);
  }
  return byHelpers;
}

/** `hashJobs` plus who did the work. */
export async function hashJobsWithStats(jobs: readonly HashJob[], options: HashPoolOptions = {}): Promise<HashPoolRun> {
  const prestarted = options.prestarted ?? null;
  const maxHelpers = Math.max(0, Math.floor(options.helpers ?? MAX_DEFAULT_HELPERS));
  const parallelAfterMs = options.parallelAfterMs ?? PARALLEL_AFTER_MS;
  const minRemainingMs = options.minRemainingMs ?? HELPER_STARTUP_MS;
  const slots = prestarted === null ? maxHelpers : prestarted.workers.length;
  const shared = new SharedResults(jobs.length, slots);
  const results: (HashedEntry | undefined)[] = new Array<HashedEntry | undefined>(jobs.length);
  const running: HelperRun[] = [];
  let message: JobsMessage | null = null;
  const jobsMessage = (): JobsMessage => (message ??= jobsMessageOf(jobs, shared));
  if (prestarted !== null) {
    // Started while git was listing: hand them the work now (they claim through the counter).
    for (const r of prestarted.take()) running.push(r.assign(jobsMessage()));
  }
  // By default a job this small never takes a helper, and skips even the idle measurement.
  let decided =
    prestarted !== null || maxHelpers === 0 || (options.helpers === undefined && jobs.length < MIN_JOBS_FOR_HELPERS);
  // The idle window opens once the caller's git children are gone (they would read as busy CPUs).
  let quiet = options.quietFrom === undefined;
  options.quietFrom?.then(
    () => (quiet = true),
    () => (quiet = true),
  );
  let idle: IdleProbe | null = null;
  const started = performance.now();
  let lastYield = started;
  try {
    for (;;) {
      if (Atomics.load(shared.control, STOP) !== 0) break;
      const i = Atomics.add(shared.control, NEXT, 1);
      if (i >= jobs.length) break;
      const job = jobs[i] as HashJob;
      results[i] = hashWalkedEntry(job.absPath, job.kind);
      const now = performance.now();
      if (!decided && quiet && idle === null && options.helpers === undefined) idle = new IdleProbe();
      if (!decided && now - started >= parallelAfterMs && (idle === null ? options.helpers !== undefined : idle.elapsedMs() >= parallelAfterMs)) {
        decided = true;
        // Remaining time estimated from the pace so far; a helper must be able to repay its startup.
        const remaining = jobs.length - (i + 1);
        if (remaining > 0 && ((now - started) * remaining) / (i + 1) >= minRemainingMs) {
          const helpers = idle === null ? maxHelpers : Math.min(maxHelpers, helpersFor(idle.freeCpus()));
          for (let h = 0; h < helpers; h++) running.push(startHelper(h).assign(jobsMessage()));
        }
      }
      if (now - lastYield >= YIELD_EVERY_MS) {
        // Let pending I/O run (the caller's git listing drains its pipe meanwhile, helpers'
        // messages arrive): a few µs per yield, against a git child stalled on a full pipe.
        await setImmediatePromise();
        lastYield = performance.now();
        options.signal?.throwIfAborted();
      }
    }
  } catch (e) {
    // A refusal on this thread (or the caller gave up): stop the helpers' claims, end them, report ours.
    Atomics.store(shared.control, STOP, 1);
    await Promise.all(running.map((r) => r.worker?.terminate()));
    throw e;
  }
  const byHelpers = await collectHelpers(jobs, results, shared, running);
  const run = { entries: results as HashedEntry[], helpersStarted: running.length, byHelpers };
  options.onRun?.({ helpersStarted: run.helpersStarted, byHelpers });
  return run;
}

/**
 * Run ONE helper over all of `jobs` with nothing else claiming (the calling thread only waits): the
 * helper program end to end, for tests of the worker side. Production code uses `hashJobs`.
 */
export async function hashJobsInOneHelper(
  jobs: readonly HashJob[],
): Promise<{ outcome: HelperOutcome; results: (HashedEntry | null)[] }> {
  const shared = new SharedResults(jobs.length, 1);
  const outcome = await startHelper(0).assign(jobsMessageOf(jobs, shared)).outcome;
  return { outcome, results: jobs.map((_, i) => shared.result(i)) };
}

/** The shared memory of one call: control words, and the helpers' results by index. */
class SharedResults {
  readonly control: Int32Array;
  readonly modes: Int32Array;
  readonly digests: Buffer;

  constructor(count: number, helpers: number) {
    this.control = new Int32Array(new SharedArrayBuffer(4 * (STARTED + helpers)));
    this.modes = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, count)));
    this.digests = Buffer.from(new SharedArrayBuffer(DIGEST_BYTES * Math.max(1, count)));
  }

  /** A helper's result for index `i`, or null when no helper finished it. */
  result(i: number): HashedEntry | null {
    // The helper writes the digest bytes first and the mode code last (Atomics.store), so a code
    // seen here means the bytes before it are complete.
    const mode = MODES[Atomics.load(this.modes, i) - 1];
    if (mode === undefined) return null;
    return { mode, sha256: this.digests.toString('hex', i * DIGEST_BYTES, (i + 1) * DIGEST_BYTES) };
  }
}

export type HelperOutcome =
  | { readonly kind: 'done' }
  | { readonly kind: 'refused'; readonly code: HashRefusal; readonly errno: string | null }
  | { readonly kind: 'lost' };

interface HelperRun {
  readonly worker: Worker | null;
  readonly slot: number;
  readonly outcome: Promise<HelperOutcome>;
}

/** A started helper (maybe still starting up) that has not been given its jobs yet. */
interface PendingHelper {
  readonly worker: Worker | null;
  /** Give it the jobs (once); it claims indices until none are left. */
  assign(message: JobsMessage): HelperRun;
}

/** What a helper is sent: the paths as one NUL-joined string (one cheap clone, not 10,000). */
interface JobsMessage {
  readonly paths: string;
  readonly kinds: Uint8Array;
  readonly control: Int32Array;
  readonly modes: Int32Array;
  readonly digests: SharedArrayBuffer;
}

function jobsMessageOf(jobs: readonly HashJob[], shared: SharedResults): JobsMessage {
  const kinds = new Uint8Array(jobs.length);
  for (let i = 0; i < jobs.length; i++) kinds[i] = (jobs[i] as HashJob).kind === 'symlink' ? 1 : 0;
  return {
    paths: jobs.map((j) => j.absPath).join('\0'),
    kinds,
    control: shared.control,
    modes: shared.modes,
    digests: shared.digests.buffer as SharedArrayBuffer,
  };
}

/**
 * Helpers started before the jobs are known (while git lists), so that their startup (~25 ms,
 * on another CPU) overlaps the listing instead of the hashing. `hashJobs` takes them over; a
 * caller that ends up not hashing (listing failed, too few files) must `cancel()` them.
 */
export class PrestartedHelpers {
  private pending: PendingHelper[];

  constructor(count: number) {
    this.pending = [];
    for (let slot = 0; slot < count; slot++) this.pending.push(startHelper(slot));
  }

  get workers(): readonly PendingHelper[] {
    return this.pending;
  }

  /** Hand the helpers over (once); later calls get none. */
  take(): PendingHelper[] {
    const taken = this.pending;
    this.pending = [];
    return taken;
  }

  /** End helpers never handed over. Idempotent. */
  async cancel(): Promise<void> {
    await Promise.all(this.take().map((h) => h.worker?.terminate()));
  }
}

/**
 * The helper's program: CommonJS source evaluated in a worker (`eval: true`), so the bundled CLI
 * needs no extra file on disk. It embeds hashPathCore's own source text, so both threads run one
 * implementation. It waits for its jobs (it may be started before they are known), writes each
 * result into shared memory and posts `{done}` at the end, or the first refusal.
 */
const HELPER_SOURCE = `'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { createHash } = require('node:crypto');
const hashPathCore = (${hashPathCore.toString()});
const { slot, chunk } = workerData;
const MODES = ${JSON.stringify(MODES)};
const deps = { fs, createHash };
const buf = Buffer.allocUnsafe(chunk);
parentPort.once('message', (m) => {
  const paths = m.paths.split('\\0');
  const { kinds, control, modes } = m;
  // A path can never hold NUL (readdir names); if the split still disagrees, claim nothing:
  // the calling thread then hashes every index itself.
  if (paths.length !== kinds.length) { parentPort.postMessage({ mismatch: true }); return; }
  const out = Buffer.from(m.digests);
  let refused = null;
  Atomics.store(control, ${STARTED} + slot, 1);
  for (;;) {
    if (Atomics.load(control, ${STOP}) !== 0) break;
    const i = Atomics.add(control, ${NEXT}, 1);
    if (i >= kinds.length) break;
    const r = hashPathCore(deps, buf, paths[i], kinds[i] === 1 ? 'symlink' : 'file', null);
    if (!r.ok) { Atomics.store(control, ${STOP}, 1); refused = r; break; }
    out.write(r.sha256, i * ${DIGEST_BYTES}, ${DIGEST_BYTES}, 'hex');
    Atomics.store(modes, i, MODES.indexOf(r.mode) + 1);
  }
  parentPort.postMessage(refused === null ? { done: true } : { refused: refused.code, errno: refused.errno });
});
`;

function startHelper(slot: number): PendingHelper {
  let worker: Worker;
  try {
    worker = new Worker(HELPER_SOURCE, {
      eval: true,
      workerData: { slot, chunk: HASH_CHUNK },
      // Nothing of the parent's command line (inspector, loaders) is needed in a helper, and its
      // output is never ours to print.
      execArgv: [],
      stdout: true,
      stderr: true,
    });
  } catch {
    // No helper (e.g. worker threads unavailable): the calling thread does all the work.
    return { worker: null, assign: () => ({ worker: null, slot, outcome: Promise.resolve({ kind: 'lost' }) }) };
  }
  // Listen from the start: a helper that fails while starting up must not be an unhandled error.
  const outcome = new Promise<HelperOutcome>((resolve) => {
    let settled = false;
    const settle = (o: HelperOutcome): void => {
      if (!settled) {
        settled = true;
        resolve(o);
      }
    };
    worker.on('message', (m: unknown) => settle(parseMessage(m)));
    worker.on('error', () => settle({ kind: 'lost' }));
    worker.on('exit', () => settle({ kind: 'lost' }));
  });
  // A prestarted helper that is never assigned must not keep the process alive.
  worker.unref();
  return {
    worker,
    assign: (message) => {
      worker.ref();
      worker.postMessage(message);
      return { worker, slot, outcome };
    },
  };
}
/** A helper's message, checked: anything else counts as a lost helper (its unfinished claims are redone). */
function parseMessage(m: unknown): HelperOutcome {
  if (typeof m !== 'object' || m === null) return { kind: 'lost' };
  const o = m as { done?: unknown; refused?: unknown; errno?: unknown };
  if (o.refused === 'workspace_file_changed_during_hash' || o.refused === 'workspace_file_unreadable') {
    return { kind: 'refused', code: o.refused, errno: typeof o.errno === 'string' ? o.errno : null };
  }
  return o.done === true ? { kind: 'done' } : { kind: 'lost' };
}
