// bench/checks: the cost of running a project's test suite through a check reviewer.
//
// In one process and interleaved per repetition (compare ratios, not absolutes):
//   run   — wall time of one `governed review-run` CLI process on a fresh challenge of a check slot:
//           the pinned check-tests adapter runs `node --test --test-reporter=tap` on the sealed
//           snapshot (claim, pin, sealing the workspace and the dependency root, sandbox, TAP
//           mapping, re-verification of both sealed trees, full drift re-hash, two signatures, commit);
//   bare  — the same command (`node --test --test-reporter=tap /snapshot/test/…`) under bare bwrap
//           with the check profile's argv and the same two read-only binds (trees sealed once,
//           outside the timing): no governed, no adapter;
//   node  — `node -e ''`.
// Reported: the medians and (run − bare) / node. Aim ≤ 3 (printed, not judged: not met yet, see
// docs/reviewers.md#cost-benchchecks). BENCH_RUNS sets the repetitions (default 15; `--quick`: 1,
// bench/lib/quick.ts). Setup is a real world built with the CLI, as bench/runner's.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { buildBwrapArgv, FD_NUMBERS } from '../runner/sandbox/argv.js';
import { inspectBwrap } from '../runner/sandbox/bwrap.js';
import { DEFAULT_LIMITS, type SandboxLimits } from '../runner/sandbox/limits.js';
import { staticProfileSha256 } from '../runner/sandbox/profile.js';
import { seccompBlob } from '../runner/seccomp/index.js';
import { issueChallengeFlow } from '../src/flows/challenge.js';
import { keygen } from '../src/flows/keygen.js';
import { computeWorkspaceManifest } from '../src/workspace/index.js';
import { digestDirectory, makeSealRoot, openSealedDir, removeSealed, sealDirectory, sealWorkspace } from '../src/workspace/snapshot.js';
import { nodeBaselineMs } from './runner-bare.js';
import { knob } from './lib/quick.js';

const RUNS = knob('BENCH_RUNS', 15, 1);
const WARMUP = knob('BENCH_WARMUP', 2, 0);
const CLI = resolve(process.env.GOVERNED_CLI ?? 'dist/governed.mjs');
const ATTESTOR = resolve('attestors/ed25519-file.mjs');
const ADAPTER = resolve('runner/reviewers/check-tests.mjs');
const NODE = '/usr/bin/node';
const COMMAND = [NODE, '--test', '--test-reporter=tap'];
const LIMITS: SandboxLimits = { timeoutMs: 60_000, memoryBytes: 4 * 1024 ** 3, maxOutputBytes: 1 << 20, ...DEFAULT_LIMITS };

const sha256 = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const GIT_ENV = { PATH: '/usr/bin:/bin', HOME: '/nonexistent', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@example.invalid', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@example.invalid' };

function sh(cmd: string, args: string[], cwd: string): string {
  const r = spawnSync(cmd, args, { cwd, env: GIT_ENV, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args[0]} failed: ${r.stderr}`);
  return r.stdout.trim();
}
function gov(args: string[], cwd: string, home: string): Record<string, unknown> {
  const r = spawnSync(process.execPath, [CLI, ...args, '--home', home, '--json'], { cwd, env: { PATH: '/usr/bin:/bin' }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`governed ${args[0]} failed (${r.status}): ${r.stdout} ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

const TESTS = Array.from({ length: 20 }, (_, i) => `test('case ${i}', () => { assert.equal(sum(${i}, 1), ${i + 1}); });`).join('\n');

async function makeWorld(): Promise<{ dir: string; repo: string; home: string; unit: string; attestors: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'governed-bench-checks-'));
  const repo = join(dir, 'repo');
  for (const d of ['requests', 'src', 'test', 'node_modules/dep']) mkdirSync(join(repo, d), { recursive: true });
  const request = 'Add a sum function.';
  writeFileSync(join(repo, 'requests', 'sum.md'), request);
  writeFileSync(join(repo, '.gitignore'), 'node_modules/\n');
  writeFileSync(join(repo, 'package.json'), '{"type":"module"}\n');
  writeFileSync(join(repo, 'src', 'sum.js'), 'export const sum = (a, b) => a + b;\n');
  writeFileSync(join(repo, 'test', 'sum.test.js'), `import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport { sum } from '../src/sum.js';\n${TESTS}\n`);
  writeFileSync(join(repo, 'node_modules', 'dep', 'index.js'), 'export default 1;\n');
  sh('/usr/bin/git', ['init', '-q', '-b', 'main'], repo);
  sh('/usr/bin/git', ['add', '-A'], repo);
  sh('/usr/bin/git', ['commit', '-q', '-m', 'baseline'], repo);
  const baseline = sh('/usr/bin/git', ['rev-parse', 'HEAD'], repo);
  const keys = Object.fromEntries(['reviewer', 'runner', 'gate', 'log'].map((c) => [c, keygen(c, join(dir, 'keys'))]));
  const attestors = join(dir, 'attestors');
  mkdirSync(attestors);
  for (const c of ['reviewer', 'runner']) {
    const k = keys[c] as { keyId: string; privateKeyPath: string };
    writeFileSync(join(attestors, `${c}.json`), JSON.stringify({ credential: c, kind: 'review-receipt', key_id: k.keyId, key_ref: k.privateKeyPath }));
    copyFileSync(ATTESTOR, join(attestors, `${c}.mjs`));
  }
  const trust = {
    version: 1,
    expires: '2099-01-01T00:00:00Z',
    keys: Object.entries(keys).map(([role, k]) => ({
      key_id: (k as { keyId: string }).keyId,
      public_key: readFileSync((k as { publicKeyPath: string }).publicKeyPath, 'utf8'),
      roles: [role],
      not_before: '2020-01-01T00:00:00Z',
      not_after: '2099-01-01T00:00:00Z',
    })),
  };
  const attestorSha = sha256(readFileSync(ATTESTOR));
  const cred = (c: string): Record<string, unknown> => ({
    key_id: (keys[c] as { keyId: string }).keyId,
    attestor_sha256: [attestorSha],
    attestor_config_sha256: [c === 'reviewer' || c === 'runner' ? sha256(readFileSync(join(attestors, `${c}.json`))) : '7'.repeat(64)],
  });
  const policy = {
    kind: 'governed/policy',
    version: 1,
    trust_mode: 'co-located',
    accept_co_located: true,
    challenge_ttl: '10m',
    max_runs_per_content: 1000,
    product_roots: ['.'],
    exclude: [],
    preservation: { waived: 'bench' },
    stages: { test: { required: true, streak: 2, slots: { tests: 'node-tests' } } },
    reviewers: {
      'node-tests': { sha256: sha256(readFileSync(ADAPTER)), interpreter: NODE, env: {}, check: { adapter: 'check-tests', command: COMMAND, dependency_root: 'node_modules', report: 'tap' } },
    },
    sandbox: {
      bwrap_sha256: [(await inspectBwrap('/usr/bin/bwrap')).sha256],
      profile_sha256: [staticProfileSha256(), staticProfileSha256('check')],
      seccomp_sha256: [sha256(seccompBlob())],
      uid: 64500,
      timeout: '60s',
      memory: '4GiB',
      max_output: '1MiB',
      max_bundle: '64MiB',
    },
    credentials: { reviewer: cred('reviewer'), runner: cred('runner'), gate: cred('gate'), log: cred('log') },
    controls: [],
  };
  const contract = {
    kind: 'governed/request-contract',
    version: 1,
    title: 'sum',
    sources: [{ id: 'SRC-1', path: 'requests/sum.md', class: 'directive', atoms: [{ id: 'ATOM-1', span: [0, Buffer.byteLength(request)], kind: 'obligation', directives: ['DIR-1'] }] }],
    directives: [
      {
        id: 'DIR-1',
        statement: request,
        state: 'active',
        sources: ['SRC-1'],
        targets: [{ id: 'TGT-1', paths: ['src/sum.js'] }],
        criteria: [{ id: 'AC-1', statement: 'sum adds.', atoms: ['ATOM-1'] }],
        implementations: ['IMP-1'],
        evidence: ['EVD-1'],
      },
    ],
    implementations: [{ id: 'IMP-1', paths: ['src/sum.js'] }],
    evidence: [{ id: 'EVD-1', kind: 'test', paths: ['test/sum.test.js'] }],
    authorities: [],
    tombstones: [],
  };
  for (const [name, doc] of [['policy', policy], ['trust', trust], ['contract', contract]] as const) writeFileSync(join(dir, `${name}.json`), JSON.stringify(doc));
  const home = join(dir, 'state');
  gov(['init', '--policy', join(dir, 'policy.json'), '--trust', join(dir, 'trust.json')], repo, home);
  const unit = gov(['unit', 'create', '--contract', join(dir, 'contract.json'), '--baseline', baseline], repo, home).unit as string;
  gov(['writer', 'register', '--unit', unit, '--writer-session', 'bench', '--pid', String(process.pid)], repo, home);
  writeFileSync(join(repo, 'src', 'sum.js'), 'export const sum = (a, b) => b + a;\n');
  return { dir, repo, home, unit, attestors };
}

function timedRun(w: Awaited<ReturnType<typeof makeWorld>>, challenge: string): Promise<number> {
  return new Promise((res, rej) => {
    const t0 = process.hrtime.bigint();
    const c = spawn(process.execPath, [CLI, 'review-run', '--challenge', challenge, '--reviewers-dir', resolve('runner/reviewers'), '--attestors', w.attestors, '--home', w.home, '--json'], {
      cwd: w.repo,
      env: { PATH: '/usr/bin:/bin' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    c.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
    c.stderr.resume();
    c.on('error', rej);
    c.on('close', (code) => (code === 0 ? res(Number(process.hrtime.bigint() - t0) / 1e6) : rej(new Error(`review-run exit ${code}: ${out}`))));
  });
}

/** The same command under bare bwrap, check profile argv, the same two read-only binds. */
function bareMs(snapshotFd: number, depFd: number): Promise<number> {
  const argv = buildBwrapArgv({ interpreter: NODE, env: {}, limits: LIMITS, profile: 'check', dependencyRoot: 'node_modules' });
  // The profile ends with `<interpreter> /opt/reviewer/reviewer`: run the command itself instead.
  const cmd = [...argv.slice(0, -2), ...COMMAND, '/snapshot/test/sum.test.js'];
  const uid = process.geteuid?.() === 0 ? { uid: 64500, gid: 64500 } : {};
  return new Promise((res, rej) => {
    const t0 = process.hrtime.bigint();
    const c = spawn('/usr/bin/bwrap', cmd, {
      env: {},
      cwd: '/',
      stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'ignore', snapshotFd, depFd],
      ...uid,
    });
    const fd = c.stdio as unknown as (Writable & NodeJS.ReadableStream)[];
    fd[FD_NUMBERS.seccomp]?.end(seccompBlob());
    fd[FD_NUMBERS.block]?.end('1');
    fd[FD_NUMBERS.go]?.end('go\n');
    fd[FD_NUMBERS.bundle]?.end('{}');
    fd[FD_NUMBERS.reviewer]?.end('');
    fd[FD_NUMBERS.status]?.on('data', () => undefined);
    c.stdout?.resume();
    c.stderr?.resume();
    c.on('error', rej);
    c.on('close', (code) => (code === 0 ? res(Number(process.hrtime.bigint() - t0) / 1e6) : rej(new Error(`bare exit ${code}`))));
  });
}

async function main(): Promise<void> {
  const w = await makeWorld();
  const seal = makeSealRoot('bench');
  try {
    const scope = { productRoots: ['.'], exclude: [] };
    const work = await computeWorkspaceManifest(w.repo, scope);
    const snap = await sealWorkspace({ repo: w.repo, scope, into: join(seal, 'snapshot'), expectedDigest: work.digest, mountPoints: ['node_modules'] });
    const deps = sealDirectory({ source: join(w.repo, 'node_modules'), into: join(seal, 'deps'), expectedDigest: digestDirectory(join(w.repo, 'node_modules')).digest, driftId: 'dependency_root' });
    const sfd = openSealedDir(snap);
    const dfd = openSealedDir(deps);
    const issue = async (): Promise<string> =>
      (await issueChallengeFlow({ home: w.home, unit: w.unit, writerSession: 'bench', stage: 'test', slot: 'tests', repo: w.repo, clock: () => Math.floor(Date.now() / 1000) })).challengeId;
    const t = { node: [] as number[], bare: [] as number[], run: [] as number[] };
    for (let i = 0; i < WARMUP; i++) {
      await timedRun(w, await issue());
      await bareMs(sfd, dfd);
      await nodeBaselineMs();
    }
    for (let i = 0; i < RUNS; i++) {
      const id = await issue();
      t.node.push(await nodeBaselineMs());
      t.bare.push(await bareMs(sfd, dfd));
      t.run.push(await timedRun(w, id));
    }
    closeSync(sfd);
    closeSync(dfd);
    const m = { node: median(t.node), bare: median(t.bare), run: median(t.run) };
    const ratio = (m.run - m.bare) / m.node;
    process.stdout.write(
      `node -e '' ${m.node.toFixed(1)} ms | bare bwrap: node --test, check profile, same binds ${m.bare.toFixed(1)} ms | governed review-run, check slot ${m.run.toFixed(1)} ms\n` +
        `(run − bare) / node = ${ratio.toFixed(2)}  (aim ≤ 3; n=${RUNS}, medians, interleaved)\n`,
    );
  } finally {
    removeSealed(seal);
    rmSync(w.dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('checks.mjs')) await main();
