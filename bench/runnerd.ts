// bench/runnerd (docs/runnerd.md): review-run through the daemon versus the same reviewer under bare
// bubblewrap, measured interleaved in one run, as root (the daemon needs its users):
//   node  — `node -e ''` (the unit of the ratio);
//   bare  — the trivial reviewer under bare bwrap with the same static profile (bench/runner-bare);
//   run   — `governed review-run --runner S --challenge C --json` as a writer uid, client start to
//           answer (challenges are issued through the daemon between runs, untimed).
// Reported: medians and (run − bare) / node (bar ≤ 1.5); throughput with N parallel clients versus
// bare bwrap runs/s (report; aim ≥ 0.8); the daemon's RSS before and after the runs. Trial counts:
// BENCH_RUNNERD_RUNS (default 15), BENCH_RUNNERD_PARALLEL (default 2), BENCH_RUNNERD_RSS_RUNS
// (default 50; the issue's check is 1000).
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
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
const RSS_RUNS = knob('BENCH_RUNNERD_RSS_RUNS', 50, 1);
const PREFIX = 'gvd-sep';
const WRITERS = 'gvd-sep-w';
const WRITER = 'gvd-sep-w1';
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
  if (spawnSync('getent', ['group', WRITERS]).status !== 0) sh('groupadd', ['--system', WRITERS]);
  if (spawnSync('id', [WRITER]).status !== 0) sh('useradd', ['--no-create-home', '--shell', '/usr/sbin/nologin', '--user-group', WRITER]);
  sh('usermod', ['-a', '-G', WRITERS, WRITER]);
  const base = mkdtempSync(join(tmpdir(), 'gvd-sep-bench-'));
  chmodSync(base, 0o755);
  const socket = join(base, 'run', 'runnerd.sock');
  const scratch = mkdtempSync(join(tmpdir(), 'gvd-sep-bench-keys-'));
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

  // The writer's repository and unit.
  const repo = mkdtempSync(join(tmpdir(), 'gvd-sep-bench-repo-'));
  const request = 'Add a CSV export of receipts.';
  mkdirSync(join(repo, 'requests'));
  mkdirSync(join(repo, 'src'));
  writeFileSync(join(repo, 'requests', 'export.md'), request);
  writeFileSync(join(repo, 'src', 'export.ts'), 'export const csv = 1;\n');
  sh('git', ['init', '-q', '-b', 'main'], repo);
  sh('git', ['add', '-A'], repo);
  sh('git', ['commit', '-q', '-m', 'baseline'], repo);
  const baseline = sh('git', ['rev-parse', 'HEAD'], repo);
  writeFileSync(join(repo, 'src', 'export.ts'), 'export const csv = 2;\n');
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
  chownTree(repo, ids.uid, ids.gid);

  const daemon = spawn(process.execPath, [CLI, 'runnerd', 'serve', ...common, '--max-runs', String(Math.max(PAR, 2))], { env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' }, stdio: ['ignore', 'ignore', 'pipe'] });
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
  const rss = (): number => Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${String(ready.daemon_pid)}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  try {
    const ok = async (args: string[], viaShell = false): Promise<Record<string, unknown>> => {
      const r = await asWriter(args, repo, socket, viaShell);
      if (r.code !== 0 && r.code !== 9) throw new Error(`governed ${args[0]} failed ${r.code}: ${r.out}`);
      return JSON.parse(r.out) as Record<string, unknown>;
    };
    const unit = (await ok(['unit', 'create', '--contract', join(scratch, 'contract.json'), '--baseline', baseline])).unit as string;
    // Through a shell of the writer uid: the daemon registers the client's parent as the writer.
    await ok(['writer', 'register', '--unit', unit, '--writer-session', 'bench'], true);
    const issue = async (): Promise<string> => (await ok(['review-challenge', '--unit', unit, '--writer-session', 'bench', '--stage', 'development', '--slot', 'trivial'])).challenge_id as string;
    const run = async (c: string): Promise<number> => {
      const r = await asWriter(['review-run', '--challenge', c], repo, socket);
      if (r.code !== 0) throw new Error(`review-run ${r.code}: ${r.out}`);
      return r.ms;
    };
    // Warm-up, then interleaved.
    await run(await issue());
    await nodeBaselineMs();
    await bareRunMs(TRIVIAL_COVERAGE_REVIEWER);
    const rssStart = rss();
    // The floor works on a root-owned copy of the writer's files (git refuses another uid's repository).
    const floorRepo = join(scratch, 'floor-repo');
    mkdirSync(join(floorRepo, 'requests'), { recursive: true });
    mkdirSync(join(floorRepo, 'src'));
    for (const f of ['requests/export.md', 'src/export.ts']) writeFileSync(join(floorRepo, f), readFileSync(join(repo, f)));
    sh('git', ['init', '-q'], floorRepo);
    const t = { node: [] as number[], bare: [] as number[], run: [] as number[], floor: [] as number[] };
    for (let i = 0; i < RUNS; i++) {
      const c = await issue();
      t.node.push(await nodeBaselineMs());
      t.bare.push(await bareRunMs(TRIVIAL_COVERAGE_REVIEWER));
      t.run.push(await run(c));
      t.floor.push(await floorMs(floorRepo, join(scratch, 'floor-daemon')));
    }
    const m = { node: median(t.node), bare: median(t.bare), run: median(t.run), floor: median(t.floor) };
    process.stdout.write(
      `node -e '' ${m.node.toFixed(1)} ms | bare bwrap, same profile and reviewer ${m.bare.toFixed(1)} ms | review-run --runner ${m.run.toFixed(1)} ms | floor ${m.floor.toFixed(1)} ms\n` +
        `(run − bare) / node = ${((m.run - m.bare) / m.node).toFixed(2)}  (bar ≤ 1.5; n=${RUNS}, medians, interleaved; the run includes the client's node start)\n` +
        `floor / node = ${(m.floor / m.node).toFixed(2)}  (the client's process plus the git steps the content rule requires, without the reviewer: no daemon can go below it)\n`,
    );
    // Throughput: PAR clients, each issuing then running; versus PAR bare runs at once.
    const rounds = Math.max(QUICK ? 1 : 3, Math.floor(RUNS / 2));
    const chs: string[] = [];
    for (let i = 0; i < rounds * PAR; i++) chs.push(await issue());
    let t0 = Date.now();
    for (let r = 0; r < rounds; r++) await Promise.all(chs.slice(r * PAR, (r + 1) * PAR).map(run));
    const daemonRate = (rounds * PAR) / ((Date.now() - t0) / 1000);
    t0 = Date.now();
    for (let r = 0; r < rounds; r++) await Promise.all(Array.from({ length: PAR }, () => bareRunMs(TRIVIAL_COVERAGE_REVIEWER)));
    const bareRate = (rounds * PAR) / ((Date.now() - t0) / 1000);
    process.stdout.write(`throughput with ${PAR} clients: ${daemonRate.toFixed(2)} reviews/s vs bare bwrap ${bareRate.toFixed(2)} runs/s = ${(daemonRate / bareRate).toFixed(2)} (report; aim ≥ 0.8)\n`);
    for (let i = 0; i < RSS_RUNS; i++) await run(await issue());
    process.stdout.write(`daemon RSS ${rssStart.toFixed(1)} MiB → ${rss().toFixed(1)} MiB after ${RSS_RUNS + RUNS + rounds * PAR} more runs (report; no growth beyond 20 MB over 1000)\n`);
  } finally {
    daemon.kill('SIGTERM');
    await new Promise((r) => daemon.on('close', r));
    for (const d of [base, scratch, repo]) rmSync(d, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith("runnerd.mjs")) await main();
