// The static profile and the argv builder (docs/runner.md#the-run-step-by-step step 5; docs/sandbox.md#the-invocation),
// the bwrap version rule, and `governed sandbox profile` through the built CLI.
import { describe, expect, it } from 'vitest';
import { buildBwrapArgv, FD_NUMBERS } from '../runner/sandbox/argv.js';
import { parseBwrapVersion, bwrapInfo } from '../runner/sandbox/bwrap.js';
import { GO_GATE, PROFILE_ARGV, SANDBOX_PATHS, staticProfile, staticProfileDigest, staticProfileSha256 } from '../runner/sandbox/profile.js';
import { DEFAULT_LIMITS, sandboxLimitsFromPolicy } from '../runner/sandbox/limits.js';
import { seccompDigest } from '../runner/seccomp/index.js';
import { canonicalJson } from '../src/core/canonical.js';
import { isGovernedError } from '../src/core/errors.js';
import { jsonOut, runCli } from './helpers/cli.js';
import { sha256, testLimits } from './sandbox-helpers.js';

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    if (isGovernedError(e)) return e.code;
    throw e;
  }
  return 'no error';
};

const base = { interpreter: '/usr/bin/node', env: {}, limits: testLimits({ timeoutMs: 1500, memoryBytes: 1 << 30, nproc: 32, nofile: 64, fsize: 1 << 20, tmpfsBytes: 4 << 20 }) };

describe('static profile (property 18: deterministic, digest-pinned)', () => {
  it('is canonical JSON with a sha256 digest; the policy form is the bare hex', () => {
    const p = staticProfile();
    expect(staticProfileDigest()).toBe(`sha256:${sha256(canonicalJson(p))}`);
    expect(staticProfileSha256()).toBe(staticProfileDigest().slice(7));
    expect(staticProfileDigest()).toBe(staticProfileDigest());
  });

  it('contains every flag of docs/runner.md#the-run-step-by-step step 5 and research docs/threat-model.md#rules-that-hold-everywhere, `--` before the command', () => {
    const fixed = PROFILE_ARGV.filter((a): a is string => typeof a === 'string');
    for (const flag of ['--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent', '--new-session', '--as-pid-1', '--clearenv', '--remount-ro', '--seccomp', '--json-status-fd', '--block-fd', '--ro-bind-data', '--proc', '--dev']) {
      expect(fixed, flag).toContain(flag);
    }
    expect(fixed.slice(fixed.indexOf('--cap-drop'), fixed.indexOf('--cap-drop') + 2)).toEqual(['--cap-drop', 'ALL']);
    // The only host path bound is /usr, read-only.
    const binds = PROFILE_ARGV.flatMap((a, i) => (a === '--ro-bind' || a === '--bind' || a === '--dev-bind' ? [PROFILE_ARGV.slice(i, i + 3)] : []));
    expect(binds).toEqual([['--ro-bind', '/usr', '/usr']]);
    expect(PROFILE_ARGV.indexOf('--')).toBeLessThan(PROFILE_ARGV.indexOf('/usr/bin/sh'));
    expect(PROFILE_ARGV[PROFILE_ARGV.indexOf('--') + 1]).toBe('/usr/bin/sh'); // the go-gate runs first
  });
});

describe('argv builder (property 18)', () => {
  it('expands every placeholder deterministically (snapshot)', () => {
    const argv = buildBwrapArgv({ ...base, env: { ZED: 'last', ALPHA: '-looks-like-an-option' } });
    expect(argv).toEqual([
      '--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent', '--new-session', '--as-pid-1',
      '--cap-drop', 'ALL', '--clearenv',
      '--setenv', 'GOVERNED_BUNDLE', '/bundle/review-bundle.json', '--setenv', 'HOME', '/tmp', '--setenv', 'TMPDIR', '/tmp',
      '--setenv', 'PATH', '/usr/bin', '--setenv', 'LANG', 'C.UTF-8',
      '--setenv', 'ALPHA', '-looks-like-an-option', '--setenv', 'ZED', 'last',
      '--hostname', 'governed', '--ro-bind', '/usr', '/usr',
      '--symlink', 'usr/bin', '/bin', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64', '--symlink', 'usr/sbin', '/sbin',
      '--proc', '/proc', '--dev', '/dev', '--size', '16777216', '--tmpfs', '/dev/shm', '--remount-ro', '/dev',
      '--size', String(4 << 20), '--tmpfs', '/tmp',
      '--perms', '0444', '--ro-bind-data', '6', '/bundle/review-bundle.json',
      '--perms', '0555', '--ro-bind-data', '7', '/opt/reviewer/reviewer',
      '--remount-ro', '/', '--chdir', '/tmp', '--seccomp', '3', '--json-status-fd', '4', '--block-fd', '5',
      '--', '/usr/bin/sh', '-c', GO_GATE, 'governed-gate', '/usr/bin/env', '-u', 'PWD', '--',
      '/usr/bin/prlimit', '--core=0', `--as=${1 << 30}:${1 << 30}`, '--cpu=2:2', `--fsize=${1 << 20}:${1 << 20}`, '--nofile=64:64', '--nproc=32:32', '--',
      '/usr/bin/node', '/opt/reviewer/reviewer',
    ]);
    expect(buildBwrapArgv({ ...base, env: { ALPHA: '-looks-like-an-option', ZED: 'last' } })).toEqual(argv);
    expect(FD_NUMBERS).toEqual({ seccomp: 3, status: 4, block: 5, bundle: 6, reviewer: 7, go: 8, snapshot: 10, dependencies: 11, relay: 10 });
    expect(GO_GATE).toBe('IFS= read -r go <&8 && [ "$go" = go ] || exit 125; exec 8<&-; exec "$@"');
  });

  it('an instance of the template: replacing the variable parts gives back the profile', () => {
    const argv = buildBwrapArgv(base);
    const fixed = PROFILE_ARGV.filter((a) => typeof a === 'string');
    let i = 0;
    for (const a of argv) if (a === fixed[i]) i++;
    expect(i).toBe(fixed.length);
    expect(argv.at(-1)).toBe(SANDBOX_PATHS.reviewer);
  });

  it('refuses interpreter paths that are relative, outside /usr, start with -, contain .., NUL or newlines', () => {
    for (const interpreter of ['node', 'usr/bin/node', '/bin/node', '-/usr/bin/node', '/usr/bin/../../tmp/x', '/usr//bin/node', '/usr/bin/no\0de', '/usr/bin/no\nde', '/usr/bin/', '/usr/-x']) {
      expect(codeOf(() => buildBwrapArgv({ ...base, interpreter })), JSON.stringify(interpreter)).toBe('sandbox_argument_invalid');
    }
  });

  it('refuses policy env that would override the fixed environment, bad names, NUL or oversized values', () => {
    const envs: Record<string, string>[] = [{ PATH: '/x' }, { HOME: '/x' }, { GOVERNED_BUNDLE: '/x' }, { PWD: '/x' }, { lower: 'x' }, { '-X': 'x' }, { 'A B': 'x' }, { A: 'x\0y' }, { A: 'x'.repeat(4097) }];
    for (const env of envs) {
      expect(codeOf(() => buildBwrapArgv({ ...base, env })), JSON.stringify(Object.keys(env))).toBe('sandbox_argument_invalid');
    }
    expect(codeOf(() => buildBwrapArgv({ ...base, env: [] as unknown as Record<string, string> }))).toBe('sandbox_argument_invalid');
    expect(codeOf(() => buildBwrapArgv({ ...base, env: { A: 1 } as unknown as Record<string, string> }))).toBe('sandbox_argument_invalid');
  });

  it('refuses loader-influencing names itself, behind the policy loaders (second line of defence)', () => {
    for (const name of ['NODE_OPTIONS', 'LD_PRELOAD', 'LD_AUDIT', 'GCONV_PATH', 'BASH_ENV', 'PYTHONPATH', 'OPENSSL_CONF', 'LC_ALL']) {
      expect(codeOf(() => buildBwrapArgv({ ...base, env: { [name]: 'x' } })), name).toBe('sandbox_argument_invalid');
    }
    // An ordinary variable still passes.
    expect(buildBwrapArgv({ ...base, env: { REVIEW_LEVEL: 'strict' } })).toContain('REVIEW_LEVEL');
  });

  it('refuses limits outside their ranges or not integers', () => {
    for (const over of [{ timeoutMs: 0 }, { timeoutMs: 1.5 }, { memoryBytes: 1 }, { nofile: 3 }, { nproc: 0 }, { fsize: -1 }, { tmpfsBytes: 10 }, { maxOutputBytes: 0 }]) {
      expect(codeOf(() => buildBwrapArgv({ ...base, limits: { ...base.limits, ...over } })), JSON.stringify(over)).toBe('sandbox_argument_invalid');
    }
  });

  it('derives limits from a policy: timeout, memory and output from it, the rest governed constants', () => {
    const limits = sandboxLimitsFromPolicy({ sandboxTimeoutSeconds: 120, sandboxMemoryBytes: 2 << 30, maxOutputBytes: 1 << 20 } as never);
    expect(limits).toEqual({ timeoutMs: 120_000, memoryBytes: 2 << 30, maxOutputBytes: 1 << 20, ...DEFAULT_LIMITS });
  });
});

describe('bwrap version rule', () => {
  it('accepts ≥ 0.8.0 and refuses older or unrecognised output', () => {
    expect(parseBwrapVersion('bubblewrap 0.8.0\n')).toBe('0.8.0');
    expect(parseBwrapVersion('bubblewrap 0.11.2\n')).toBe('0.11.2');
    expect(parseBwrapVersion('bubblewrap 1.0.0')).toBe('1.0.0');
    expect(codeOf(() => parseBwrapVersion('bubblewrap 0.7.9\n'))).toBe('bwrap_too_old');
    expect(codeOf(() => parseBwrapVersion('bubblewrap 0.4.12\n'))).toBe('bwrap_too_old');
    expect(codeOf(() => parseBwrapVersion('bwrap 0.8.0\n'))).toBe('bwrap_unusable');
    expect(codeOf(() => parseBwrapVersion(''))).toBe('bwrap_unusable');
  });
});

describe('governed sandbox profile (built CLI)', () => {
  it('--json prints bwrap path/sha256/version, the profile and its digest, the seccomp digest and the policy lines', async () => {
    const r = runCli(['sandbox', 'profile', '--json']);
    expect(r.code).toBe(0);
    const out = jsonOut(r) as Record<string, never>;
    const info = await bwrapInfo('/usr/bin/bwrap');
    expect(out).toEqual({
      ok: true,
      schema_version: 1,
      exit: 0,
      bwrap: { path: '/usr/bin/bwrap', sha256: info.sha256, version: info.version },
      profile: JSON.parse(JSON.stringify(staticProfile())),
      profile_digest: staticProfileDigest(),
      check_profile_digest: staticProfileDigest('check'),
      egress_profile_digest: staticProfileDigest('egress'),
      relay_profile_digest: staticProfileDigest('relay'),
      seccomp_digest: seccompDigest(),
      relay_seccomp_digest: seccompDigest('loopback-tcp'),
      policy: { bwrap_sha256: [info.sha256], profile_sha256: [staticProfileSha256()], seccomp_sha256: [seccompDigest().slice(7)] },
    });
    expect(r.stderr).toBe('');
  });

  it('human output shows the lines to paste into the policy', () => {
    const r = runCli(['sandbox', 'profile']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`profile_sha256: ["${staticProfileSha256()}"]`);
    expect(r.stdout).toContain(`seccomp_sha256: ["${seccompDigest().slice(7)}"]`);
  });

  it('refuses a missing or relative bwrap with its code (exit 2), naming no path', () => {
    const missing = runCli(['sandbox', 'profile', '--json', '--bwrap', '/nonexistent/secret-canary-bwrap']);
    expect(missing.code).toBe(2);
    expect((jsonOut(missing).error as { code: string }).code).toBe('bwrap_missing');
    expect(missing.stdout + missing.stderr).not.toContain('secret-canary');
    const relative = runCli(['sandbox', 'profile', '--json', '--bwrap', 'bwrap']);
    expect(relative.code).toBe(2);
    expect((jsonOut(relative).error as { code: string }).code).toBe('bwrap_path_invalid');
  });

  it('--help explains the command, its inputs and exit codes', () => {
    const r = runCli(['sandbox', 'profile', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/profile_sha256/);
    expect(r.stdout).toMatch(/--bwrap <path>/);
    expect(r.stdout).toMatch(/Exit 0/);
  });
});

describe('the check profile (docs/sandbox.md#the-check-profile-check-reviewers)', () => {
  const base = { interpreter: '/usr/bin/node', env: {}, limits: { ...DEFAULT_LIMITS, timeoutMs: 20_000, memoryBytes: 2 * 1024 ** 3, maxOutputBytes: 1 << 20 } };
  it('is the reviewer profile plus the two read-only descriptor binds before the root is remounted, with its own digest', () => {
    const reviewer = buildBwrapArgv(base);
    const check = buildBwrapArgv({ ...base, profile: 'check', dependencyRoot: 'node_modules' });
    const at = reviewer.findIndex((a, i) => a === '--remount-ro' && reviewer[i + 1] === '/');
    expect(check).toEqual([...reviewer.slice(0, at), '--ro-bind-fd', '10', '/snapshot', '--ro-bind-fd', '11', '/snapshot/node_modules', ...reviewer.slice(at)]);
    expect(buildBwrapArgv({ ...base, profile: 'check', dependencyRoot: null })).toEqual([...reviewer.slice(0, at), '--ro-bind-fd', '10', '/snapshot', ...reviewer.slice(at)]);
    expect(staticProfileSha256('check')).not.toBe(staticProfileSha256());
    expect(staticProfile('check').spawn.extra_fds).toEqual(['seccomp', 'status', 'block', 'bundle', 'reviewer', 'go', 'snapshot', 'dependencies']);
  });
  it('refuses a dependency root that could become an option or leave /snapshot', () => {
    for (const bad of ['', '/abs', '../up', 'a/../b', '-x', 'a/-x', 'a//b', 'a b', 'a\n']) {
      let code = '';
      try {
        buildBwrapArgv({ ...base, profile: 'check', dependencyRoot: bad });
      } catch (e) {
        code = isGovernedError(e) ? e.code : 'other';
      }
      expect(code).toBe('sandbox_argument_invalid');
    }
  });
});
