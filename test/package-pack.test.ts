// What `npm pack` ships (package.json "files"): only what a user needs — the built CLI and its
// chunks, the pinned attestor and reviewer programs, the policy templates, the example keys and the
// docs; no sources, tests, benchmarks or build scripts. Then the packed tarball is installed the way
// a user's project installs it, `npm install --offline ./governed-<version>.tgz` into an empty
// project, and the installed package runs: the `governed` bin (`--version`, `--help`), `verify`,
// `setup` (its policy templates, reviewer and attestor found inside the package), `doctor`, the
// gate, and the library entry (`import … from 'governed'`, its exports and type declarations).
//
// Nothing is downloaded: npm's cache for the install is private to this test and holds exactly the
// production dependency tree installed in this checkout (test/helpers/offline-npm.ts: served once
// by a loopback registry to `npm cache add`, which is closed before the install). npm therefore
// resolves governed's own pinned dependency list; a dependency the package declares but the tree
// lacks fails the install (ENOTCACHED), as the control below shows for a cache it cannot use.
// Dependency install scripts do not run (--ignore-scripts; better-sqlite3's would fetch a prebuilt
// binary, so its tarball carries the addon this checkout compiled); governed's own install script
// (the runnerd addon, built offline from native/peercred.c) runs through `npm rebuild governed`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './helpers/cli.js';
import { buildOfflineNpmCache, type OfflineNpm } from './helpers/offline-npm.js';

let dir: string;
let files: string[];
let tarball: string;
let app: string;
let pkg: string;
let npm: OfflineNpm;
let install: { status: number | null; stderr: string };
let rebuild: { status: number | null; stderr: string };
const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

beforeAll(async () => {
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
  tarball = join(dir, info?.filename ?? '');
  npm = await buildOfflineNpmCache(REPO_ROOT, join(dir, 'npm'));
  // An empty project installs the tarball, offline, from the private cache.
  app = join(dir, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'gvd-pack-user', version: '1.0.0', private: true, type: 'module' }));
  const i = spawnSync('npm', ['install', '--offline', '--ignore-scripts', tarball], { cwd: app, env: npm.env, encoding: 'utf8' });
  install = { status: i.status, stderr: i.stderr };
  const r = spawnSync('npm', ['rebuild', 'governed', '--offline'], { cwd: app, env: npm.env, encoding: 'utf8' });
  rebuild = { status: r.status, stderr: r.stderr };
  pkg = join(app, 'node_modules', 'governed');
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The installed bin, as `npx governed` runs it (its shebang, through the node_modules/.bin link).
const run = (args: string[]) =>
  spawnSync(join(app, 'node_modules', '.bin', 'governed'), args, { cwd: app, encoding: 'utf8', env: { PATH: `${process.execPath.replace(/\/node$/, '')}:/usr/bin:/bin`, NO_COLOR: '1' } });

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

  it('installs offline into an empty project: governed\'s pinned dependency tree from the private cache, its bin linked, its install script run', () => {
    expect(install.status, install.stderr).toBe(0);
    expect(npm.missing).toEqual([]);
    // The installed tree is governed plus exactly the production tree it was packed against.
    const installed = execFileSync('npm', ['ls', '--all', '--parseable'], { cwd: app, env: npm.env, encoding: 'utf8' })
      .split('\n')
      .slice(1)
      .filter((p) => p !== '')
      .map((p) => JSON.parse(readFileSync(join(p, 'package.json'), 'utf8')) as { name: string; version: string })
      .map((m) => `${m.name}@${m.version}`);
    expect([...new Set(installed)].sort()).toEqual([...npm.specs, `governed@${version}`].sort());
    // Every packed file, and nothing else from the checkout, is in the installed package.
    for (const f of files) expect(existsSync(join(pkg, f)), f).toBe(true);
    expect(existsSync(join(pkg, 'src'))).toBe(false);
    // governed's install script built the runnerd addon offline where a C compiler exists.
    expect(rebuild.status, rebuild.stderr).toBe(0);
    const cc = spawnSync('sh', ['-c', 'command -v cc'], { encoding: 'utf8' }).status === 0;
    expect(existsSync(join(pkg, 'build', 'peercred.node'))).toBe(cc);
  });

  it('control: the same offline install of a package declaring a dependency outside the cached tree fails with ENOTCACHED', () => {
    const probe = join(dir, 'probe');
    mkdirSync(join(probe, 'src'), { recursive: true });
    writeFileSync(join(probe, 'src', 'package.json'), JSON.stringify({ name: 'gvd-pack-probe', version: '1.0.0', dependencies: { zod: '4.6.7', 'gvd-pack-absent': '1.0.0' } }));
    execFileSync('npm', ['pack', '--pack-destination', probe], { cwd: join(probe, 'src'), env: npm.env });
    mkdirSync(join(probe, 'app'));
    writeFileSync(join(probe, 'app', 'package.json'), JSON.stringify({ name: 'gvd-pack-probe-user', version: '1.0.0', private: true }));
    const r = spawnSync('npm', ['install', '--offline', '--ignore-scripts', join(probe, 'gvd-pack-probe-1.0.0.tgz')], { cwd: join(probe, 'app'), env: npm.env, encoding: 'utf8' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('ENOTCACHED');
    expect(existsSync(join(probe, 'app', 'node_modules', 'gvd-pack-probe'))).toBe(false);
  });

  it('the installed bin prints its version and its help', () => {
    const v = run(['--version']);
    expect(v.status, v.stderr).toBe(0);
    expect(v.stdout.trim()).toBe(version);
    const h = run(['--help']);
    expect(h.status, h.stderr).toBe(0);
    expect(h.stdout).toMatch(/^Usage: governed /);
    for (const c of ['setup', 'verify', 'gate', 'audit']) expect(h.stdout).toMatch(new RegExp(`^  ${c}\\b`, 'm'));
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
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', program], { cwd: app, encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { id: string; code: string };
    expect(out.id).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(out.code).toBe('signature_invalid');
  });

  it('the library entry exports exactly the documented verifiers, and nothing inside the package is importable', () => {
    const program = `
      const lib = await import('governed');
      const pkg = (await import('governed/package.json', { with: { type: 'json' } })).default;
      let inner = null;
      try { await import('governed/dist/governed.mjs'); } catch (e) { inner = e.code; }
      process.stdout.write(JSON.stringify({
        exports: Object.fromEntries(Object.keys(lib).sort().map((k) => [k, typeof lib[k]])),
        codes: Array.isArray(lib.ERROR_CODES) ? lib.ERROR_CODES.length : typeof lib.ERROR_CODES,
        version: pkg.version, inner }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', program], { cwd: app, encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { exports: Record<string, string>; codes: number | string; version: string; inner: string };
    // The public API of src/core/lib.ts (README "Use it in your project").
    expect(out.exports).toEqual({
      ERROR_CODES: 'object',
      GovernedError: 'function',
      VSA_EXTENSION_KEY: 'string',
      VSA_PREDICATE_TYPE: 'string',
      isGovernedError: 'function',
      isoSecondsOf: 'function',
      loadTrustRoot: 'function',
      verifyAuthorityRecordBytes: 'function',
      verifyCheckpointBytes: 'function',
      verifyReceiptBytes: 'function',
      verifyVsaBytes: 'function',
    });
    expect(out.version).toBe(version);
    expect(out.inner).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });

  it('the installed type declarations type-check a program that uses the library, and refuse a wrong call', () => {
    // One tsc run: the right calls must type-check, and the `@ts-expect-error` line must be an error
    // (were the declarations missing or `any`, strict mode or TS2578 "unused directive" would fail).
    const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const project = join(app, 'typed');
    mkdirSync(project);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: true, types: ['node'], typeRoots: [join(REPO_ROOT, 'node_modules', '@types')] },
        files: ['use.ts'],
      }),
    );
    writeFileSync(
      join(project, 'use.ts'),
      `import { loadTrustRoot, verifyReceiptBytes, verifyVsaBytes, isGovernedError, type TrustRoot, type VerifiedReceipt, type VerifiedVsa, type ErrorCode } from 'governed';
const trust: TrustRoot = loadTrustRoot(JSON.parse('{}'));
export function check(bytes: Uint8Array): string {
  try {
    const r: VerifiedReceipt = verifyReceiptBytes(bytes, trust, { at: '2027-01-01T00:00:00Z', offline: true });
    const v: VerifiedVsa = verifyVsaBytes(bytes, trust, { at: '2027-01-01T00:00:00Z' });
    // @ts-expect-error a trust root is not a string
    verifyReceiptBytes(bytes, 'trust.json', { at: '2027-01-01T00:00:00Z', offline: true });
    return r.id + String(v);
  } catch (e) {
    if (isGovernedError(e)) { const c: ErrorCode = e.code; return c; }
    throw e;
  }
}
`,
    );
    const r = spawnSync(process.execPath, [tsc, '-p', project], { cwd: project, encoding: 'utf8' });
    expect(r.status, r.stdout).toBe(0);
  }, 120_000);
});
