// The pinned check reviewers read their bundle with governed's one definition of the format (docs/reviewers.md#check-reviewers, docs/bundle.md): every refusal below is exit 65, no stdout, one fixed stderr line, and the same bundle is refused by governed's own schema and its check plan.
//
// Each case changes one thing of a real test-stage bundle built by governed's `buildBundle` (with
// the `check` object a check slot carries) and re-canonicalises it with governed's canonicalJson,
// so the defect under test is the only one. The committed runner/reviewers/check-*.mjs run as the
// sandbox runs them (`/usr/bin/node <file>`, the fixed environment, the bundle a read-only file)
// inside a bare bwrap whose root holds an empty /snapshot, so a bundle the reviewer accepts really
// runs its command there: the positive controls reach CLEAN. The same value is then handed to
// `bundleSchema` + `bundleRuleViolation` (src/core/bundle) and to the runner's `checkPlanOf`
// (src/flows/run/check-run.ts, before the claim): both refuse it too (`check_bundle_invalid`), so
// the reviewer and governed agree on every case.
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/core/canonical.js';
import { bundleSchema } from '../src/core/bundle/schema.js';
import { bundleRuleViolation } from '../src/core/bundle/rules.js';
import { checkPlanOf } from '../src/flows/run/check-run.js';
import type { PolicyReviewer } from '../src/flows/run/pin.js';
import { isGovernedError } from '../src/core/errors.js';
import { CHECK_COMMAND_ARG_MAX_CHARS, CHECK_COMMAND_MAX_ARGS, CHECK_DEPENDENCY_ROOT_MAX_CHARS } from '../src/core/limits.js';
import { bundleOf, cleanScenario, cleanup, tempDir, assertNothingLeaked } from './reviewer-coverage-helpers.js';
import { REPO_ROOT } from './helpers/cli.js';

afterAll(cleanup);

type Json = Record<string, any>;
const ADAPTERS = ['check-tests', 'check-tsc', 'check-eslint'] as const;
type Adapter = (typeof ADAPTERS)[number];
const PINNED = (a: Adapter): string => join(REPO_ROOT, 'runner', 'reviewers', `${a}.mjs`);
const DIGEST = `sha256:${'ab'.repeat(32)}`;
/** A command each adapter maps to CLEAN on an empty snapshot (ESLint's JSON report of no files is `[]`). */
const CLEAN_COMMAND: Record<Adapter, string[]> = { 'check-tests': ['/usr/bin/true'], 'check-tsc': ['/usr/bin/true'], 'check-eslint': ['/usr/bin/printf', '[]'] };

const built = bundleOf(cleanScenario(), 'test', 'tests');
function checkBundle(adapter: Adapter = 'check-tests'): Json {
  const b = JSON.parse(built.bytes.toString('utf8')) as Json;
  b.check = { command: CLEAN_COMMAND[adapter], snapshot: '/snapshot', dependency_root: { path: 'node_modules', digest: DIGEST }, report: 'exit-code', timeout_ms: 20_000 };
  return b;
}

/** An own enumerable `__proto__` key, as JSON.parse makes one (assignment would set the prototype). */
function ownProto(o: Json, value: unknown): void {
  Object.defineProperty(o, '__proto__', { value, enumerable: true, writable: true, configurable: true });
}

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The pinned adapter in a bare bwrap: /usr read-only, an empty /snapshot, the bundle read-only at /b. */
function runPinned(adapter: Adapter, bytes: Buffer): Run {
  const dir = tempDir('check-reader');
  writeFileSync(join(dir, 'reviewer'), readFileSync(PINNED(adapter)));
  chmodSync(join(dir, 'reviewer'), 0o555);
  writeFileSync(join(dir, 'review-bundle.json'), bytes);
  chmodSync(join(dir, 'review-bundle.json'), 0o444);
  // prettier-ignore
  const argv = ['--ro-bind', '/usr', '/usr', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64', '--symlink', 'usr/bin', '/bin',
    '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--dir', '/snapshot', '--ro-bind', dir, '/b', '--chdir', '/tmp', '--', '/usr/bin/node', '/b/reviewer'];
  const r = spawnSync('/usr/bin/bwrap', argv, {
    env: { GOVERNED_BUNDLE: '/b/review-bundle.json', HOME: '/tmp', TMPDIR: '/tmp', PATH: '/usr/bin', LANG: 'C.UTF-8' },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
}

/** governed's side of the same bytes: the one schema with its rules, and the check plan before a claim. */
function governedAccepts(bytes: Buffer): { schema: boolean; plan: string | 'ok' } {
  let value: unknown = undefined;
  let schema = false;
  try {
    value = JSON.parse(bytes.toString('utf8'));
    const p = bundleSchema.safeParse(value);
    schema = p.success && p.data.check !== undefined && bundleRuleViolation(p.data) === null && canonicalJson(value) === bytes.toString('utf8');
  } catch {
    schema = false;
  }
  // The policy reviewer fixes exactly what the bundle carries, so only the schema can refuse.
  const c = (value as Json | undefined)?.check as Json | undefined;
  const reviewer = {
    name: 'tests',
    sha256: 'a'.repeat(64),
    interpreter: '/usr/bin/node',
    env: {},
    check: { command: Array.isArray(c?.command) ? c.command : ['/usr/bin/true'], report: c?.report, dependency_root: c?.dependency_root?.path },
  } as unknown as PolicyReviewer;
  try {
    checkPlanOf(reviewer, bytes);
    return { schema, plan: 'ok' };
  } catch (e) {
    if (!isGovernedError(e)) throw e;
    return { schema, plan: e.code };
  }
}

const bytesOf = (b: Json): Buffer => Buffer.from(canonicalJson(b), 'utf8');

/** `plan`: what the runner's check plan says — it reads only the `check` object; the rest of the
 * bundle is governed's own bytes, bound by digest at issuance (`challenge_bundle_mismatch`). */
function expectRefused(adapter: Adapter, bytes: Buffer, plan: 'check_bundle_invalid' | 'ok' = 'check_bundle_invalid'): void {
  const run = runPinned(adapter, bytes);
  expect(run.code).toBe(65);
  expect(run.stdout).toBe('');
  expect(run.stderr).toBe(`${adapter}: bundle malformed\n`);
  assertNothingLeaked(run);
  expect(governedAccepts(bytes)).toEqual({ schema: false, plan });
}

function expectClean(adapter: Adapter, bytes: Buffer): void {
  const run = runPinned(adapter, bytes);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(JSON.parse(run.stdout)).toMatchObject({ verdict: 'CLEAN', findings: [] });
  expect(governedAccepts(bytes)).toEqual({ schema: true, plan: 'ok' });
}

const arg = (n: number): string => 'x'.repeat(n);
/** A dependency root of exactly `n` characters in plain segments. */
const depRoot = (n: number): string => `${'d'.repeat(100)}/${'e'.repeat(100)}/${'f'.repeat(n - 202)}`;

/** One defect each, applied to a clean check bundle; the rule of src/core/bundle/schema.ts `checkInputsSchema` it breaks. */
const DEFECTS: Record<string, (b: Json) => void> = {
  // NUL: execve cannot pass one (src/core/sandbox-bounds.ts checkCommandAllowed).
  'a NUL inside an argument': (b) => void (b.check.command = ['/usr/bin/true', 'a\0b']),
  'a NUL inside the program': (b) => void (b.check.command = ['/usr/bin/tr\0ue']),
  // command[0]: an absolute program under /usr with the interpreter's segment rule.
  'a relative program': (b) => void (b.check.command = ['true']),
  'a relative program with a slash': (b) => void (b.check.command = ['usr/bin/true']),
  'an absolute program outside /usr': (b) => void (b.check.command = ['/bin/true']),
  'a program with a .. segment': (b) => void (b.check.command = ['/usr/bin/../bin/true']),
  'a program with an empty segment': (b) => void (b.check.command = ['/usr/bin//true']),
  'a program segment led by -': (b) => void (b.check.command = ['/usr/-x']),
  // Lengths and counts (src/core/limits.ts).
  'an empty argument': (b) => void (b.check.command = ['/usr/bin/true', '']),
  'an argument one character over the limit': (b) => void (b.check.command = ['/usr/bin/true', arg(CHECK_COMMAND_ARG_MAX_CHARS + 1)]),
  'one argument over the count': (b) => void (b.check.command = ['/usr/bin/true', ...Array.from({ length: CHECK_COMMAND_MAX_ARGS }, () => 'a')]),
  'an empty command': (b) => void (b.check.command = []),
  'a dependency root one character over the limit': (b) => void (b.check.dependency_root.path = depRoot(CHECK_DEPENDENCY_ROOT_MAX_CHARS + 1)),
  'a dependency root of 4096 characters': (b) => void (b.check.dependency_root.path = depRoot(4096)),
  'an absolute dependency root': (b) => void (b.check.dependency_root.path = '/node_modules'),
  'a dependency root with a .. segment': (b) => void (b.check.dependency_root.path = '../node_modules'),
  'a dependency root with an empty segment': (b) => void (b.check.dependency_root.path = 'node_modules//x'),
  'a dependency root with a NUL': (b) => void (b.check.dependency_root.path = 'node\0modules'),
  'an empty dependency root': (b) => void (b.check.dependency_root.path = ''),
  // Closed objects.
  'an unknown key in check': (b) => void (b.check.cwd = '/'),
  'an unknown key in the dependency root': (b) => void (b.check.dependency_root.mode = 'rw'),
  'a missing key in check': (b) => void delete b.check.timeout_ms,
  'a missing dependency root (not null)': (b) => void delete b.check.dependency_root,
  'an own __proto__ key in check': (b) => ownProto(b.check, { report: 'tap' }),
  'an own __proto__ key in the dependency root': (b) => ownProto(b.check.dependency_root, {}),
  'an own __proto__ key at the top level': (b) => ownProto(b, { check: null }),
  // Wrong types and values.
  'a timeout as a string': (b) => void (b.check.timeout_ms = '20000'),
  'a timeout under 1000 ms': (b) => void (b.check.timeout_ms = 999),
  'an unknown report': (b) => void (b.check.report = 'junit'),
  'a null report': (b) => void (b.check.report = null),
  'a command as a string': (b) => void (b.check.command = '/usr/bin/true'),
  'a number in the command': (b) => void (b.check.command = ['/usr/bin/true', 1]),
  'another snapshot path': (b) => void (b.check.snapshot = '/'),
  'a dependency root as a string': (b) => void (b.check.dependency_root = 'node_modules'),
  'a dependency root digest that is not one': (b) => void (b.check.dependency_root.digest = 'sha256:xyz'),
  'check as null': (b) => void (b.check = null),
  'check as a list': (b) => void (b.check = [b.check]),
  // A check bundle is first a review bundle: the one reader's other rules hold too.
  'no check object (a reviewer slot bundle)': (b) => void delete b.check,
  'a bundle rule broken beside a valid check (coverage unsorted)': (b) => void b.coverage.atoms.reverse(),
};

/** Defects outside the `check` object: the runner's check plan reads only `check` (the rest is governed's own bytes). */
const OUTSIDE_CHECK = new Set(['an own __proto__ key at the top level', 'a bundle rule broken beside a valid check (coverage unsorted)']);

describe('the pinned check reviewers refuse what checkInputsSchema refuses (exit 65, no stdout)', () => {
  it.each(ADAPTERS)('%s: a clean check bundle runs its command and is CLEAN (positive control)', (adapter) => {
    expectClean(adapter, bytesOf(checkBundle(adapter)));
  });

  it('check-tests: every bound at its limit is accepted and CLEAN (positive controls)', () => {
    const limits = checkBundle();
    limits.check.command = ['/usr/bin/true', ...Array.from({ length: CHECK_COMMAND_MAX_ARGS - 1 }, () => arg(CHECK_COMMAND_ARG_MAX_CHARS))];
    limits.check.dependency_root.path = depRoot(CHECK_DEPENDENCY_ROOT_MAX_CHARS);
    limits.check.timeout_ms = 1000;
    expectClean('check-tests', bytesOf(limits));
    const none = checkBundle();
    none.check.dependency_root = null;
    none.check.command = ['/usr/bin/env', '-i', '/usr/bin/true'];
    expectClean('check-tests', bytesOf(none));
  });

  it.each(Object.keys(DEFECTS))('check-tests: %s', (name) => {
    const b = checkBundle();
    DEFECTS[name]!(b);
    expectRefused('check-tests', bytesOf(b), OUTSIDE_CHECK.has(name) ? 'ok' : 'check_bundle_invalid');
  });

  it('check-tests: a fractional timeout (canonicalJson cannot write one: spliced into the text)', () => {
    const text = canonicalJson(checkBundle());
    expect(text).toContain('"timeout_ms":20000}');
    expectRefused('check-tests', Buffer.from(text.replace('"timeout_ms":20000}', '"timeout_ms":1000.5}'), 'utf8'));
  });

  it.each(['check-tsc', 'check-eslint'] as const)('%s: the same reader (NUL, relative program, long dependency root, unknown key, __proto__)', (adapter) => {
    for (const name of ['a NUL inside an argument', 'a relative program', 'a dependency root of 4096 characters', 'an unknown key in check', 'an own __proto__ key in check']) {
      const b = checkBundle(adapter);
      DEFECTS[name]!(b);
      expectRefused(adapter, bytesOf(b));
    }
  });

  it('check-tests: bytes that are not exactly the canonical form are refused (BOM, whitespace)', () => {
    const clean = bytesOf(checkBundle());
    expectRefused('check-tests', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), clean]));
    expectRefused('check-tests', Buffer.from(JSON.stringify(JSON.parse(clean.toString('utf8')), null, 1), 'utf8'), 'ok');
  });

  it('the __proto__ cases really carry an own __proto__ key (control of the mutation)', () => {
    for (const name of ['an own __proto__ key in check', 'an own __proto__ key in the dependency root', 'an own __proto__ key at the top level']) {
      const b = checkBundle();
      DEFECTS[name]!(b);
      expect(bytesOf(b).toString('utf8')).toContain('"__proto__":');
    }
  });
});

// The reader is the coverage reviewer's `parseBundle` (governed's schema and rules, bundled): no
// module of a check reviewer reads the bundle's shape by hand any more. A hand reader shows itself
// by these idioms; the scan is controlled by the hand reader this replaced.
const HAND_READING = [/JSON\.parse\(/, /\btypeof\b/, /\/\^/, /\.length\s*[<>]=?/, /hasOwnProperty/, /Array\.isArray/, /Number\.isSafeInteger/, /\.test\(/];
const handReading = (text: string): string[] => HAND_READING.filter((re) => re.test(text)).map(String);

/** The modules esbuild bundled into a pinned file, by the `// <path>` line it heads each with. */
function modulesOf(pinned: string): Map<string, string> {
  const out = new Map<string, string>();
  const parts = pinned.split(/^\/\/ ((?:src|runner|node_modules)\/\S+)$/m);
  for (let i = 1; i < parts.length; i += 2) out.set(parts[i]!, (out.get(parts[i]!) ?? '') + parts[i + 1]!);
  return out;
}

describe('a check reviewer has one reader of its bundle', () => {
  it('the scan finds the hand reader it replaced (control)', () => {
    const old = [
      'const ARG_RE = /^[^\\0]{1,4096}$/;',
      "export function obj(v, required) { if (v === null || typeof v !== 'object' || Array.isArray(v)) malformed(); }",
      'export const path = (v) => { const s = str(v); check(s.length >= 1 && s.length <= 4096); return s; };',
    ].join('\n');
    expect(handReading(old).length).toBeGreaterThanOrEqual(4);
    expect(handReading('const b = parseBundle(bytes);\nif (b.check === undefined) return malformed();')).toEqual([]);
  });

  it('the sources of the check reader and the shared error module hold no shape check', () => {
    for (const f of ['runner/reviewers/src/check/bundle.ts', 'runner/reviewers/src/coverage/shape.ts']) {
      const code = readFileSync(join(REPO_ROOT, f), 'utf8').replace(/^\s*\/\/.*$/gm, '');
      expect(handReading(code), f).toEqual([]);
    }
    const reader = readFileSync(join(REPO_ROOT, 'runner/reviewers/src/coverage/bundle.ts'), 'utf8');
    // The one definition's compiled form (docs/architecture.md#compiled-formats) and the one rule function.
    expect(reader).toContain('checkFormat(BUNDLE_FORMAT, value)');
    expect(reader).toContain('bundleRuleViolation(parsed.data)');
  });

  it.each(ADAPTERS)('pinned %s: the bundle format (check inputs included) bundled once as its compiled form, read by parseBundle, no shape check in its reader modules', (adapter) => {
    const pinned = readFileSync(PINNED(adapter), 'utf8');
    expect(pinned.match(/^\/\/ src\/core\/format\/compiled\.ts$/gm)).toHaveLength(1);
    expect(pinned).toContain('var BUNDLE = ');
    const modules = modulesOf(pinned);
    const reader = modules.get('runner/reviewers/src/check/bundle.ts');
    expect(reader).toBeDefined();
    expect(reader).toContain('parseBundle(bytes)');
    expect(handReading(reader!)).toEqual([]);
    expect(handReading(modules.get('runner/reviewers/src/coverage/shape.ts') ?? '')).toEqual([]);
    // The one reader is there, with governed's schema and rule function.
    expect(modules.get('runner/reviewers/src/coverage/bundle.ts')).toContain('checkFormat(BUNDLE_FORMAT, value)');
    expect(modules.has('src/core/bundle/rules.ts')).toBe(true);
  });
});
