// Loader- and interpreter-influencing reviewer environment (docs/reviewers.md#the-reviewers-world the reviewer's
// environment, docs/formats.md#attestors "its SHA-256 covers every line it runs"). A policy's `reviewers.<name>.env` may not
// set a variable that makes the loader, libc or the interpreter run code the pinned sha256 does not
// cover. The rule is ONE function (src/core/policy-rules.ts), applied by the one
// loader `loadPolicy`, which refuses those names with one code and path. The last suite is the positive control that the
// rule is not theatre: under bwrap with the real profile, the SAME pinned reviewer bytes run different
// code once NODE_OPTIONS is set (bwrap passes it on, node obeys). The policy rule stops it, and the
// sandbox's argument builder refuses the same names itself as a second line of defence.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { isGovernedError } from '../src/core/errors.js';
import { loadPolicy } from '../src/core/policy.js';
import { reviewerEnvNameAllowed } from '../src/core/policy-rules.js';
import { parseStructured } from '../src/core/strict-parse.js';
import { buildBwrapArgv, FD_NUMBERS } from '../runner/sandbox/argv.js';
import { runSandboxed } from '../runner/sandbox/run.js';
import { seccompBlob } from '../runner/seccomp/index.js';
import { policyDoc } from './decision-fixtures.js';
import { REPO_ROOT } from './helpers/cli.js';
import { assertToolchain, NODE, realAllow, sha256, testLimits } from './sandbox-helpers.js';

type Err = { code: string; ids: readonly string[]; text: string };
function errorOf(fn: () => unknown): Err | 'ok' {
  try {
    fn();
    return 'ok';
  } catch (e) {
    if (isGovernedError(e)) return { code: e.code, ids: e.ids, text: `${e.message} ${e.ids.join(' ')}` };
    throw e;
  }
}

/** The decision fixture's policy with `env` for its one reviewer, `coverage`. */
function withEnv(env: Record<string, string>): unknown {
  const d = structuredClone(policyDoc()) as unknown as { reviewers: Record<string, { env: Record<string, string> }> };
  (d.reviewers.coverage as { env: Record<string, string> }).env = env;
  return d;
}

/** The loader refuses with policy_invalid naming `reviewers.coverage.env`, never the name's value. */
function expectRefused(env: Record<string, string>, label: string, canary: string): void {
  const z = errorOf(() => loadPolicy(withEnv(env)));
  expect(z, label).toMatchObject({ code: 'policy_invalid', ids: ['reviewers.coverage.env'] });
  if (z !== 'ok') expect(z.text, label).not.toContain(canary);
}

const CANARY = 'canary-7f3a9c-value-never-echoed';

// Every name the red team listed, and each family's members a reviewer interpreter honours.
const DENIED = [
  'NODE_OPTIONS', 'NODE_PATH', 'NODE_EXTRA_CA_CERTS', 'NODE_REPL_EXTERNAL_MODULE', 'NODE_V8_COVERAGE', 'NODE_COMPILE_CACHE',
  'LD_PRELOAD', 'LD_LIBRARY_PATH', 'LD_AUDIT', 'LD_DEBUG', 'LD_BIND_NOW', 'LD_PROFILE', 'DYLD_INSERT_LIBRARIES',
  'PYTHONPATH', 'PYTHONSTARTUP', 'PYTHONHOME', 'PYTHONINSPECT', 'PYTHON_BASIC_REPL', 'PERL5OPT', 'PERL5LIB', 'PERLLIB', 'RUBYOPT', 'RUBYLIB',
  'BASH_ENV', 'BASH_FUNC_X', 'BASH_XTRACEFD', 'BASH_LOADABLES_PATH', 'ENV', 'SHELLOPTS', 'BASHOPTS', 'PS4', 'PROMPT_COMMAND', 'IFS', 'CDPATH', 'GLOBIGNORE', 'ZDOTDIR', 'FPATH',
  'GCONV_PATH', 'LOCPATH', 'NLSPATH', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'LC_MESSAGES', 'HOSTALIASES', 'RES_OPTIONS', 'LOCALDOMAIN', 'GETCONF_DIR',
  'MALLOC_CHECK_', 'MALLOC_PERTURB_', 'MALLOC_ARENA_MAX', 'GLIBC_TUNABLES', 'UV_THREADPOOL_SIZE', 'UV_USE_IO_URING',
  'OPENSSL_CONF', 'OPENSSL_MODULES', 'OPENSSL_ENGINES', 'OPENSSL_IA32CAP', 'GIT_CONFIG_PARAMETERS', 'GIT_EXEC_PATH', 'GIT_SSH_COMMAND',
  'JAVA_TOOL_OPTIONS', 'JDK_JAVA_OPTIONS', 'CLASSPATH', 'TCLLIBPATH', 'PHPRC', 'PHP_INI_SCAN_DIR', 'LUA_INIT', 'LUA_PATH', 'GUILE_LOAD_PATH',
  'GEM_PATH', 'ERL_AFLAGS', 'DENO_DIR', 'BUN_OPTIONS', 'NPM_CONFIG_NODE_OPTIONS', 'COREPACK_HOME',
  // the fixed environment (docs/reviewers.md#the-reviewers-world) and the sandbox's own start gate's PWD
  'GOVERNED_BUNDLE', 'HOME', 'TMPDIR', 'PATH', 'LANG', 'PWD',
];
const ALLOWED = ['TZ', 'NO_COLOR', 'FORCE_COLOR', 'COLUMNS', 'REVIEW_LEVEL', 'GOVERNED_REVIEW_MODE', 'NODEX', 'LDAP_URI', 'LANGX', 'ENVIRONMENT', 'USER', 'TERM'];

describe('policy: reviewer env names that steer the loader or interpreter are refused by the loader', () => {
  it('every denied name: policy_invalid naming reviewers.<name>.env the value never echoed', () => {
    for (const name of DENIED) {
      expect(reviewerEnvNameAllowed(name), name).toBe(false);
      expectRefused({ [name]: CANARY }, name, CANARY);
      // Hidden among allowed variables, in either order, it is still refused.
      expectRefused({ AAA: 'x', [name]: CANARY, ZZZ: 'y' }, `${name} among others`, CANARY);
    }
  });

  it('the error path names the reviewer that sets it (not the first reviewer)', () => {
    const d = structuredClone(policyDoc()) as unknown as { reviewers: Record<string, unknown>; stages: Record<string, { slots: Record<string, string> }> };
    d.reviewers.second = { sha256: 'a'.repeat(64), interpreter: '/usr/bin/node', env: { LD_PRELOAD: CANARY } };
    const z = errorOf(() => loadPolicy(structuredClone(d)));
    expect(z).toMatchObject({ code: 'policy_invalid', ids: ['reviewers.second.env'] });
  });

  it('ordinary names still load', () => {
    for (const name of ALLOWED) expect(reviewerEnvNameAllowed(name), name).toBe(true);
    const env = Object.fromEntries(ALLOWED.map((n) => [n, `value of ${n}`]));
    const a = loadPolicy(withEnv(env));
    expect(a.doc.reviewers.coverage?.env).toEqual(env);
  });

  it('a value holding NUL is refused at load (execve cannot pass it), a value with spaces or a leading dash is fine', () => {
    expectRefused({ REVIEW_LEVEL: `a\0${CANARY}` }, 'NUL', CANARY);
    expect(loadPolicy(withEnv({ REVIEW_LEVEL: '-x y' })).doc.reviewers.coverage?.env).toEqual({ REVIEW_LEVEL: '-x y' });
  });

  it('at most 64 variables (the sandbox bound), so a policy that loads never fails at every run', () => {
    const many = (n: number): Record<string, string> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`V${i}`, 'x']));
    expect(errorOf(() => loadPolicy(withEnv(many(64))))).toBe('ok');
    expectRefused(many(65), '65 variables', CANARY);
  });

  it('malformed names stay the schema\'s refusal (lowercase, leading underscore, %%, too long)', () => {
    for (const name of ['node_options', '_JAVA_OPTIONS', 'BASH_FUNC_x%%', 'A'.repeat(65), '1A', 'A-B', '']) {
      const z = errorOf(() => loadPolicy(withEnv({ [name]: CANARY })));
      expect(z, name).toMatchObject({ code: 'policy_invalid' });
      expect((z as Err).text, name).not.toContain(CANARY);
    }
  });

  it('the shipped policies still load', () => {
    for (const f of ['default.yaml', 'strict.yaml']) {
      const doc = parseStructured(readFileSync(join(REPO_ROOT, 'policies', f), 'utf8'), f);
      expect(loadPolicy(structuredClone(doc)).digest, f).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
  });
});

describe('positive control under the real sandbox: NODE_OPTIONS changes what the pinned reviewer runs', () => {
  const SANDBOX_UID = 64531; // distinct per suite: RLIMIT_NPROC counts per uid
  // The pinned reviewer: it only reports whether anything ran before it, and node's own options.
  const reviewer = Buffer.from(
    "process.stdout.write(JSON.stringify({ injected: globalThis.__governedInjected ?? null, execArgv: process.execArgv, node_options: process.env.NODE_OPTIONS ?? null }));\n",
  );
  const INJECT = '--import=data:text/javascript,globalThis.__governedInjected=1337';
  type Report = { injected: number | null; execArgv: string[]; node_options: string | null };
  const PLACEHOLDER = 'GOVERNED_TEST_PLACEHOLDER';

  /**
   * bwrap run directly with the real static profile, seccomp blob and descriptors, as the runner
   * would run it if its argument builder let `name` through: the argv is built with an allowed
   * placeholder variable, which is then renamed. Only the positive control does this.
   */
  const bare = (name: string | null, value: string): Promise<{ report: Report; stderrBytes: number }> => {
    const argv = buildBwrapArgv({ interpreter: NODE, env: name === null ? {} : { [PLACEHOLDER]: value }, limits: testLimits({ timeoutMs: 20_000 }) }).map((a) =>
      a === PLACEHOLDER && name !== null ? name : a,
    );
    const ids = process.geteuid?.() === 0 ? { uid: SANDBOX_UID, gid: SANDBOX_UID } : {};
    return new Promise((resolve, reject) => {
      const c = spawn('/usr/bin/bwrap', argv, { env: {}, cwd: '/', stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe'], ...ids });
      const fd = c.stdio as unknown as (Writable & Readable)[];
      fd[FD_NUMBERS.seccomp]?.end(seccompBlob());
      fd[FD_NUMBERS.block]?.end('1');
      fd[FD_NUMBERS.go]?.end('go\n');
      fd[FD_NUMBERS.bundle]?.end('{}');
      fd[FD_NUMBERS.reviewer]?.end(reviewer);
      fd[FD_NUMBERS.status]?.resume();
      let out = '';
      let stderrBytes = 0;
      c.stdout?.on('data', (b: Buffer) => (out += b.toString('utf8')));
      c.stderr?.on('data', (b: Buffer) => (stderrBytes += b.length));
      c.on('error', reject);
      c.on('close', (code) => (code === 0 ? resolve({ report: JSON.parse(out) as Report, stderrBytes }) : reject(new Error(`bwrap exit ${code}`))));
    });
  };

  /** The runner itself: refuses the name before bwrap runs (sandbox_argument_invalid), nothing ran. */
  const runnerRefuses = async (env: Record<string, string>): Promise<string> => {
    try {
      await runSandboxed({
        allow: await realAllow(sha256(reviewer)),
        interpreter: NODE,
        reviewer: { bytes: reviewer },
        bundleBytes: Buffer.from('{}'),
        env,
        uid: SANDBOX_UID,
        gid: SANDBOX_UID,
        limits: testLimits({ timeoutMs: 20_000 }),
      });
      return 'ran';
    } catch (e) {
      return isGovernedError(e) ? e.code : 'thrown';
    }
  };

  beforeAll(() => assertToolchain());

  it('same pinned bytes, different code: the injected module runs inside the sandbox before the reviewer', async () => {
    const plain = await bare(null, '');
    const allowed = await bare(PLACEHOLDER, INJECT);
    const injected = await bare('NODE_OPTIONS', INJECT);
    expect(plain.report.injected).toBeNull();
    expect(plain.report.node_options).toBeNull();
    expect(allowed.report.injected).toBeNull();
    // The positive control: bwrap passes NODE_OPTIONS through and node obeys it, while the reviewer
    // bytes (what a receipt's sha256 covers) are the same.
    expect(injected.report.injected).toBe(1337);
    expect(injected.report.node_options).toBe(INJECT);
    // A policy that would set it does not load, in either loader; the runner refuses it too.
    expectRefused({ NODE_OPTIONS: INJECT }, 'NODE_OPTIONS', 'data:text/javascript');
    expect(await runnerRefuses({ NODE_OPTIONS: INJECT })).toBe('sandbox_argument_invalid');
  }, 60_000);

  it('the dynamic loader obeys LD_ variables inside the sandbox too (LD_DEBUG writes its trace)', async () => {
    const plain = await bare(null, '');
    const traced = await bare('LD_DEBUG', 'statistics');
    expect(plain.stderrBytes).toBe(0);
    expect(traced.stderrBytes).toBeGreaterThan(0);
    expect(traced.report.injected).toBeNull();
    expectRefused({ LD_DEBUG: 'statistics' }, 'LD_DEBUG', 'statistics');
    expect(await runnerRefuses({ LD_DEBUG: 'statistics' })).toBe('sandbox_argument_invalid');
  }, 60_000);
});
