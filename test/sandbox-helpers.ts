// Shared setup for the sandbox suites (docs/sandbox.md#the-invocation): the real bwrap allowlist, test
// limits, the C probe compiled with gcc, the stand-alone driver bundled with esbuild, and /proc
// scans. A missing bwrap or gcc FAILS these suites (assertToolchain) — they never skip.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, chmodSync, constants, readFileSync, readdirSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { inspectBwrap } from '../runner/sandbox/bwrap.js';
import { staticProfileSha256 } from '../runner/sandbox/profile.js';
import { seccompBlob } from '../runner/seccomp/index.js';
import type { SandboxAllowlist, SandboxRequest } from '../runner/sandbox/run.js';
import type { SandboxLimits } from '../runner/sandbox/limits.js';
import { REPO_ROOT } from './helpers/cli.js';
import { makeTempDir } from './helpers/temp.js';

export const BWRAP = '/usr/bin/bwrap';
export const NODE = '/usr/bin/node';
export const LD_SO = '/usr/lib64/ld-linux-x86-64.so.2';
export const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'sandbox');
export const PROBE = join(FIXTURES, 'probe.cjs');
export const IS_ROOT = process.geteuid?.() === 0;

export const sha256 = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');

/** The suites need real bwrap and gcc; their absence is a failure, never a skip. */
export function assertToolchain(): void {
  accessSync(BWRAP, constants.X_OK);
  accessSync('/usr/bin/gcc', constants.X_OK);
}

export async function realAllow(reviewerSha256: string): Promise<SandboxAllowlist> {
  const bw = await inspectBwrap(BWRAP);
  return { bwrapSha256: [bw.sha256], profileSha256: [staticProfileSha256()], seccompSha256: [sha256(seccompBlob())], reviewerSha256 };
}

export function testLimits(over: Partial<SandboxLimits> = {}): SandboxLimits {
  return { timeoutMs: 20_000, memoryBytes: 2 * 1024 ** 3, maxOutputBytes: 1 << 20, nofile: 256, nproc: 128, fsize: 64 << 20, tmpfsBytes: 64 << 20, ...over };
}

/** A world-traversable temp dir (the sandbox uid and unprivileged drivers must read into it). */
export function tempDir(prefix: string): string {
  const d = makeTempDir(`governed-sbx-${prefix}-`);
  chmodSync(d, 0o755);
  return d;
}

export function cleanup(dirs: string[]): void {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

export function compileSysprobe(dir: string): string {
  const out = join(dir, 'sysprobe');
  execFileSync('/usr/bin/gcc', ['-O2', '-Wall', '-o', out, join(FIXTURES, 'sysprobe.c')], { stdio: 'pipe' });
  chmodSync(out, 0o755);
  return out;
}

export async function buildDriver(dir: string): Promise<string> {
  const out = join(dir, 'driver.mjs');
  await build({
    entryPoints: [join(FIXTURES, 'driver.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: out,
    logLevel: 'silent',
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  chmodSync(out, 0o644);
  return out;
}

/** Parse `name=value` lines of the C probe. */
export function kv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const i = line.indexOf('=');
    if (i > 0) out[line.slice(0, i).replace(/^#/, '')] = line.slice(i + 1);
  }
  return out;
}

/** Run a program directly on the host (the positive control) with GOVERNED_BUNDLE = `bundleFile`. */
export function runOutside(argv: readonly string[], bundleFile: string, opts: { env?: Record<string, string>; cwd?: string; uid?: number } = {}): { status: number | null; stdout: string } {
  const r = spawnSync(argv[0] as string, argv.slice(1), {
    env: { PATH: '/usr/bin', ...opts.env, GOVERNED_BUNDLE: bundleFile },
    cwd: opts.cwd ?? '/',
    encoding: 'utf8',
    timeout: 30_000,
    ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.uid } : {}),
  });
  return { status: r.status, stdout: r.stdout };
}

export function writeBundle(dir: string, name: string, content: string | Buffer): string {
  const p = join(dir, name);
  writeFileSync(p, content, { mode: 0o644 });
  return p;
}

/** Host pids in a PID namespace (by inode), read from /proc; zombies (which run nothing) excluded. */
export function pidsInNamespace(pidNs: number): number[] {
  const out: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (readlinkSync(`/proc/${e}/ns/pid`) !== `pid:[${pidNs}]`) continue;
      const stat = readFileSync(`/proc/${e}/stat`, 'latin1');
      if (!/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3))) out.push(Number(e));
    } catch {
      // gone
    }
  }
  return out;
}

/** Host pids of live (non-zombie) processes whose uid is `uid`. */
export function pidsOfUid(uid: number): number[] {
  const out: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (statSync(`/proc/${e}`).uid !== uid) continue;
      const stat = readFileSync(`/proc/${e}/stat`, 'latin1');
      if (!/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3))) out.push(Number(e));
    } catch {
      // gone
    }
  }
  return out;
}

/**
 * Whether `pid` has installed a SIGUSR2 handler (bit 11 of SigCgt in /proc/<pid>/status). Test
 * programs that wait for SIGUSR2 are signalled only once this holds: PID 1 of a pid namespace
 * ignores a signal from outside until it has a handler for it.
 */
export function catchesUsr2(pid: number): boolean {
  try {
    const m = /^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return m !== null && (BigInt(`0x${m[1] as string}`) & (1n << 11n)) !== 0n;
  } catch {
    return false;
  }
}

/** Sends SIGUSR2 to each of `pids`, ignoring those already gone. */
export function releaseUsr2(pids: readonly number[]): void {
  for (const p of pids) {
    try {
      process.kill(p, 'SIGUSR2');
    } catch {
      // already gone
    }
  }
}

export async function waitFor(pred: () => boolean, timeoutMs: number, stepMs = 20): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (pred()) return true;
    await new Promise((r) => setTimeout(r, stepMs));
  }
  return pred();
}

export interface DriverHandle {
  readonly events: Record<string, unknown>[];
  readonly child: ReturnType<typeof spawn>;
  next(event: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

/** Start the driver as its own process (optionally through a shell prefix, e.g. to open fd 50). */
export function startDriver(
  driver: string,
  jobFile: string,
  opts: { shell?: string; env?: Record<string, string>; cwd?: string; uid?: number; nodeArgs?: readonly string[] } = {},
): DriverHandle {
  const base = [NODE, ...(opts.nodeArgs ?? []), driver, jobFile];
  const argv = opts.shell !== undefined ? ['/bin/bash', '-c', `${opts.shell} exec "$@"`, 'sh', ...base] : base;
  const child = spawn(argv[0] as string, argv.slice(1), {
    env: { PATH: '/usr/bin:/bin', ...opts.env },
    cwd: opts.cwd ?? '/',
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.uid } : {}),
  });
  const events: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  let buf = '';
  child.stdout.on('data', (c: Buffer) => {
    buf += c.toString('utf8');
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      try {
        events.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        events.push({ event: 'noise', line });
      }
      for (const w of waiters.splice(0)) w();
    }
  });
  child.stderr.resume();
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  const next = async (event: string, timeoutMs = 30_000): Promise<Record<string, unknown>> => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const found = events.find((e) => e.event === event || e.event === 'error');
      if (found) return found;
      if (Date.now() > end) throw new Error(`driver: no ${event} event`);
      await Promise.race([new Promise<void>((r) => waiters.push(r)), exited, new Promise((r) => setTimeout(r, 100))]);
    }
  };
  return { events, child, next, exited };
}

export function writeJob(dir: string, name: string, req: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify({ request: req, ...extra }), { mode: 0o644 });
  return p;
}

/** A limits+request skeleton for the driver (JSON-able). */
export function driverRequest(over: Partial<SandboxRequest> & Record<string, unknown>): Record<string, unknown> {
  return { interpreter: NODE, env: {}, uid: 64500, gid: 64500, limits: testLimits(), ...over };
}
