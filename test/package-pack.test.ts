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
  // The library's type declarations (what `prepack` adds to a build); then pack WITHOUT lifecycle
  // scripts: `prepack` rebuilds dist/, which other test files running in parallel are using.
  execFileSync(process.execPath, [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(REPO_ROOT, 'tsconfig.lib.json')], { cwd: REPO_ROOT });
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, npm_config_loglevel: 'silent' },
  });
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
  // Resolution from the unpacked package finds ./node_modules of the app directory; the app finds
  // the package itself by its name.
  symlinkSync(join(app, 'node_modules'), join(pkg, 'node_modules'));
  symlinkSync(pkg, join(app, 'node_modules', 'governed'));
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[]) =>
  spawnSync(process.execPath, [join(pkg, 'dist', 'governed.mjs'), ...args], { cwd: dir, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', NO_COLOR: '1' } });

describe('the packed package', () => {
  it('ships only what a user needs', () => {
    const tops = [...new Set(files.map((f) => (f.includes('/') ? `${f.split('/')[0]}/` : f)))].sort();
    expect(tops).toEqual(['README.md', 'attestors/', 'dist/', 'docs/', 'keys.example/', 'native/', 'package.json', 'policies/', 'runner/', 'scripts/']);
    // No sources, tests, benchmarks or scripts (the type declarations of the library entry aside, and
    // the runnerd addon's C source with the one script that builds it at install: docs/runnerd.md).
    expect(files.filter((f) => f.startsWith('scripts/'))).toEqual(['scripts/build-peercred.mjs']);
    expect(files.filter((f) => f.startsWith('native/')).every((f) => f.endsWith('.c'))).toBe(true);
    expect(files.filter((f) => !f.startsWith('dist/types/') && f !== 'scripts/build-peercred.mjs' && (/(^|\/)(src|test|bench|scripts)\//.test(f) || f.endsWith('.ts')))).toEqual([]);
    expect(files.filter((f) => f.startsWith('dist/types/') && !f.endsWith('.d.ts'))).toEqual([]);
    expect(files).toContain('attestors/ed25519-file.mjs');
    expect(files).toContain('runner/reviewers/coverage.mjs');
    expect(files.filter((f) => f.startsWith('dist/') && !f.startsWith('dist/chunks/') && !f.startsWith('dist/types/')).sort()).toEqual([
      'dist/audit-receipt-worker.mjs',
      'dist/gate.mjs',
      'dist/governed.mjs',
      'dist/lib.mjs',
      'dist/review-run.mjs',
    ]);
    expect(files).toContain('dist/types/src/core/lib.d.ts');
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

  it('the library entry verifies a receipt from another Node program, and refuses one changed byte with its code', () => {
    const fixture = join(REPO_ROOT, 'test', 'fixtures', 'receipt');
    const program = `
      import { readFileSync } from 'node:fs';
      import { loadTrustRoot, verifyReceiptBytes, isGovernedError } from 'governed';
      const trust = loadTrustRoot(JSON.parse(readFileSync(${JSON.stringify(join(fixture, 'trust.json'))}, 'utf8')));
      const bytes = readFileSync(${JSON.stringify(join(fixture, 'receipt.json'))});
      const ok = verifyReceiptBytes(bytes, trust, { at: '2027-01-01T00:00:00Z', offline: true });
      const env = JSON.parse(bytes.toString('utf8'));
      const p = Buffer.from(env.payload, 'base64'); p[p.length - 2] ^= 1;
      let code = null;
      try { verifyReceiptBytes(Buffer.from(JSON.stringify({ ...env, payload: p.toString('base64') })), trust, { at: '2027-01-01T00:00:00Z', offline: true }); }
      catch (e) { code = isGovernedError(e) ? e.code : 'other'; }
      process.stdout.write(JSON.stringify({ id: ok.id, code }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', program], { cwd: join(dir, 'app'), encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { id: string; code: string };
    expect(out.id).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(out.code).toBe('signature_invalid');
  });
});
