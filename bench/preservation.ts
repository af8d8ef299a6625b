// bench/preservation: probing every surface of a product with 50 surfaces (25 CLI commands, 25
// library exports), baseline and current — `preservation probe` in-process (seal the tree from git
// objects or the workspace, the inventory run, one check-sandbox run per phase that runs every
// surface's real entry, re-verification of the sealed trees, the signed probe receipt, the logged
// record) — versus the same 100 entry commands, each under bare bwrap (read-only root, the product
// read-only at /snapshot, no network), in the same process and interleaved per repetition.
// Reported: medians and governed / bare. Bar: ≤ 1.3. Repetitions: BENCH_RUNS (default 3).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { inspectBwrap } from '../runner/sandbox/bwrap.js';
import { staticProfileSha256 } from '../runner/sandbox/profile.js';
import { seccompBlob } from '../runner/seccomp/index.js';
import { keygen } from '../src/flows/keygen.js';
import { closeStore, createUnit, initStore } from '../src/store/index.js';
import { resolveBaseline } from '../src/workspace/index.js';
import { setPreservationFlow } from '../src/flows/preservation/set.js';
import { probePreservationFlow } from '../src/flows/preservation/probe.js';
import { judgeBar, knob } from './lib/quick.js';

const RUNS = knob('BENCH_RUNS', 3, 1);
const N = knob('BENCH_PRESERVATION_N', 25, 2);
const ADAPTER = resolve('runner/preservation/node-adapter.mjs');
const ATTESTOR = resolve(process.env.GOVERNED_ATTESTOR ?? 'attestors/ed25519-file.mjs');
const sha = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const GIT_ENV = { PATH: '/usr/bin:/bin', HOME: '/nonexistent', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@x.invalid', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@x.invalid' };
const git = (cwd: string, ...args: string[]): string => {
  const r = spawnSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args[0]}`);
  return r.stdout.trim();
};

function product(dir: string): string {
  const repo = join(dir, 'product');
  mkdirSync(join(repo, 'bin'), { recursive: true });
  mkdirSync(join(repo, 'lib'));
  const bin: Record<string, string> = {};
  const exp: Record<string, string> = {};
  for (let i = 0; i < N; i++) {
    writeFileSync(join(repo, 'bin', `c${i}.js`), `if (process.argv.includes('--help')) process.stdout.write('usage: c${i}\\n\\nCommands:\\n  run   go\\n  stop  halt\\n');\n`);
    writeFileSync(join(repo, 'lib', `m${i}.js`), `export const f${i} = () => ${i};\nexport const g${i} = ${i};\n`);
    bin[`c${i}`] = `bin/c${i}.js`;
    exp[i === 0 ? '.' : `./m${i}`] = `./lib/m${i}.js`;
  }
  writeFileSync(join(repo, 'package.json'), JSON.stringify({ name: 'wide', version: '1.0.0', type: 'module', bin, exports: exp }));
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'b');
  chmodSync(dir, 0o755);
  return repo;
}

/** One entry command under bare bwrap: read-only root, the product at /snapshot, nothing else. */
function bareEntry(repo: string, argv: string[]): Promise<number> {
  const args = ['--unshare-all', '--die-with-parent', '--new-session', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--ro-bind', repo, '/tmp/snapshot', '--chdir', '/tmp/snapshot', '--', '/usr/bin/node', ...argv];
  return new Promise((res, rej) => {
    const c = spawn('/usr/bin/bwrap', args, { env: {}, stdio: ['ignore', 'pipe', 'pipe'] });
    c.stdout.resume();
    c.stderr.resume();
    c.on('error', rej);
    c.on('close', (code) => (code === 0 ? res(0) : rej(new Error(`bare exit ${code}`))));
  });
}

async function bareAll(repo: string): Promise<number> {
  const t0 = process.hrtime.bigint();
  for (let phase = 0; phase < 2; phase++) {
    for (let i = 0; i < N; i++) await bareEntry(repo, [`/tmp/snapshot/bin/c${i}.js`, '--help']);
    for (let i = 0; i < N; i++) await bareEntry(repo, ['--input-type=module', '-e', `const m = await import('file:///tmp/snapshot/lib/m${i}.js'); process.stdout.write(JSON.stringify(Object.keys(m)));`]);
  }
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

async function main(): Promise<void> {
  if (process.geteuid?.() !== 0) {
    process.stdout.write('bench/preservation: needs root (the sandbox uid); skipped\n');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'governed-bench-pres-'));
  try {
    const repo = product(dir);
    const keys = Object.fromEntries(['reviewer', 'runner', 'gate', 'log', 'probe'].map((c) => [c, keygen(c, join(dir, 'keys'))]));
    const pem = (c: string): string => readFileSync((keys[c] as { publicKeyPath: string }).publicKeyPath, 'utf8');
    const kid = (c: string): string => (keys[c] as { keyId: string }).keyId;
    const trust = { version: 1, expires: '2099-01-01T00:00:00Z', keys: Object.keys(keys).map((c) => ({ key_id: kid(c), public_key: pem(c), roles: [c], not_before: '2020-01-01T00:00:00Z', not_after: '2099-01-01T00:00:00Z' })) };
    const attestors = join(dir, 'attestors');
    mkdirSync(attestors);
    copyFileSync(ATTESTOR, join(attestors, 'probe.mjs'));
    const cfg = JSON.stringify({ credential: 'probe', kind: 'probe', key_id: kid('probe'), key_ref: (keys.probe as { privateKeyPath: string }).privateKeyPath });
    writeFileSync(join(attestors, 'probe.json'), cfg);
    const bw = await inspectBwrap('/usr/bin/bwrap');
    const H = (c: string): string => c.repeat(64);
    const cred = (c: string) => ({ key_id: kid(c), attestor_sha256: [H('e')], attestor_config_sha256: [H('f')] });
    const policy = {
      kind: 'governed/policy',
      version: 1,
      trust_mode: 'co-located',
      accept_co_located: true,
      challenge_ttl: '10m',
      max_runs_per_content: 12,
      product_roots: ['.'],
      exclude: ['.governed'],
      preservation: 'required',
      stages: { development: { required: true, streak: 2, slots: { coverage: 'coverage' } } },
      reviewers: { coverage: { sha256: H('1'), interpreter: '/usr/bin/node', env: {} } },
      sandbox: { bwrap_sha256: [bw.sha256], profile_sha256: [staticProfileSha256('check')], seccomp_sha256: [sha(seccompBlob())], uid: 64500, timeout: '120s', memory: '2GiB', max_output: '1MiB', max_bundle: '64MiB' },
      credentials: { reviewer: cred('reviewer'), runner: cred('runner'), gate: cred('gate'), log: cred('log'), probe: { key_id: kid('probe'), attestor_sha256: [sha(readFileSync(ATTESTOR))], attestor_config_sha256: [sha(cfg)] } },
      controls: [],
      preservation_adapters: { sha256: [sha(readFileSync(ADAPTER))], interpreter: '/usr/bin/node' },
    };
    const home = join(dir, 'state');
    const now = Math.floor(Date.now() / 1000);
    const store = initStore(home, { policyBytes: Buffer.from(JSON.stringify(policy)), trustBytes: Buffer.from(JSON.stringify(trust)), now: now - 5 });
    const base = await resolveBaseline(repo, 'HEAD');
    const { unitId } = createUnit(store, { baselineCommit: base.commit, baselineTree: base.tree, now: now - 4 });
    closeStore(store);
    const surfaces = [
      ...Array.from({ length: N }, (_, i) => ({ id: `SURF-c${i}`, kind: 'cli_command', paths: [`bin/c${i}.js`], disposition: 'preserve', probe: `bin:c${i}`, baseline_evidence_id: `EVB-c${i}`, current_evidence_id: `EVC-c${i}` })),
      ...Array.from({ length: N }, (_, i) => ({ id: `SURF-m${i}`, kind: 'library_export', paths: [`lib/m${i}.js`], disposition: 'preserve', probe: i === 0 ? 'export:.' : `export:./m${i}`, baseline_evidence_id: `EVB-m${i}`, current_evidence_id: `EVC-m${i}` })),
    ];
    writeFileSync(join(dir, 'p.json'), JSON.stringify({ kind: 'governed/preservation-contract', version: 1, baseline: base.commit, intent: 'keep all', surfaces, vendor_sources: [] }));
    setPreservationFlow({ home, unit: unitId, contractFile: join(dir, 'p.json'), authorities: [], noIncidentHistory: false, now });
    const governed = async (): Promise<number> => {
      const t0 = process.hrtime.bigint();
      for (const phase of ['baseline', 'current'] as const) {
        const r = await probePreservationFlow({ home, unit: unitId, repo, phase, surface: null, adapter: ADAPTER, attestorsDir: attestors, now: Math.floor(Date.now() / 1000) });
        if (r.probes.length !== 2 * N || r.probes.some((p) => p.exitCode !== 0)) throw new Error('probe failed');
      }
      return Number(process.hrtime.bigint() - t0) / 1e6;
    };
    await governed();
    await bareAll(repo);
    const t = { governed: [] as number[], bare: [] as number[] };
    for (let i = 0; i < RUNS; i++) {
      t.governed.push(await governed());
      t.bare.push(await bareAll(repo));
    }
    const g = median(t.governed);
    const b = median(t.bare);
    const ratio = g / b;
    process.stdout.write(
      `${2 * N} surfaces × 2 phases: preservation probe ${g.toFixed(0)} ms | the same ${4 * N} entry commands under bare bwrap ${b.toFixed(0)} ms\n` +
        `governed / bare = ${ratio.toFixed(2)} (bar ≤ 1.3; n=${RUNS}, medians, interleaved) ${ratio <= 1.3 ? 'OK' : 'OVER THE BAR'}\n`,
    );
    judgeBar(ratio <= 1.3);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
