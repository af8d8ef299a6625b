// bench/runner-bare (helper for bench/runner, issue core-3): the cost of one reviewer run under the
// SAME static profile without governed around it. `bareRunMs` spawns bwrap directly with the
// profile's argv and descriptors (no checks, no hashing); `sandboxRunMs` goes through
// runner/sandbox (allowlist checks, bwrap hashed and asked its version, fds closed, identity read
// from /proc, cleanup verified). `nodeBaselineMs` is `node -e ''`. bench/runner can import these to
// report (review-run − bare) / node. Run alone, it prints the medians of the three, interleaved.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { Writable } from 'node:stream';
import { buildBwrapArgv, FD_NUMBERS } from '../runner/sandbox/argv.js';
import { inspectBwrap } from '../runner/sandbox/bwrap.js';
import { DEFAULT_LIMITS, type SandboxLimits } from '../runner/sandbox/limits.js';
import { staticProfileSha256 } from '../runner/sandbox/profile.js';
import { runSandboxed } from '../runner/sandbox/run.js';
import { knob } from './lib/quick.js';
import { seccompBlob } from '../runner/seccomp/index.js';

export const TRIVIAL_REVIEWER = Buffer.from('process.stdout.write("{}")\n');
const LIMITS: SandboxLimits = { timeoutMs: 30_000, memoryBytes: 2 * 1024 ** 3, maxOutputBytes: 1 << 20, ...DEFAULT_LIMITS };
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};

function timed(cmd: string, args: string[], opts: Parameters<typeof spawn>[2], feed?: (c: ReturnType<typeof spawn>) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const c = spawn(cmd, args, opts);
    feed?.(c);
    c.stdout?.resume();
    c.stderr?.resume();
    c.on('error', reject);
    c.on('close', (code) => (code === 0 ? resolve(Number(process.hrtime.bigint() - t0) / 1e6) : reject(new Error(`exit ${code}`))));
  });
}

/** bwrap with the profile's exact argv and descriptors, released at once; nothing else. */
export function bareRunMs(reviewer: Buffer = TRIVIAL_REVIEWER, interpreter = '/usr/bin/node'): Promise<number> {
  const argv = buildBwrapArgv({ interpreter, env: {}, limits: LIMITS });
  const uid = process.geteuid?.() === 0 ? { uid: 64500, gid: 64500 } : {};
  return timed('/usr/bin/bwrap', argv, { env: {}, cwd: '/', stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe'], ...uid }, (c) => {
    const fd = c.stdio as unknown as (Writable & NodeJS.ReadableStream)[];
    fd[FD_NUMBERS.seccomp]?.end(seccompBlob());
    fd[FD_NUMBERS.block]?.end('1');
    fd[FD_NUMBERS.go]?.end('go\n');
    fd[FD_NUMBERS.bundle]?.end('{}');
    fd[FD_NUMBERS.reviewer]?.end(reviewer);
    fd[FD_NUMBERS.status]?.on('data', () => undefined);
  });
}

/** One run through runner/sandbox (what review-run pays for the sandbox alone). */
export async function sandboxRunMs(reviewer: Buffer = TRIVIAL_REVIEWER, interpreter = '/usr/bin/node'): Promise<number> {
  const bw = await inspectBwrap('/usr/bin/bwrap');
  const t0 = process.hrtime.bigint();
  const r = await runSandboxed({
    allow: { bwrapSha256: [bw.sha256], profileSha256: [staticProfileSha256()], seccompSha256: [sha(seccompBlob())], reviewerSha256: sha(reviewer) },
    interpreter,
    reviewer: { bytes: reviewer },
    bundleBytes: Buffer.from('{}'),
    env: {},
    uid: 64500,
    gid: 64500,
    limits: LIMITS,
  });
  if (r.exitCode !== 0) throw new Error('reviewer failed');
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

export function nodeBaselineMs(): Promise<number> {
  return timed('/usr/bin/node', ['-e', ''], { env: {}, stdio: ['ignore', 'pipe', 'pipe'] });
}

async function main(): Promise<void> {
  const runs = knob('BENCH_RUNS', 30, 1);
  const t = { node: [] as number[], bare: [] as number[], sandbox: [] as number[] };
  for (let i = 0; i < 3; i++) await Promise.all([nodeBaselineMs(), bareRunMs(), sandboxRunMs()].map((p) => p.catch(() => 0)));
  for (let i = 0; i < runs; i++) {
    t.node.push(await nodeBaselineMs());
    t.bare.push(await bareRunMs());
    t.sandbox.push(await sandboxRunMs());
  }
  const m = { node: median(t.node), bare: median(t.bare), sandbox: median(t.sandbox) };
  process.stdout.write(
    `node -e '' ${m.node.toFixed(1)} ms | bare bwrap (same profile) ${m.bare.toFixed(1)} ms | runner/sandbox ${m.sandbox.toFixed(1)} ms\n` +
      `(sandbox − bare) / node = ${((m.sandbox - m.bare) / m.node).toFixed(2)}  (n=${runs}, medians, interleaved)\n`,
  );
}

if (process.argv[1]?.endsWith('runner-bare.mjs')) await main();
