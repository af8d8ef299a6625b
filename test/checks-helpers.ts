// Fixtures of the check-reviewer tests (docs/reviewers.md#check-reviewers): a real small npm
// package generated in a git repository — JavaScript with JSDoc types checked by the real
// TypeScript (checkJs), linted by the real ESLint (flat config, JSON formatter), tested by
// node:test with its TAP reporter — whose node_modules (the policy's dependency root, ignored by
// git) holds a copy of the typescript and eslint packages already installed for governed, with
// ESLint's dependency closure. No network. A policy whose allowlists hold the real digests of
// bwrap, both sandbox profiles, the seccomp blob, the built check adapters and the attestor.
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectBwrap } from '../runner/sandbox/bwrap.js';
import { staticProfileSha256 } from '../runner/sandbox/profile.js';
import { seccompBlob } from '../runner/seccomp/index.js';
import { ATTESTOR, REPO_ROOT } from './helpers/cli.js';
import { contractDoc, gov, govOk, makeKeys, makeWorld, policyDoc, setupUnit, tempDir, writeJsonFile, type World } from './state-helpers.js';
import { attestorsDir, sha256 } from './run-helpers.js';
import type { CliResult } from './helpers/cli.js';

export const REVIEWERS_DIR = join(REPO_ROOT, 'runner', 'reviewers');
export const CHECK_CANARY = 'CANARY-CHECK-4e1d9a';
export const SESSION = 'agent-1';

/** The packages the fixture's node_modules holds: typescript, eslint and eslint's closure (resolved
 * from governed's own node_modules; nested node_modules come with their package). */
function closure(roots: readonly string[]): string[] {
  const nm = join(REPO_ROOT, 'node_modules');
  const top = new Set<string>();
  const seenDirs = new Set<string>();
  // A dependency resolves to the nearest node_modules above the requiring package (nested copies
  // first); only top-level packages are copied, nested ones come with their parent.
  const visit = (dir: string): void => {
    if (seenDirs.has(dir)) return;
    seenDirs.add(dir);
    const pj = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const d of Object.keys(pj.dependencies ?? {})) {
      let at = dir;
      let found: string | null = null;
      while (at.startsWith(nm)) {
        if (existsSync(join(at, 'node_modules', d, 'package.json'))) {
          found = join(at, 'node_modules', d);
          break;
        }
        at = join(at, '..');
      }
      if (found === null && existsSync(join(nm, d, 'package.json'))) found = join(nm, d);
      if (found === null) throw new Error(`fixture: ${d} is not installed`);
      if (found === join(nm, d)) top.add(d);
      visit(found);
    }
  };
  for (const r of roots) {
    top.add(r);
    visit(join(nm, r));
  }
  return [...top].sort();
}

let cache: string | null = null;
/** One copy of the dependency closure per test process; each repository copies it again. */
function dependencyCache(): string {
  if (cache !== null) return cache;
  const dir = join(tempDir('governed-checks-deps-'), 'node_modules');
  for (const name of closure(['typescript', 'eslint'])) cpSync(join(REPO_ROOT, 'node_modules', name), join(dir, name), { recursive: true, verbatimSymlinks: true });
  cache = dir;
  return dir;
}

export const PACKAGE_FILES: Record<string, string> = {
  '.gitignore': 'ignored/\nnode_modules/\n',
  'package.json': `${JSON.stringify({ name: 'tiny-sum', version: '1.0.0', type: 'module', scripts: { test: 'node --test' } }, null, 2)}\n`,
  'tsconfig.json': `${JSON.stringify({ compilerOptions: { allowJs: true, checkJs: true, noEmit: true, strict: true, module: 'nodenext', target: 'es2022', types: [] }, include: ['src/**/*.js'] }, null, 2)}\n`,
  'eslint.config.js': "export default [{ files: ['src/**/*.js', 'test/**/*.js'], languageOptions: { sourceType: 'module', globals: { console: 'readonly', process: 'readonly' } }, rules: { 'no-unused-vars': 'error', 'no-undef': 'error' } }];\n",
};

/** src/sum.js: correct, or with the bug / type error / lint error a change introduces. */
export function sumSource(...kinds: ('good' | 'bug' | 'type-error' | 'lint-error')[]): string {
  const body = kinds.includes('bug') ? 'return a - b;' : 'return a + b;';
  const extra =
    (kinds.includes('type-error') ? '\n/** @type {number} */\nexport const limit = "ten";\n' : '') +
    (kinds.includes('lint-error') ? '\nexport function twice(x) {\n  const unused = 1;\n  return x * 2;\n}\n' : '');
  return `/**\n * @param {number} a\n * @param {number} b\n * @returns {number}\n */\nexport function sum(a, b) {\n  ${body}\n}\n${extra}`;
}

/** test/sum.test.js: real node:test tests that print a canary on stdout and stderr. */
export const SUM_TEST = `import test from 'node:test';
import assert from 'node:assert/strict';
import { sum } from '../src/sum.js';

test('adds', () => {
  console.log('${CHECK_CANARY}');
  console.error('${CHECK_CANARY}');
  assert.equal(sum(2, 3), 5);
});
test('adds negatives', () => {
  assert.equal(sum(-2, -3), -5);
});
`;

/** The contract: the request of issue-helpers, its paths moved onto the package's files. */
export function checkContract(state: 'active' | 'done'): Record<string, unknown> {
  const doc = contractDoc() as {
    directives: { state: string; targets: { id: string; paths: string[] }[] }[];
    implementations: { id: string; paths: string[] }[];
    evidence: { id: string; paths: string[] }[];
  };
  for (const d of doc.directives) d.state = state;
  (doc.directives[0] as { targets: { id: string; paths: string[] }[] }).targets = [{ id: 'TGT-1', paths: ['src/sum.js'] }];
  doc.implementations = [{ id: 'IMP-1', paths: ['src/sum.js'] }];
  doc.evidence = [{ id: 'EVD-1', paths: ['test/sum.test.js'], kind: 'test' } as never];
  return doc;
}

export const NODE = '/usr/bin/node';
export const COMMANDS = {
  tests: [NODE, '--test', '--test-reporter=tap'],
  types: [NODE, 'node_modules/typescript/bin/tsc', '--noEmit', '--pretty', 'false', '-p', 'tsconfig.json'],
  lint: [NODE, 'node_modules/eslint/bin/eslint.js', '--format', 'json', '.'],
};

export interface CheckWorld extends World {
  readonly unit: string;
  readonly attestorsDir: string;
  readonly adapters: Record<'check-tests' | 'check-tsc' | 'check-eslint', string>;
}

export interface CheckWorldOptions {
  /** Extra check reviewers (name → entry fields) and their test-stage slots (slot → reviewer). */
  readonly extraReviewers?: Record<string, Record<string, unknown>>;
  readonly slots?: Record<string, string>;
  readonly timeout?: string;
  /** More files of the baseline commit. */
  readonly files?: Record<string, string>;
}

export type AdapterName = 'check-tests' | 'check-tsc' | 'check-eslint';

/** The sha256 of each built adapter (runner/reviewers/check-*.mjs). */
export function adapterDigests(): Record<AdapterName, string> {
  return {
    'check-tests': sha256(readFileSync(join(REVIEWERS_DIR, 'check-tests.mjs'))),
    'check-tsc': sha256(readFileSync(join(REVIEWERS_DIR, 'check-tsc.mjs'))),
    'check-eslint': sha256(readFileSync(join(REVIEWERS_DIR, 'check-eslint.mjs'))),
  };
}

/** A policy reviewer entry for a check (dependency root: node_modules). */
export function checkEntry(
  adapters: Record<AdapterName, string>,
  adapter: AdapterName,
  command: readonly string[],
  report?: string,
  env: Record<string, string> = {},
): Record<string, unknown> {
  return { sha256: adapters[adapter], interpreter: NODE, env, check: { adapter, command, dependency_root: 'node_modules', ...(report === undefined ? {} : { report }) } };
}

export async function makeCheckWorld(o: CheckWorldOptions = {}): Promise<CheckWorld> {
  const dir = tempDir('governed-checks-');
  const keys = makeKeys(join(dir, 'keys'));
  const attestors = attestorsDir(dir, keys);
  const adapters = adapterDigests();
  const attestorSha = sha256(readFileSync(ATTESTOR));
  const cfgSha = (cred: string): string => sha256(readFileSync(join(attestors, `${cred}.json`)));
  const cred = (k: { keyId: string }, c: string): Record<string, unknown> => ({
    key_id: k.keyId,
    attestor_sha256: [attestorSha],
    attestor_config_sha256: c === 'reviewer' || c === 'runner' ? [cfgSha(c)] : ['7'.repeat(64)],
  });
  const bw = await inspectBwrap('/usr/bin/bwrap');
  const base = policyDoc(keys);
  const entryOf = (adapter: keyof typeof adapters, command: readonly string[], report?: string, env: Record<string, string> = {}): Record<string, unknown> =>
    checkEntry(adapters, adapter, command, report, env);
  const policy = {
    ...base,
    stages: {
      planning: (base.stages as Record<string, unknown>).planning,
      test: { required: true, streak: 2, slots: o.slots ?? { tests: 'node-tests', types: 'tsc', lint: 'eslint' } },
    },
    reviewers: {
      ...(base.reviewers as Record<string, unknown>),
      'node-tests': entryOf('check-tests', COMMANDS.tests, 'tap'),
      tsc: entryOf('check-tsc', COMMANDS.types),
      eslint: entryOf('check-eslint', COMMANDS.lint),
      ...o.extraReviewers,
    },
    sandbox: {
      bwrap_sha256: [bw.sha256],
      profile_sha256: [staticProfileSha256(), staticProfileSha256('check')],
      seccomp_sha256: [sha256(seccompBlob())],
      uid: 64500,
      timeout: o.timeout ?? '60s',
      memory: '4GiB',
      max_output: '64KiB',
      max_bundle: '64MiB',
    },
    credentials: { reviewer: cred(keys.reviewer, 'reviewer'), runner: cred(keys.runner, 'runner'), gate: cred(keys.gate, 'gate'), log: cred(keys.log, 'log') },
  };
  const w = makeWorld({
    keys,
    policy,
    contract: checkContract('done'),
    baselineFiles: { ...PACKAGE_FILES, 'src/sum.js': sumSource('good'), 'test/sum.test.js': SUM_TEST, ...o.files },
  });
  mkdirSync(join(w.repo.root, 'node_modules'));
  cpSync(dependencyCache(), join(w.repo.root, 'node_modules'), { recursive: true, verbatimSymlinks: true });
  const unit = setupUnit(w, SESSION);
  return { ...w, unit, attestorsDir: attestors, adapters };
}

export function issueCheck(w: CheckWorld, slot: string, stage = 'test'): string {
  return govOk(w, ['review-challenge', '--unit', w.unit, '--writer-session', SESSION, '--stage', stage, '--slot', slot]).challenge_id as string;
}

export function runCheck(w: CheckWorld, challenge: string): CliResult {
  return gov(w, ['review-run', '--challenge', challenge, '--reviewers-dir', REVIEWERS_DIR, '--attestors', w.attestorsDir, '--json']);
}

export function statusOf(w: CheckWorld): { state: string; reasons: { code: string; ids: string[] }[] } {
  return govOk(w, ['status', '--unit', w.unit]) as never;
}

export { writeJsonFile };
