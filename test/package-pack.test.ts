// What `npm pack` ships (package.json "files"): only what a user needs — the built CLI and its
// chunks, the pinned attestor and reviewer programs, the policy templates, the example keys and the
// docs; no sources, tests, benchmarks or build scripts. The packed tarball, unpacked into an empty
// directory next to ONLY the production dependencies, runs `governed verify`, `setup` (its policy
// templates, reviewer and attestor found inside the package), `doctor` and the gate.
//
// Not an `npm install` of the tarball: this machine's npm cache holds no registry metadata for the
// dependencies (`npm install --offline` fails with ENOTCACHED, measured), and nothing may be
// downloaded at test time. The production dependency tree is linked from the local node_modules
// instead (`npm ls --omit=dev`), which proves the package needs nothing else.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { REPO_ROOT } from './helpers/cli.js';

let dir: string;
let files: string[];
let pkg: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gvd-eco-pack-'));
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: REPO_ROOT, encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'silent' } });
  const [info] = JSON.parse(out) as { filename: string; files: { path: string }[] }[];
  files = (info?.files ?? []).map((f) => f.path).sort();
  const app = join(dir, 'app');
  mkdirSync(join(app, 'node_modules'), { recursive: true });
  execFileSync('tar', ['xzf', join(dir, info?.filename ?? ''), '-C', app]);
  pkg = join(app, 'package');
  // The production dependency tree only, linked from this checkout's node_modules.
  const prod = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: REPO_ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((p) => p.startsWith(join(REPO_ROOT, 'node_modules')) || p.startsWith(join(REPO_ROOT, '..')));
  for (const p of new Set(prod)) {
    const rel = relative(join(REPO_ROOT, 'node_modules'), p);
    if (rel.startsWith('..') || rel.includes('/node_modules/')) continue; // nested copies come with their parent
    mkdirSync(join(app, 'node_modules', rel, '..'), { recursive: true });
    try {
      symlinkSync(p, join(app, 'node_modules', rel));
    } catch {
      // already linked (a scope directory listed twice)
    }
  }
  // Resolution from the unpacked package finds ./node_modules of the app directory.
  symlinkSync(join(app, 'node_modules'), join(pkg, 'node_modules'));
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[]) =>
  spawnSync(process.execPath, [join(pkg, 'dist', 'governed.mjs'), ...args], { cwd: dir, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', NO_COLOR: '1' } });

describe('the packed package', () => {
  it('ships only what a user needs', () => {
    const tops = [...new Set(files.map((f) => (f.includes('/') ? `${f.split('/')[0]}/` : f)))].sort();
    expect(tops).toEqual(['README.md', 'attestors/', 'dist/', 'docs/', 'keys.example/', 'package.json', 'policies/', 'runner/']);
    expect(files.filter((f) => /(^|\/)(src|test|bench|scripts)\//.test(f) || f.endsWith('.ts'))).toEqual([]);
    expect(files).toContain('attestors/ed25519-file.mjs');
    expect(files).toContain('runner/reviewers/coverage.mjs');
    expect(files.filter((f) => f.startsWith('dist/') && !f.startsWith('dist/chunks/')).sort()).toEqual(['dist/gate.mjs', 'dist/governed.mjs', 'dist/review-run.mjs']);
  });

  it('runs governed verify on a receipt, setup and doctor from the package, and the gate', () => {
    const fixture = join(REPO_ROOT, 'test', 'fixtures', 'receipt');
    const v = run(['verify', join(fixture, 'receipt.json'), '--trust', join(fixture, 'trust.json'), '--json']);
    expect(v.status, v.stderr).toBe(0);
    const s = run(['setup', '--out', join(dir, 'setup'), '--home', join(dir, 'home'), '--json']);
    expect(s.status, s.stderr).toBe(0);
    const d = run(['doctor', '--dir', join(dir, 'setup'), '--home', join(dir, 'home'), '--json']);
    expect(d.status, d.stdout).toBe(0);
    const setup = JSON.parse(s.stdout) as { policy_digest: string; trust: string };
    // The gate's cold path from the package: anchors checked, the store read, an unknown unit (exit 7).
    const g = run(['gate', '--home', join(dir, 'home'), '--unit', `UNIT-${'0'.repeat(32)}`, '--trust', setup.trust, '--policy-digest', setup.policy_digest, '--subject', 'a'.repeat(40), '--repo', dir, '--json']);
    const decision = JSON.parse(g.stdout) as { decision: string; error: { code: string } | null };
    expect(decision.decision).toBe('DENY');
    expect([7, 2]).toContain(g.status);
    expect(basename(pkg)).toBe('package');
  });
});
