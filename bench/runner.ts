// bench/runner (issue core-3): the cost of `governed review-run` around a trivial reviewer.
//
// In one process and interleaved per repetition (docs/performance.md#performance: compare ratios, not absolutes):
//   run   — wall time of one `governed review-run` CLI process (claim, pin, sandbox, strict output,
//           full drift re-hash, two attestor signatures, verification, commit) on a fresh challenge;
//   bare  — the SAME reviewer bytes under bare bwrap with the same static profile (bench/runner-bare);
//   node  — `node -e ''`.
// Reported: the medians and (run − bare) / node. Bar: ≤ 4. Challenges are issued in-process between
// timings and never timed. Setup builds a real world: git repository, keys, attestor configs for the
// shipped attestor, a policy with the real bwrap/profile/seccomp digests, `init`, `unit create`,
// `writer register` — all through the built CLI ($GOVERNED_CLI, else dist/governed.mjs).
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { inspectBwrap } from '../runner/sandbox/bwrap.js';
import { staticProfileSha256 } from '../runner/sandbox/profile.js';
import { seccompBlob } from '../runner/seccomp/index.js';
import { issueChallengeFlow } from '../src/flows/challenge.js';
import { keygen } from '../src/flows/keygen.js';
import { bareRunMs, nodeBaselineMs } from './runner-bare.js';
import { knob } from './lib/quick.js';

const RUNS = knob('BENCH_RUNS', 25, 1);
const CLI = resolve(process.env.GOVERNED_CLI ?? 'dist/governed.mjs');
const ATTESTOR = resolve(process.env.GOVERNED_ATTESTOR ?? 'attestors/ed25519-file.mjs');

/** Reads the bundle and echoes its coverage: the smallest honest reviewer (docs/reviewers.md#reviewer-output). Tolerates
 * bare bwrap's `{}` bundle so the very same bytes run in both measurements. */
export const TRIVIAL_COVERAGE_REVIEWER = Buffer.from(
  [
    "import { readFileSync } from 'node:fs';",
    "const b = JSON.parse(readFileSync(process.env.GOVERNED_BUNDLE, 'utf8'));",
    'const c = b.coverage ?? {};',
    'const s = (v) => Array.isArray(v) ? `[${v.map(s).join(",")}]` : v !== null && typeof v === "object" ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${s(v[k])}`).join(",")}}` : JSON.stringify(v);',
    "process.stdout.write(s({ coverage: c, findings: [], schema: 'governed.review-output/v1', verdict: 'CLEAN' }) + '\\n');",
    '',
  ].join('\n'),
);

const sha256 = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};

const GIT_ENV = {
  PATH: '/usr/bin:/bin',
  HOME: '/nonexistent',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
};

function sh(cmd: string, args: string[], cwd: string, env: Record<string, string> = GIT_ENV): string {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args[0]} failed: ${r.stderr}`);
  return r.stdout.trim();
}

function gov(args: string[], cwd: string, home: string): Record<string, unknown> {
  const r = spawnSync(process.execPath, [CLI, ...args, '--home', home, '--json'], { cwd, env: { PATH: '/usr/bin:/bin' }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`governed ${args[0]} failed (${r.status}): ${r.stdout} ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

export interface World {
  readonly dir: string;
  readonly repo: string;
  readonly home: string;
  readonly unit: string;
  readonly reviewers: string;
  readonly attestors: string;
}

/** A fresh world whose policy pins `attestor` (default: $GOVERNED_ATTESTOR, else the shipped one). */
export async function makeWorld(attestor: string = ATTESTOR): Promise<World> {
  const dir = mkdtempSync(join(tmpdir(), 'governed-bench-runner-'));
  const repo = join(dir, 'repo');
  mkdirSync(join(repo, 'requests'), { recursive: true });
  mkdirSync(join(repo, 'src'), { recursive: true });
  const request = 'Add a CSV export of receipts.';
  writeFileSync(join(repo, 'requests', 'export.md'), request);
  writeFileSync(join(repo, 'src', 'export.ts'), 'export const csv = 1;\n');
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
    copyFileSync(attestor, join(attestors, `${c}.mjs`));
  }
  const reviewers = join(dir, 'reviewers');
  mkdirSync(reviewers);
  writeFileSync(join(reviewers, 'trivial.mjs'), TRIVIAL_COVERAGE_REVIEWER);

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
  const attestorSha = sha256(readFileSync(attestor));
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
    stages: { development: { required: false, streak: 2, slots: { trivial: 'trivial' } } },
    reviewers: { trivial: { sha256: sha256(TRIVIAL_COVERAGE_REVIEWER), interpreter: '/usr/bin/node', env: {} } },
    sandbox: {
      bwrap_sha256: [(await inspectBwrap('/usr/bin/bwrap')).sha256],
      profile_sha256: [staticProfileSha256()],
      seccomp_sha256: [sha256(seccompBlob())],
      uid: 64500,
      timeout: '30s',
      memory: '2GiB',
      max_output: '1MiB',
      max_bundle: '64MiB',
    },
    credentials: { reviewer: cred('reviewer'), runner: cred('runner'), gate: cred('gate'), log: cred('log') },
    controls: [],
  };
  const end = Buffer.byteLength(request);
  const contract = {
    kind: 'governed/request-contract',
    version: 1,
    title: 'CSV export',
    sources: [{ id: 'SRC-1', path: 'requests/export.md', class: 'directive', atoms: [{ id: 'ATOM-1', span: [0, end], kind: 'obligation', directives: ['DIR-1'] }] }],
    directives: [
      {
        id: 'DIR-1',
        statement: request,
        state: 'active',
        sources: ['SRC-1'],
        targets: [{ id: 'TGT-1', paths: ['src/export.ts'] }],
        criteria: [{ id: 'AC-1', statement: 'One row per receipt.', atoms: ['ATOM-1'] }],
        implementations: ['IMP-1'],
        evidence: [],
      },
    ],
    implementations: [{ id: 'IMP-1', paths: ['src/export.ts'] }],
    evidence: [],
    authorities: [],
    tombstones: [],
  };
  for (const [name, doc] of [['policy', policy], ['trust', trust], ['contract', contract]] as const) {
    writeFileSync(join(dir, `${name}.json`), JSON.stringify(doc));
  }
  const home = join(dir, 'state');
  gov(['init', '--policy', join(dir, 'policy.json'), '--trust', join(dir, 'trust.json')], repo, home);
  const unit = gov(['unit', 'create', '--contract', join(dir, 'contract.json'), '--baseline', baseline], repo, home).unit as string;
  gov(['writer', 'register', '--unit', unit, '--writer-session', 'bench', '--pid', String(process.pid)], repo, home);
  writeFileSync(join(repo, 'src', 'export.ts'), 'export const csv = 2;\n');
  return { dir, repo, home, unit, reviewers, attestors };
}

export function timedRun(w: World, challenge: string, expectExit = 0): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const t0 = process.hrtime.bigint();
    const c = spawn(process.execPath, [CLI, 'review-run', '--challenge', challenge, '--reviewers-dir', w.reviewers, '--attestors', w.attestors, '--home', w.home, '--json'], {
      cwd: w.repo,
      env: { PATH: '/usr/bin:/bin' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    c.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
    c.stderr.on('data', (b: Buffer) => { if (process.env.BENCH_TRACE) process.stderr.write(b); });
    c.on('error', reject);
    c.on('close', (code) =>
      code === expectExit ? resolvePromise(Number(process.hrtime.bigint() - t0) / 1e6) : reject(new Error(`review-run exit ${code}: ${out}`)),
    );
  });
}

const SPEC_FLOOR = resolve(process.env.GOVERNED_RUNNER_FLOOR ?? 'dist/bench/floors/runner-floor.mjs');

/** One run of bench/floors/runner-floor.ts over this world's attestors, reviewer and repository. */
export function specFloorMs(w: World): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const t0 = process.hrtime.bigint();
    const c = spawn(process.execPath, [SPEC_FLOOR, w.attestors, join(w.reviewers, 'trivial.mjs'), w.repo], { env: { PATH: '/usr/bin:/bin' }, stdio: 'ignore' });
    c.on('error', reject);
    c.on('close', (code) => (code === 0 ? resolvePromise(Number(process.hrtime.bigint() - t0) / 1e6) : reject(new Error(`floor exit ${code}`))));
  });
}

export async function challenge(w: World): Promise<string> {
  const c = await issueChallengeFlow({ home: w.home, unit: w.unit, writerSession: 'bench', stage: 'development', slot: 'trivial', repo: w.repo, clock: () => Math.floor(Date.now() / 1000) });
  return c.challengeId;
}

async function main(): Promise<void> {
  const w = await makeWorld();
  try {
    const t = { node: [] as number[], bare: [] as number[], run: [] as number[], floor: [] as number[], spec: [] as number[] };
    // Warm-up (page cache, first bwrap/node start), not counted.
    for (let i = 0; i < 2; i++) {
      await timedRun(w, await challenge(w));
      await bareRunMs(TRIVIAL_COVERAGE_REVIEWER);
      await nodeBaselineMs();
    }
    for (let i = 0; i < RUNS; i++) {
      const id = await challenge(w);
      t.node.push(await nodeBaselineMs());
      t.bare.push(await bareRunMs(TRIVIAL_COVERAGE_REVIEWER));
      t.run.push(await timedRun(w, id));
      // The fixed cost of the CLI itself: a review-run refused at once (unknown challenge, exit 5).
      t.floor.push(await timedRun(w, `CHL-${'0'.repeat(32)}`, 5));
      // What the run's required processes alone cost (bench/floors/runner-floor.ts): no governed logic.
      t.spec.push(await specFloorMs(w));
    }
    const m = { node: median(t.node), bare: median(t.bare), run: median(t.run), floor: median(t.floor), spec: median(t.spec) };
    const ratio = (m.run - m.bare) / m.node;
    process.stdout.write(
      `node -e '' ${m.node.toFixed(1)} ms | bare bwrap, same profile and reviewer ${m.bare.toFixed(1)} ms | governed review-run ${m.run.toFixed(1)} ms\n` +
        `(run − bare) / node = ${ratio.toFixed(2)}  (bar ≤ 4; n=${RUNS}, medians, interleaved)\n` +
        `of which the CLI's fixed start-up (review-run refused at once) ${m.floor.toFixed(1)} ms = ${(m.floor / m.node).toFixed(2)} × node\n` +
        `floor: node + both pinned attestors + the bare reviewer + one git listing, nothing else ${m.spec.toFixed(1)} ms: ` +
        `(floor − bare) / node = ${((m.spec - m.bare) / m.node).toFixed(2)}\n`,
    );
    if (process.env.BENCH_ENFORCE === '1' && ratio > 4) process.exitCode = 1;
  } finally {
    rmSync(w.dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('runner.mjs')) await main();
