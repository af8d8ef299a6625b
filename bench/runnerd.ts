// bench/runnerd (docs/performance.md "Separated mode: bench/runnerd"): review-run through the daemon
// versus the same reviewer under bare bubblewrap, measured interleaved in one run, as root (the
// daemon needs its users):
//   node  — `node -e ''` (the unit of the ratio);
//   bare  — the trivial reviewer under bare bwrap with the same static profile (bench/runner-bare);
//   run   — `governed review-run --runner S --challenge C --json` as a writer uid, client start to
//           answer (challenges are issued through the daemon between runs, untimed);
//   floor — the client's process plus the git steps the content rule requires (floorMs).
// Each row also reports CPU (user+sys of every process it started, the daemon's tree included).
// Reported: medians and (run − bare) / node (bar ≤ 1.5) beside floor / node; throughput with N
// parallel clients (each on its own unit) versus N bare bwrap runs at once (aim ≥ 0.8) and versus
// the throughput floor (N × the floor's processes then the reviewer, at once); the daemon's VmRSS and
// VmHWM after warm-up and after the memory runs (bar: no growth beyond 20 MB over 1,000 runs).
// Counts: BENCH_RUNNERD_RUNS (default 15), BENCH_RUNNERD_PARALLEL (default 2), BENCH_RUNNERD_RSS_RUNS
// (default 50; the issue's check is 1000), BENCH_RUNNERD_ONLY=rss (skip the timing rows).
// BENCH_RUNNERD_MEMORY_PROBE=1: the daemon runs with bench/tools/runnerd-memory-probe.cjs, and every
// 100 memory runs it reports, after a forced full collection, V8's used and committed heap (bench only:
// the probe is loaded by this bench's command line, never by the product). The daemon runs with the
// `Environment=` lines of its systemd unit (docs/deploy/governed-runnerd.service), as deployed.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inspectBwrap } from '../runner/sandbox/bwrap.js';
import { staticProfileSha256 } from '../runner/sandbox/profile.js';
import { seccompBlob } from '../runner/seccomp/index.js';
import { keygen } from '../src/flows/keygen.js';
import { bareRunMs, nodeBaselineMs } from './runner-bare.js';
import { TRIVIAL_COVERAGE_REVIEWER } from './runner.js';
import { QUICK, knob } from './lib/quick.js';

const CLI = resolve(process.env.GOVERNED_CLI ?? 'dist/governed.mjs');
const RUNS = knob('BENCH_RUNNERD_RUNS', 15, 2);
const PAR = knob('BENCH_RUNNERD_PARALLEL', 2, 2);
const RSS_RUNS = knob('BENCH_RUNNERD_RSS_RUNS', 50, 2);
// BENCH_RUNNERD_ONLY=rss: only the memory part (for the 1,000-run measurement).
const RSS_ONLY = process.env.BENCH_RUNNERD_ONLY === 'rss';
const PROBE = process.env.BENCH_RUNNERD_MEMORY_PROBE === '1';
// Its own names (never the test files' gvd-sep…): every user and group below is removed in `finally`.
// BENCH_RUNNERD_USERS names another prefix, so that two instances can run at once (e.g. the 1,000-run
// memory check beside a timing run); it must start with `gvd-sep`.
const PREFIX = /^gvd-sep[a-z0-9-]{0,8}$/.test(process.env.BENCH_RUNNERD_USERS ?? '') ? (process.env.BENCH_RUNNERD_USERS as string) : 'gvd-sepb';
const WRITERS = `${PREFIX}-w`;
const WRITER = `${PREFIX}-w1`;
/** Every user (and its user group) and group this bench may have created: the writer, the daemon and its attestors, the writers' group. */
const BENCH_USERS = [WRITER, PREFIX, `${PREFIX}-reviewer`, `${PREFIX}-runner`, `${PREFIX}-probe`, `${PREFIX}-log`];
const sha256 = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const GIT_ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', HOME: '/nonexistent', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@x.invalid', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@x.invalid' };

function sh(cmd: string, args: string[], cwd = '/'): string {
  const r = spawnSync(cmd, args, { cwd, env: GIT_ENV, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stdout} ${r.stderr}`);
  return r.stdout.trim();
}
const rootGov = (args: string[]): Record<string, unknown> => JSON.parse(sh(process.execPath, [CLI, ...args, '--json'])) as Record<string, unknown>;

function asWriter(args: string[], cwd: string, socket: string, viaShell = false): Promise<{ ms: number; out: string; code: number | null }> {
  return new Promise((res) => {
    const t0 = process.hrtime.bigint();
    const argv = [process.execPath, CLI, ...args, '--json'];
    const c = spawn('setpriv', ['--reuid', WRITER, '--regid', WRITER, '--init-groups', '--', ...(viaShell ? ['/bin/sh', '-c', '"$@"; exit $?', 'sh'] : []), ...argv], {
      cwd,
      env: { PATH: '/usr/bin:/bin', GOVERNED_RUNNER: socket },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    c.stdout.on('data', (b: Buffer) => (out += b.toString()));
    c.on('close', (code) => res({ ms: Number(process.hrtime.bigint() - t0) / 1e6, out, code }));
  });
}

/** Remove every user and group of BENCH_USERS/WRITERS that exists; returns what was removed (printed: the bench leaves no account behind). */
function removeBenchUsers(): string[] {
  const removed: string[] = [];
  for (const u of BENCH_USERS) {
    if (spawnSync('id', [u]).status === 0 && spawnSync('userdel', [u], { stdio: 'ignore' }).status === 0) removed.push(`user ${u}`);
    if (spawnSync('getent', ['group', u]).status === 0 && spawnSync('groupdel', [u], { stdio: 'ignore' }).status === 0) removed.push(`group ${u}`);
  }
  if (spawnSync('getent', ['group', WRITERS]).status === 0 && spawnSync('groupdel', [WRITERS], { stdio: 'ignore' }).status === 0) removed.push(`group ${WRITERS}`);
  return removed;
}

function chownTree(p: string, uid: number, gid: number): void {
  chownSync(p, uid, gid);
  if (lstatSync(p).isDirectory()) for (const n of readdirSync(p)) chownTree(join(p, n), uid, gid);
}

/** Wall time of one process, spawned and waited for. */
function timedGit(args: string[], cwd: string, input?: Buffer): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('git', args, { cwd, env: GIT_ENV, input, maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`git ${args[0]} failed`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/**
 * The floor of one review-run through the daemon beyond the sandboxed reviewer itself, measured in
 * the same run: only the processes the separated mode's rules require (docs/runnerd.md "Content
 * crosses as git objects") — the writer's client process (`node -e ''`); the working tree sent as
 * a commit of git objects (ls-files, fast-import, pack-objects on the writer's side; index-pack and
 * checkout into the daemon's own repository); and the drift check's reads of the daemon's copy
 * before and after the run (one ls-files each). The two signatures and the SQLite commit are left
 * out (each well under a millisecond here), so this is below what any daemon can do.
 */
async function floorMs(repo: string, dir: string): Promise<number> {
  const client = await nodeBaselineMs();
  const files = ['requests/export.md', 'src/export.ts'];
  const parts: Buffer[] = [Buffer.from(`commit refs/floor/snapshot\ncommitter b <b@x.invalid> 0 +0000\ndata 8\nsnapshot\ndeleteall\n`)];
  for (const f of files) {
    const data = readFileSync(join(repo, f));
    parts.push(Buffer.from(`M 100644 inline ${f}\ndata ${data.length}\n`), data, Buffer.from('\n'));
  }
  let ms = timedGit(['ls-files', '-z', '--cached', '--others'], repo);
  ms += timedGit(['fast-import', '--quiet', '--force'], repo, Buffer.concat(parts));
  const commit = sh('git', ['rev-parse', 'refs/floor/snapshot'], repo);
  const t0 = process.hrtime.bigint();
  const pack = spawnSync('git', ['pack-objects', '--revs', '--stdout', '-q'], { cwd: repo, env: GIT_ENV, input: `${commit}\n`, maxBuffer: 1 << 26 }).stdout;
  ms += Number(process.hrtime.bigint() - t0) / 1e6;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  sh('git', ['init', '-q'], dir);
  ms += timedGit(['index-pack', '--stdin', '--strict'], dir, pack);
  ms += timedGit(['checkout', '-q', '-f', '--detach', commit], dir);
  ms += timedGit(['ls-files', '-z', '--cached', '--others'], dir);
  ms += timedGit(['ls-files', '-z', '--cached', '--others'], dir);
  return client + ms;
}

async function main(): Promise<void> {
  if (process.geteuid?.() !== 0) {
    process.stdout.write('bench/runnerd: skipped (needs root to create its users and start the daemon)\n');
    return;
  }
  const dirs: string[] = [];
  try {
    await measure(dirs);
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    const removed = removeBenchUsers();
    const left = [...BENCH_USERS, WRITERS].filter((u) => spawnSync('getent', ['passwd', u]).status === 0 || spawnSync('getent', ['group', u]).status === 0);
    process.stdout.write(`bench/runnerd: removed ${removed.length > 0 ? removed.join(', ') : 'nothing'}; accounts left behind: ${left.length > 0 ? left.join(' ') : 'none'}\n`);
  }
}

async function measure(dirs: string[]): Promise<void> {
  if (spawnSync('getent', ['group', WRITERS]).status !== 0) sh('groupadd', ['--system', WRITERS]);
  if (spawnSync('id', [WRITER]).status !== 0) sh('useradd', ['--no-create-home', '--shell', '/usr/sbin/nologin', '--user-group', WRITER]);
  sh('usermod', ['-a', '-G', WRITERS, WRITER]);
  const base = mkdtempSync(join(tmpdir(), 'gvd-sep-bench-'));
  dirs.push(base);
  chmodSync(base, 0o755);
  const socket = join(base, 'run', 'runnerd.sock');
  const scratch = mkdtempSync(join(tmpdir(), 'gvd-sep-bench-keys-'));
  dirs.push(scratch);
  const keys = Object.fromEntries(['reviewer', 'runner', 'gate', 'log'].map((c) => [c, keygen(c, join(scratch, 'keys'))])) as Record<string, { keyId: string; privateKeyPath: string; publicKeyPath: string }>;
  writeFileSync(join(scratch, 'trivial.mjs'), TRIVIAL_COVERAGE_REVIEWER);
  const common = ['--dir', base, '--socket', socket, '--user', PREFIX, '--writers', WRITERS];
  const s1 = rootGov(['runnerd', 'setup', ...common, '--key', `reviewer=${keys.reviewer!.privateKeyPath}`, '--key', `runner=${keys.runner!.privateKeyPath}`, '--reviewer', join(scratch, 'trivial.mjs')]) as { credentials: Record<string, { key_id: string; attestor_sha256: string; attestor_config_sha256: string }> };
  const cred = (c: string): Record<string, unknown> =>
    c === 'reviewer' || c === 'runner'
      ? { key_id: s1.credentials[c]!.key_id, attestor_sha256: [s1.credentials[c]!.attestor_sha256], attestor_config_sha256: [s1.credentials[c]!.attestor_config_sha256] }
      : { key_id: keys[c]!.keyId, attestor_sha256: ['7'.repeat(64)], attestor_config_sha256: ['7'.repeat(64)] };
  const policy = {
    kind: 'governed/policy', version: 1, trust_mode: 'separated', accept_co_located: false, challenge_ttl: '10m', max_runs_per_content: 1000,
    product_roots: ['.'], exclude: [], preservation: { waived: 'bench' },
    stages: { development: { required: false, streak: 2, slots: { trivial: 'trivial' } } },
    reviewers: { trivial: { sha256: sha256(TRIVIAL_COVERAGE_REVIEWER), interpreter: '/usr/bin/node', env: {} } },
    sandbox: { bwrap_sha256: [(await inspectBwrap('/usr/bin/bwrap')).sha256], profile_sha256: [staticProfileSha256()], seccomp_sha256: [sha256(seccompBlob())], uid: 64500, timeout: '30s', memory: '2GiB', max_output: '1MiB', max_bundle: '64MiB' },
    credentials: { reviewer: cred('reviewer'), runner: cred('runner'), gate: cred('gate'), log: cred('log') },
    controls: [],
  };
  const trust = {
    version: 1, expires: '2099-01-01T00:00:00Z',
    keys: Object.entries(keys).map(([role, k]) => ({ key_id: k.keyId, public_key: readFileSync(k.publicKeyPath, 'utf8'), roles: [role], not_before: '2020-01-01T00:00:00Z', not_after: '2099-01-01T00:00:00Z' })),
  };
  writeFileSync(join(scratch, 'policy.json'), JSON.stringify(policy));
  writeFileSync(join(scratch, 'trust.json'), JSON.stringify(trust));
  rootGov(['runnerd', 'setup', ...common, '--policy', join(scratch, 'policy.json'), '--trust', join(scratch, 'trust.json')]);

  // The writers' repositories and units: one per parallel client (client 0's serves the latency
  // rows), so parallel clients are not serialised on one unit's checkout (the daemon runs one
  // request per unit at a time, by design).
  const request = 'Add a CSV export of receipts.';
  const contract = {
    kind: 'governed/request-contract', version: 1, title: 'CSV export',
    sources: [{ id: 'SRC-1', path: 'requests/export.md', class: 'directive', atoms: [{ id: 'ATOM-1', span: [0, Buffer.byteLength(request)], kind: 'obligation', directives: ['DIR-1'] }] }],
    directives: [{ id: 'DIR-1', statement: request, state: 'active', sources: ['SRC-1'], targets: [{ id: 'TGT-1', paths: ['src/export.ts'] }], criteria: [{ id: 'AC-1', statement: 'One row per receipt.', atoms: ['ATOM-1'] }], implementations: ['IMP-1'], evidence: [] }],
    implementations: [{ id: 'IMP-1', paths: ['src/export.ts'] }], evidence: [], authorities: [], tombstones: [],
  };
  writeFileSync(join(scratch, 'contract.json'), JSON.stringify(contract));
  chmodSync(scratch, 0o755);
  chmodSync(join(scratch, 'contract.json'), 0o644);
  const ids = { uid: Number(sh('id', ['-u', WRITER])), gid: Number(sh('id', ['-g', WRITER])) };
  const repos: { dir: string; baseline: string }[] = [];
  for (let i = 0; i < PAR; i++) {
    const repo = mkdtempSync(join(tmpdir(), 'gvd-sep-bench-repo-'));
    dirs.push(repo);
    mkdirSync(join(repo, 'requests'));
    mkdirSync(join(repo, 'src'));
    writeFileSync(join(repo, 'requests', 'export.md'), request);
    writeFileSync(join(repo, 'src', 'export.ts'), 'export const csv = 1;\n');
    sh('git', ['init', '-q', '-b', 'main'], repo);
    sh('git', ['add', '-A'], repo);
    sh('git', ['commit', '-q', '-m', 'baseline'], repo);
    repos.push({ dir: repo, baseline: sh('git', ['rev-parse', 'HEAD'], repo) });
    writeFileSync(join(repo, 'src', 'export.ts'), 'export const csv = 2;\n');
    chownTree(repo, ids.uid, ids.gid);
  }
  const repo = repos[0]!.dir;

  // Profiling knobs (not measurements): BENCH_RUNNERD_DAEMON_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`)
  // and BENCH_RUNNERD_DAEMON_PREFIX (a command the daemon runs under, e.g. `strace -f -e trace=execve -o /tmp/t`).
  const nodeArgs = (process.env.BENCH_RUNNERD_DAEMON_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const probeOut = join(scratch, 'memory-probe.jsonl');
  if (PROBE) nodeArgs.push('--expose-gc', '--require', resolve('bench/tools/runnerd-memory-probe.cjs'));
  const prefix = (process.env.BENCH_RUNNERD_DAEMON_PREFIX ?? '').split(' ').filter(Boolean);
  const daemonArgv = [...prefix, process.execPath, ...nodeArgs, CLI, 'runnerd', 'serve', ...common, '--max-runs', String(Math.max(PAR, 2))];
  // The daemon runs with the environment its systemd unit gives it (docs/deploy/governed-runnerd.service),
  // so the numbers are those of the deployed daemon (its malloc settings among them).
  const daemon = spawn(daemonArgv[0] as string, daemonArgv.slice(1), {
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', ...unitEnvironment(), ...(PROBE ? { GOVERNED_BENCH_PROBE_OUT: probeOut } : {}) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const ready = await new Promise<Record<string, unknown>>((res, rej) => {
    let out = '';
    // The daemon logs on stderr (one JSON line when ready).
    daemon.stderr.on('data', (b: Buffer) => {
      out += b.toString();
      const line = out.split('\n').find((l) => l.includes('"ready":true'));
      if (line !== undefined) res(JSON.parse(line) as Record<string, unknown>);
    });
    daemon.on('close', (c) => rej(new Error(`daemon exited ${c}`)));
  });
  const daemonPid = Number(ready.daemon_pid);
  const hostPid = typeof ready.sandbox_host_pid === 'number' ? ready.sandbox_host_pid : null;
  // CPU of the daemon's whole tree (itself, its attestors, the sandbox host and every process they reaped).
  const daemonCpu = (): number => treeCpuMs(daemonPid);
  const cpuNow = (): number => selfChildrenCpuMs() + daemonCpu();
  try {
    const ok = async (args: string[], viaShell = false, cwd = repo): Promise<Record<string, unknown>> => {
      const r = await asWriter(args, cwd, socket, viaShell);
      if (r.code !== 0 && r.code !== 9) throw new Error(`governed ${args[0]} failed ${r.code}: ${r.out}`);
      return JSON.parse(r.out) as Record<string, unknown>;
    };
    const units: string[] = [];
    for (const r of repos) {
      const unit = (await ok(['unit', 'create', '--contract', join(scratch, 'contract.json'), '--baseline', r.baseline], false, r.dir)).unit as string;
      // Through a shell of the writer uid: the daemon registers the client's parent as the writer.
      await ok(['writer', 'register', '--unit', unit, '--writer-session', 'bench'], true, r.dir);
      units.push(unit);
    }
    const issueFor = async (i: number): Promise<string> =>
      (await ok(['review-challenge', '--unit', units[i]!, '--writer-session', 'bench', '--stage', 'development', '--slot', 'trivial'], false, repos[i]!.dir)).challenge_id as string;
    const issue = (): Promise<string> => issueFor(0);
    const runIn = async (c: string, cwd: string): Promise<number> => {
      const r = await asWriter(['review-run', '--challenge', c], cwd, socket);
      if (r.code !== 0) throw new Error(`review-run ${r.code}: ${r.out}`);
      return r.ms;
    };
    const run = (c: string): Promise<number> => runIn(c, repo);
    // Warm-up (every unit once), then interleaved.
    for (let i = 0; i < PAR; i++) await runIn(await issueFor(i), repos[i]!.dir);
    await nodeBaselineMs();
    await bareRunMs(TRIVIAL_COVERAGE_REVIEWER);
    const warm = { daemon: memOf(daemonPid), host: hostPid === null ? null : memOf(hostPid) };
    let runsDone = PAR;
    // The floor works on root-owned copies of the writer's files (git refuses another uid's repository), one per client.
    const floorRepos: string[] = [];
    for (let i = 0; i < PAR; i++) {
      const floorRepo = join(scratch, `floor-repo-${i}`);
      mkdirSync(join(floorRepo, 'requests'), { recursive: true });
      mkdirSync(join(floorRepo, 'src'));
      for (const f of ['requests/export.md', 'src/export.ts']) writeFileSync(join(floorRepo, f), readFileSync(join(repo, f)));
      sh('git', ['init', '-q'], floorRepo);
      floorRepos.push(floorRepo);
    }
    const floorOf = (i: number): Promise<number> => floorMs(floorRepos[i]!, join(scratch, `floor-daemon-${i}`));
    if (!RSS_ONLY) {
      // Where it goes: the same review-run line for the challenge just consumed — a node start, the
      // CLI's load, one socket round trip and the daemon's refusal (challenge consumed, exit 5), no run.
      const refusedRun = async (c: string): Promise<number> => {
        const r = await asWriter(['review-run', '--challenge', c], repo, socket);
        if (r.code !== 5) throw new Error(`review-run of a consumed challenge ${r.code}: ${r.out}`);
        return r.ms;
      };
      // Each sample: wall ms and CPU ms (user+sys of every process it started, the daemon's tree included).
      const timed = async (fn: () => Promise<number>): Promise<[number, number]> => {
        const c0 = cpuNow();
        const ms = await fn();
        return [ms, cpuNow() - c0];
      };
      type Row = { wall: number[]; cpu: number[] };
      const row = (): Row => ({ wall: [], cpu: [] });
      const t = { node: row(), bare: row(), run: row(), floor: row(), refused: row() };
      const push = (r: Row, [w, c]: [number, number]): void => {
        r.wall.push(w);
        r.cpu.push(c);
      };
      for (let i = 0; i < RUNS; i++) {
        const c = await issue();
        push(t.node, await timed(() => nodeBaselineMs()));
        push(t.bare, await timed(() => bareRunMs(TRIVIAL_COVERAGE_REVIEWER)));
        push(t.run, await timed(() => run(c)));
        push(t.floor, await timed(() => floorOf(0)));
        push(t.refused, await timed(() => refusedRun(c)));
      }
      runsDone += RUNS;
      const m = Object.fromEntries(Object.entries(t).map(([k, r]) => [k, median(r.wall)])) as Record<keyof typeof t, number>;
      const cpu = Object.fromEntries(Object.entries(t).map(([k, r]) => [k, median(r.cpu)])) as Record<keyof typeof t, number>;
      process.stdout.write(
        `load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}; n=${RUNS}, medians, interleaved\n` +
          `node -e '' ${m.node.toFixed(1)} ms | bare bwrap, same profile and reviewer ${m.bare.toFixed(1)} ms | review-run --runner ${m.run.toFixed(1)} ms | floor ${m.floor.toFixed(1)} ms\n` +
          `CPU (user+sys, every process, the daemon's tree included): node ${cpu.node.toFixed(0)} ms | bare ${cpu.bare.toFixed(0)} ms | review-run --runner ${cpu.run.toFixed(0)} ms | floor ${cpu.floor.toFixed(0)} ms\n` +
          `(run − bare) / node = ${((m.run - m.bare) / m.node).toFixed(2)}  (bar ≤ 1.5; the run includes the client's node start) | CPU ${((cpu.run - cpu.bare) / Math.max(cpu.node, 1)).toFixed(2)}\n` +
          `floor / node = ${(m.floor / m.node).toFixed(2)}  (the client's process plus the git steps the content rule requires, without the reviewer: no daemon can go below it) | CPU ${(cpu.floor / Math.max(cpu.node, 1)).toFixed(2)}\n` +
          `where it goes (report): client + one refused request (the consumed challenge again) ${m.refused.toFixed(1)} ms = ${(m.refused / m.node).toFixed(2)} node; ` +
          `the run's own daemon share (run − bare − that) / node = ${((m.run - m.bare - m.refused) / m.node).toFixed(2)}\n`,
      );
      // Throughput: PAR clients at once, each on its own unit, versus PAR bare bwrap runs at once, versus
      // the floor of PAR runs at once (each: the floor's processes, then the reviewer under bare bwrap —
      // what any daemon must at least do per run). Rounds interleaved; challenges issued untimed.
      const rounds = Math.max(QUICK ? 1 : 3, Math.floor(RUNS / 2));
      const tp = { daemon: { ms: 0, cpu: 0 }, bare: { ms: 0, cpu: 0 }, floor: { ms: 0, cpu: 0 } };
      const round = async (k: keyof typeof tp, fn: (i: number) => Promise<unknown>): Promise<void> => {
        const c0 = cpuNow();
        const t0 = process.hrtime.bigint();
        await Promise.all(Array.from({ length: PAR }, (_, i) => fn(i)));
        tp[k].ms += Number(process.hrtime.bigint() - t0) / 1e6;
        tp[k].cpu += cpuNow() - c0;
      };
      for (let r = 0; r < rounds; r++) {
        const chs: string[] = [];
        for (let i = 0; i < PAR; i++) chs.push(await issueFor(i));
        await round('daemon', (i) => runIn(chs[i]!, repos[i]!.dir));
        await round('bare', () => bareRunMs(TRIVIAL_COVERAGE_REVIEWER));
        await round('floor', async (i) => {
          await floorOf(i);
          await bareRunMs(TRIVIAL_COVERAGE_REVIEWER);
        });
      }
      runsDone += rounds * PAR;
      const rate = (k: keyof typeof tp): number => (rounds * PAR) / (tp[k].ms / 1000);
      const cpuPer = (k: keyof typeof tp): string => (tp[k].cpu / (rounds * PAR)).toFixed(0);
      process.stdout.write(
        `throughput with ${PAR} clients: ${rate('daemon').toFixed(2)} reviews/s vs bare bwrap ${rate('bare').toFixed(2)} runs/s = ${(rate('daemon') / rate('bare')).toFixed(2)} (report; aim ≥ 0.8)\n` +
          `throughput floor with ${PAR} clients: ${rate('floor').toFixed(2)} runs/s = ${(rate('floor') / rate('bare')).toFixed(2)} of bare (no daemon can do better: the floor's processes plus the reviewer, ${PAR} at once); daemon / floor = ${(rate('daemon') / rate('floor')).toFixed(2)}\n` +
          `throughput CPU per run (user+sys): daemon ${cpuPer('daemon')} ms | bare ${cpuPer('bare')} ms | floor ${cpuPer('floor')} ms; ${rounds} rounds interleaved; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}\n`,
      );
    }
    // The daemon's memory over many runs (docs/performance.md "Separated mode: bench/runnerd"): PAR
    // clients, each issuing then running on its own unit; each client changes its file every 400 of
    // its runs (a new content digest: max_runs_per_content allows at most 1,000 runs of one content).
    const rssStartRuns = runsDone;
    const samples: string[] = [];
    const per = Math.ceil(RSS_RUNS / PAR);
    let done = 0;
    let finished = 0;
    // The probe's line after a forced full collection (BENCH_RUNNERD_MEMORY_PROBE=1), or '' without it.
    let probeLines = 0;
    const probe = async (): Promise<string> => {
      if (!PROBE) return '';
      process.kill(daemonPid, 'SIGUSR2');
      for (let t = 0; t < 100; t++) {
        await sleep(50);
        let lines: string[] = [];
        try {
          lines = readFileSync(probeOut, 'utf8').trim().split('\n').filter(Boolean);
        } catch {
          continue;
        }
        if (lines.length > probeLines) {
          probeLines = lines.length;
          const p = JSON.parse(lines.at(-1) as string) as { young_before_gc: number; heapUsed: number; heapTotal: number; external: number };
          const mib = (x: number): string => (x / 1048576).toFixed(1);
          return `; young generation ${mib(p.young_before_gc)} MiB; after a full GC: heapUsed ${mib(p.heapUsed)} MiB, heap committed ${mib(p.heapTotal)} MiB, external ${mib(p.external)} MiB`;
        }
      }
      return '; probe: no answer';
    };
    const warmProbe = RSS_RUNS >= 100 ? await probe() : '';
    const cpu0 = statCpuMs(daemonPid, false);
    if (RSS_RUNS >= 100) process.stdout.write(`memory run: after warm-up (${runsDone} runs), daemon VmRSS ${warm.daemon.rss.toFixed(1)} MiB, VmHWM ${warm.daemon.hwm.toFixed(1)} MiB${warmProbe}; ${RSS_RUNS} runs by ${PAR} clients; the daemon's environment from its unit: ${Object.entries(unitEnvironment()).map(([k, v]) => `${k}=${v}`).join(' ') || 'none'}\n`);
    await Promise.all(
      Array.from({ length: PAR }, async (_, i) => {
        for (let k = 0; k < per && done < RSS_RUNS; k++) {
          done++;
          if (k > 0 && k % 400 === 0) {
            writeFileSync(join(repos[i]!.dir, 'src', 'export.ts'), `export const csv = ${k + 2};\n`);
          }
          await runIn(await issueFor(i), repos[i]!.dir);
          // Counted when a run has finished (two clients may both see a round count otherwise).
          finished++;
          if (finished % 100 === 0) {
            const at = finished;
            const now = memOf(daemonPid);
            const host = hostPid === null ? '' : `, sandbox host VmRSS ${memOf(hostPid).rss.toFixed(1)} MiB`;
            samples.push(`${at}:${now.rss.toFixed(1)}`);
            const gc = await probe();
            // Printed as it goes: a long memory run shows its trend even if it is stopped early.
            process.stdout.write(`memory run: ${at} runs, daemon VmRSS ${now.rss.toFixed(1)} MiB, VmHWM ${now.hwm.toFixed(1)} MiB${host}${gc}, load average ${loadavg()[0]?.toFixed(2)}\n`);
          }
        }
      }),
    );
    runsDone += done;
    const end = { daemon: memOf(daemonPid), host: hostPid === null ? null : memOf(hostPid) };
    const hostLine = warm.host === null || end.host === null ? '' : `; sandbox host ${warm.host.rss.toFixed(1)} → ${end.host.rss.toFixed(1)} MiB (growth ${(end.host.rss - warm.host.rss).toFixed(1)} MiB, VmHWM ${end.host.hwm.toFixed(1)} MiB)`;
    process.stdout.write(
      `daemon RSS after warm-up ${warm.daemon.rss.toFixed(1)} MiB (VmHWM ${warm.daemon.hwm.toFixed(1)} MiB) → after ${done} more runs ${end.daemon.rss.toFixed(1)} MiB (VmHWM ${end.daemon.hwm.toFixed(1)} MiB); ` +
        `growth ${(end.daemon.rss - warm.daemon.rss).toFixed(1)} MiB RSS, ${(end.daemon.hwm - warm.daemon.hwm).toFixed(1)} MiB VmHWM (report; bar: no growth beyond 20 MB over 1,000 runs; ${runsDone} runs in all, the first RSS sample after ${rssStartRuns})${hostLine}\n` +
        (samples.length > 0 ? `daemon RSS every 100 runs (runs:MiB): ${samples.join(' ')}\n` : '') +
        `daemon CPU (its own user+sys, without its children) over the memory runs: ${((statCpuMs(daemonPid, false) - cpu0) / Math.max(done, 1)).toFixed(1)} ms a run\n`,
    );
  } finally {
    // A daemon that already exited would never emit 'close' again: waiting for it would leave the
    // event loop empty and skip the caller's clean-up (its users stayed behind).
    if (daemon.exitCode === null && daemon.signalCode === null) {
      const closed = new Promise((r) => daemon.once('close', r));
      daemon.kill('SIGTERM');
      await closed;
    }
  }
}

/** The `Environment=NAME=VALUE` lines of the daemon's systemd unit (docs/deploy/governed-runnerd.service). */
function unitEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(resolve('docs/deploy/governed-runnerd.service'), 'utf8').split('\n')) {
    const m = /^Environment=([A-Z_]+)=(\S+)$/.exec(line);
    if (m !== null) env[m[1] as string] = m[2] as string;
  }
  return env;
}

/** VmRSS and VmHWM of a process, MiB (/proc/PID/status). */
function memOf(pid: number): { rss: number; hwm: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string): number => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(s)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

const TICK_MS = 10; // USER_HZ = 100 on Linux

/** user+sys of a process and every child it reaped (/proc/PID/stat fields 14–17), ms. */
function statCpuMs(pid: number | 'self', withChildren: boolean, self = true): number {
  try {
    const st = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = st.slice(st.lastIndexOf(')') + 2).split(' ').map(Number);
    // f[0] is field 3 (state): utime is field 14 → f[11].
    return ((self ? (f[11] ?? 0) + (f[12] ?? 0) : 0) + (withChildren ? (f[13] ?? 0) + (f[14] ?? 0) : 0)) * TICK_MS;
  } catch {
    return 0; // the process exited between the listing and the read
  }
}

/** This bench's reaped children (clients, bare runs, git of the floor), ms. */
const selfChildrenCpuMs = (): number => statCpuMs('self', true, false);

/** A live process tree's CPU: each live process's own time plus what it reaped, ms. */
function treeCpuMs(pid: number): number {
  let total = statCpuMs(pid, true);
  let kids: string[] = [];
  try {
    kids = readdirSync(`/proc/${pid}/task`).flatMap((t) => {
      try {
        return readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
      } catch {
        return [];
      }
    });
  } catch {
    return total;
  }
  for (const k of kids) total += treeCpuMs(Number(k));
  return total;
}

if (process.argv[1]?.endsWith("runnerd.mjs")) await main();
