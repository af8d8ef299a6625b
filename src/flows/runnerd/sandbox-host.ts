// The sandbox host of separated mode (docs/runnerd.md#the-sandbox-host). The daemon drops every
// privilege for good, so after the drop it cannot start a process under another uid. Before the
// drop, while still root, it starts this host under the policy's `sandbox.uid` (gid the same, no
// supplementary groups): a `governed runnerd sandbox-host` process that owns nothing, holds no key
// and can open nothing of the daemon's (its state directory is 0700 governed, each key 0400 its
// attestor's). For every review run the daemon sends one job (the exact sandbox request) on the
// host's stdin; the host runs bwrap — unprivileged, so the reviewer's host uid IS the policy's uid —
// checks the reviewer's identity from outside before release (sandbox-run.ts), and answers with
// bwrap's report. The daemon checks that report again before anything is signed (runReviewer).
//
// What runs where: the daemon keeps the claim, the bundle, drift, the attestors and the store; the
// host sees only the reviewer bytes, the bundle bytes and the policy's sandbox settings of one run.
// Egress slots are hosted too: the broker stays the daemon's (it holds the key) and listens in a
// directory the host's uid can enter (sandbox-host-egress.ts). So are check slots: the daemon seals
// the trees in a directory the host's uid can traverse but not write (sandbox-host-check.ts), the
// host opens them itself for the check profile's descriptors, and the daemon re-walks them after the
// run (`snapshot_altered`) before anything is signed. What still runs as the daemon's uid: a
// preservation probe's adapter (docs/runnerd.md#probes-through-the-daemon).
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { ERROR_CODES, fail, GovernedError, isGovernedError, type ErrorCode } from '../../core/errors.js';
import { parseJsonStrict } from '../../core/strict-json.js';
import { sandboxHostJobSchema, sandboxHostReplySchema, type SandboxHostJob, type SandboxHostReply } from '../../core/sandbox-host-protocol.js';
import type { SandboxRequest } from '../../../runner/sandbox/index.js';
import { runSandboxChecked, type CheckedSandboxRun, type SandboxDelegate } from '../run/sandbox-run.js';
import { egressJobPart, egressRequestPart, hostsEgressSocket } from './sandbox-host-egress.js';
import { checkJobPart, hostsCheck, openCheckTrees, type SealedDirs } from './sandbox-host-check.js';
import { boundYoungGeneration } from './young-generation.js';
import { RUNNERD_MALLOC_ENV } from './malloc-env.js';
import type { ProbeSandbox } from '../preservation/probe.js';

/** The longest a host may take to announce itself. */
export const SANDBOX_HOST_READY_MS = 15_000;
const nowSeconds = (): number => Math.floor(Date.now() / 1000);

function jobOf(id: number, req: SandboxRequest, dirs?: SealedDirs): SandboxHostJob {
  if (!('bytes' in req.reviewer)) fail('sandbox_argument_invalid', ['reviewer']);
  const check = checkJobPart(req, dirs);
  // A check run goes to the host only with its trees' paths (never as a plain reviewer run).
  if (req.check !== undefined && check.check === undefined) fail('sandbox_argument_invalid', ['check']);
  return {
    id,
    bwrap_path: req.bwrapPath ?? '/usr/bin/bwrap',
    allow: { bwrap: [...req.allow.bwrapSha256], profile: [...req.allow.profileSha256], seccomp: [...req.allow.seccompSha256], reviewer: req.allow.reviewerSha256 },
    interpreter: req.interpreter,
    env: { ...req.env },
    uid: req.uid,
    gid: req.gid,
    limits: { ...req.limits },
    reviewer_b64: req.reviewer.bytes.toString('base64'),
    bundle_b64: req.bundleBytes.toString('base64'),
    ...egressJobPart(req),
    ...check,
  };
}

/** The host's loop: one job per line on `input`, one reply per job on `output`, jobs in parallel. */
export async function serveSandboxHost(input: Readable, output: Writable): Promise<void> {
  const uid = process.geteuid?.() ?? -1;
  const gid = process.getegid?.() ?? -1;
  const write = (r: SandboxHostReply): void => {
    output.write(`${JSON.stringify(r)}\n`);
  };
  // Never as root, never with groups: the host exists to be exactly one unprivileged uid.
  if (uid <= 0 || (process.getgroups?.() ?? []).some((g) => g !== gid)) fail('sandbox_uid_mismatch', ['host']);
  // Its memory over many runs, as the daemon's (docs/performance.md#the-daemons-memory-over-many-runs).
  boundYoungGeneration();
  write({ ready: true, uid, gid, pid: process.pid });
  const lines = createInterface({ input, crlfDelay: Infinity });
  // The jobs in flight (a finished job leaves the set: the host lives as long as the daemon).
  const running = new Set<Promise<void>>();
  for await (const line of lines) {
    let job: SandboxHostJob;
    try {
      job = sandboxHostJobSchema.parse(parseJsonStrict(line));
    } catch {
      // Not a job of the protocol: the daemon is the only writer of this pipe, so stop.
      break;
    }
    const p = (async () => {
      let trees: { close: () => void } | null = null;
      try {
        const opened = openCheckTrees(job);
        trees = opened;
        const run = await runSandboxChecked(
          {
            bwrapPath: job.bwrap_path,
            allow: { bwrapSha256: job.allow.bwrap, profileSha256: job.allow.profile, seccompSha256: job.allow.seccomp, reviewerSha256: job.allow.reviewer },
            interpreter: job.interpreter,
            reviewer: { bytes: Buffer.from(job.reviewer_b64, 'base64') },
            bundleBytes: Buffer.from(job.bundle_b64, 'base64'),
            env: job.env,
            uid: job.uid,
            gid: job.gid,
            limits: job.limits,
            hosted: true,
            ...egressRequestPart(job),
            ...opened.part,
          },
          nowSeconds,
        );
        trees.close();
        const r = run.result;
        write({
          id: job.id,
          ok: true,
          started_at: run.startedAt,
          finished_at: run.finishedAt,
          result: {
            exit_code: r.exitCode,
            signal: r.signal,
            timed_out: r.timedOut,
            output_overflow: r.outputOverflow,
            stdout_b64: r.stdout.toString('base64'),
            stderr_bytes: r.stderrBytes,
            setup_failed: r.setupFailed,
            cleanup_verified: r.cleanupVerified,
            duration_ms: Math.max(0, Math.round(r.durationMs)),
            identity: r.identity,
            facts: { ...r.facts },
          },
        });
      } catch (e) {
        const err = isGovernedError(e) ? e : new GovernedError('internal_error', { cause: e });
        write({ id: job.id, ok: false, code: err.code, ids: err.ids.slice(0, 16).map((s) => s.slice(0, 300)) });
      } finally {
        trees?.close();
      }
    })();
    running.add(p);
    const settled = (): void => void running.delete(p);
    p.then(settled, settled);
  }
  await Promise.all(running);
}

interface Pending {
  readonly resolve: (r: CheckedSandboxRun) => void;
  readonly reject: (e: unknown) => void;
  readonly window: { readonly from: number };
}

/** The daemon's end: started as root (before the drop) under `uid`/`gid`. */
export class SandboxHost {
  private readonly child: ChildProcess;
  private buf = '';
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readyInfo: { uid: number; gid: number; pid: number } | null = null;
  private readyWaiters: (() => void)[] = [];
  private gone = false;
  /** The largest reply line accepted now: a reply carries at most its job's stdout cap, base64. */
  private maxLine = 1024 * 1024;

  constructor(
    readonly uid: number,
    readonly gid: number,
    cli: string,
  ) {
    this.child = spawn(process.execPath, [cli, 'runnerd', 'sandbox-host'], {
      cwd: '/',
      // glibc's malloc settings (./malloc-env.ts): read by glibc when the host starts.
      env: { PATH: '/usr/bin:/bin', ...RUNNERD_MALLOC_ENV },
      stdio: ['pipe', 'pipe', 'ignore'],
      uid,
      gid,
    });
    this.child.stdin?.on('error', () => undefined);
    this.child.stdout?.setEncoding('utf8');
    this.child.stdout?.on('data', (s: string) => this.onData(s));
    this.child.on('error', () => this.die());
    this.child.on('close', () => this.die());
  }

  get pid(): number | undefined {
    return this.readyInfo?.pid;
  }

  waitReady(ms: number): Promise<boolean> {
    if (this.readyInfo !== null) return Promise.resolve(true);
    return new Promise((resolve) => {
      const t = setTimeout(() => resolve(this.readyInfo !== null), ms);
      this.readyWaiters.push(() => {
        clearTimeout(t);
        resolve(this.readyInfo !== null);
      });
    });
  }

  private die(): void {
    if (this.gone) return;
    this.gone = true;
    this.readyInfo = null;
    for (const w of this.readyWaiters.splice(0)) w();
    for (const p of this.pending.values()) p.reject(new GovernedError('runnerd_sandbox_unavailable'));
    this.pending.clear();
  }

  private onData(s: string): void {
    this.buf += s;
    if (this.buf.length > this.maxLine) {
      // Never a line this long from an honest host.
      this.child.kill('SIGKILL');
      this.die();
      return;
    }
    for (let i = this.buf.indexOf('\n'); i !== -1; i = this.buf.indexOf('\n')) {
      const line = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 1);
      let reply: SandboxHostReply;
      try {
        reply = sandboxHostReplySchema.parse(parseJsonStrict(line));
      } catch {
        this.child.kill('SIGKILL');
        this.die();
        return;
      }
      if ('ready' in reply) {
        // The host must be exactly the uid and gid it was started as.
        if (reply.uid !== this.uid || reply.gid !== this.gid || reply.pid !== this.child.pid) {
          this.child.kill('SIGKILL');
          this.die();
          return;
        }
        this.readyInfo = { uid: reply.uid, gid: reply.gid, pid: reply.pid };
        for (const w of this.readyWaiters.splice(0)) w();
        continue;
      }
      const p = this.pending.get(reply.id);
      if (p === undefined) continue;
      this.pending.delete(reply.id);
      if (!reply.ok) {
        const code = Object.hasOwn(ERROR_CODES, reply.code) ? (reply.code as ErrorCode) : 'runnerd_sandbox_unavailable';
        p.reject(new GovernedError(code, { ids: reply.ids }));
        continue;
      }
      const r = reply.result;
      // The host's clock readings are kept only inside the daemon's own window for this job.
      const now = nowSeconds();
      const clamp = (t: number): number => Math.min(now, Math.max(p.window.from, t));
      p.resolve({
        startedAt: clamp(reply.started_at),
        finishedAt: clamp(reply.finished_at),
        result: {
          exitCode: r.exit_code,
          signal: r.signal as NodeJS.Signals | null,
          timedOut: r.timed_out,
          outputOverflow: r.output_overflow,
          stdout: Buffer.from(r.stdout_b64, 'base64'),
          stderrBytes: r.stderr_bytes,
          setupFailed: r.setup_failed,
          cleanupVerified: r.cleanup_verified,
          durationMs: r.duration_ms,
          identity: r.identity,
          facts: r.facts,
        },
      });
    }
  }

  /** Run one sandbox request in the host (refused unless the host runs as the request's uid); a check
   * run's trees go by path (the host opens them). */
  run(req: SandboxRequest, dirs?: SealedDirs): Promise<CheckedSandboxRun> {
    if (this.gone || this.readyInfo === null) return Promise.reject(new GovernedError('runnerd_sandbox_unavailable'));
    if (req.uid !== this.uid || req.gid !== this.gid) return Promise.reject(new GovernedError('runnerd_sandbox_uid_changed', { ids: [`uid:${req.uid}`] }));
    const id = this.nextId++;
    const job = jobOf(id, req, dirs);
    this.maxLine = Math.max(this.maxLine, Math.ceil((req.limits.maxOutputBytes * 4) / 3) + 1024 * 1024);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, window: { from: nowSeconds() } });
      this.child.stdin?.write(`${JSON.stringify(job)}\n`);
    });
  }

  /** The directory for broker sockets the host's uid can reach (docs/runnerd.md#model-reviewers-and-the-egress-broker); null: egress slots stay in the daemon. */
  egressSocketDir: string | null = null;

  /** The directory check slots' sealed trees are made in (docs/runnerd.md#check-slots-on-the-sandbox-host); null: check slots stay in the daemon. */
  sealedDir: string | null = null;

  /** The delegate review-run uses: plain reviewer runs, egress runs whose broker socket is in the
   * hosted directory and check runs whose sealed trees are in the hosted directory go to the host;
   * any other stays. */
  delegate(): SandboxDelegate {
    return (req, a) => {
      if (req.check !== undefined) {
        const dirs = a.check?.dirs;
        return hostsCheck(this.sealedDir, dirs) ? this.run(req, dirs) : null;
      }
      if (req.egress !== undefined || req.relay !== undefined) return hostsEgressSocket(this.egressSocketDir, req) ? this.run(req) : null;
      return this.run(req);
    };
  }

  /** A preservation probe's adapter on the host (docs/runnerd.md#probes-through-the-daemon), when
   * its sealed trees are in the hosted directory; null: it stays in the daemon. */
  probeRunner(): ProbeSandbox | null {
    const dir = this.sealedDir;
    if (dir === null) return null;
    return { sealedDir: dir, run: (req, dirs) => (hostsCheck(dir, dirs) ? this.run(req, dirs) : Promise.reject(new GovernedError('sandbox_argument_invalid', { ids: ['check'] }))) };
  }

  close(): Promise<void> {
    if (this.gone) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('close', () => resolve());
      this.child.stdin?.end();
      setTimeout(() => this.child.kill('SIGKILL'), 5000).unref();
    });
  }
}
