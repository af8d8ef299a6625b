// Shared fixtures of the coverage-reviewer suites (docs/reviewers.md#the-coverage-reviewer): the reviewer bundled privately
// with the options of scripts/build.mjs, run as a real child process exactly as the sandbox runs it
// (docs/reviewers.md#the-reviewers-world: `/usr/bin/node <file>`, no arguments, stdin /dev/null, cwd /tmp, exactly the fixed
// environment), and real bundles built by governed's own `buildBundle` from the small project in
// test/fixtures/reviewer-coverage — every fixture contract passes `validateContract` and
// `assertChangeCoverage`, so each bundle is one governed would really issue.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
// @ts-expect-error -- a plain .mjs build script without type declarations
import { buildPinned } from '../scripts/pinned-build.mjs';
import { expect } from 'vitest';
import { canonicalJson } from '../src/core/canonical.js';
import { buildBundle, evidencePaths, type BuiltBundle, type FileInput, type PriorReceipt, type ScopeHistoryInput } from '../src/core/bundle/index.js';
import { assertChangeCoverage } from '../src/core/contract/coverage.js';
import { parseContract } from '../src/core/contract/schema.js';
import { validateContract } from '../src/core/contract/validate.js';
import { isVeto, predicateRuleViolation } from '../src/core/receipt-predicate.js';
import { findingSchema } from '../src/core/receipt-predicate-schema.js';
import { parseReviewOutput } from '../src/core/review-output.js';
import type { Stage } from '../src/core/policy.js';
import { REPO_ROOT } from './helpers/cli.js';

export const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'reviewer-coverage');
export const REVIEWER_ENTRY = join(REPO_ROOT, 'runner', 'reviewers', 'src', 'coverage.ts');
/** What scripts/build.mjs writes (only present after `npm run build`). */
export const BUILT_REVIEWER = join(REPO_ROOT, 'runner', 'reviewers', 'coverage.mjs');
export const NODE = '/usr/bin/node';
export const CANARIES = ['CANARY-SRC-7c1d', 'CANARY-CTX-29ab', 'CANARY-FILE-e41f'] as const;

const PRIVATE = join(REPO_ROOT, '.private', 'coverage');
const dirs: string[] = [];

export function tempDir(prefix: string): string {
  mkdirSync(PRIVATE, { recursive: true });
  const d = mkdtempSync(join(PRIVATE, `${prefix}-`));
  dirs.push(d);
  return d;
}

export function cleanup(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

/**
 * Bundle the reviewer exactly as scripts/build.mjs does for a pinned program: one ESM file, no
 * splitting, no externals but node: built-ins, the same banner. Returns the file path.
 */
export async function buildReviewer(dir = tempDir('build')): Promise<string> {
  const outfile = join(dir, 'coverage.mjs');
  await buildPinned('runner/reviewers/src/coverage.ts', outfile, REPO_ROOT);
  return outfile;
}

export interface ReviewerRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The environment of docs/reviewers.md#the-reviewers-world with the bundle at `bundlePath` (the sandbox mounts it at /bundle/review-bundle.json). */
export function reviewerEnv(bundlePath: string): Record<string, string> {
  return { GOVERNED_BUNDLE: bundlePath, HOME: '/tmp', TMPDIR: '/tmp', PATH: '/usr/bin', LANG: 'C.UTF-8' };
}

/**
 * Run the bundled reviewer as the sandbox does: the reviewer file is copied to a name without an
 * extension (the sandbox binds it at /opt/reviewer/reviewer), the bundle is a read-only file.
 */
export function runReviewer(reviewer: string, bundle: Buffer | string, env?: Record<string, string>): ReviewerRun {
  const dir = tempDir('run');
  const script = join(dir, 'reviewer');
  writeFileSync(script, readFileSync(reviewer));
  chmodSync(script, 0o555);
  const bundlePath = join(dir, 'review-bundle.json');
  writeFileSync(bundlePath, bundle);
  chmodSync(bundlePath, 0o444);
  const r = spawnSync(NODE, [script], {
    cwd: '/tmp',
    env: env ?? reviewerEnv(bundlePath),
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    timeout: 30_000,
  });
  rmSync(dir, { recursive: true, force: true });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// --- the fixture project ------------------------------------------------------------------------

function readTree(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const abs = join(d, name);
      if (statSync(abs).isDirectory()) walk(abs);
      else out.set(relative(root, abs), readFileSync(abs, 'utf8'));
    }
  };
  walk(root);
  return out;
}

export const PROJECT = readTree(join(FIXTURES, 'project'));
const BASELINE_OVERRIDES = readTree(join(FIXTURES, 'baseline'));
export const SOURCE_PATH = 'requests/export.md';

/** The request's sentences: four obligations (DIR-1..DIR-4) and one context sentence. */
export function sourceSegments(text = PROJECT.get(SOURCE_PATH) as string): string[] {
  const parts = text.split(/(?<=\.)(?= )/);
  if (parts.length !== 5) throw new Error('fixture request must have five sentences');
  return parts;
}

export interface Scenario {
  /** The contract document (plain JSON); `sourceText` is the bytes of requests/export.md. */
  contract: Record<string, any>;
  sourceText: string;
  baseline: Map<string, string>;
  current: Map<string, string>;
  scopeHistory: ScopeHistoryInput[];
  priorReceipts: PriorReceipt[];
}

/** Source SRC-1 over `text` (five sentences): ATOM-1..4 obligations of DIR-1..4, ATOM-5 context. */
export function sourceDoc(text: string): Record<string, unknown> {
  const segs = sourceSegments(text);
  let at = 0;
  const atoms = segs.map((seg, i) => {
    const start = at;
    at += Buffer.byteLength(seg);
    const obligation = i < 4;
    return { id: `ATOM-${i + 1}`, span: [start, at], kind: obligation ? 'obligation' : 'context', directives: obligation ? [`DIR-${i + 1}`] : [] };
  });
  return { id: 'SRC-1', path: SOURCE_PATH, class: 'directive', atoms };
}

function directive(n: number, text: string, o: { targets: string[][]; impl: string[]; evidence: string[] }): Record<string, unknown> {
  const seg = sourceSegments(text)[n - 1] as string;
  return {
    id: `DIR-${n}`,
    statement: `Implement:${seg}`,
    state: 'done',
    sources: ['SRC-1'],
    targets: o.targets.map((paths, i) => ({ id: `TGT-${n}${String.fromCharCode(97 + i)}`, paths })),
    criteria: [{ id: `AC-${n}`, statement: `Criterion of DIR-${n}.`, atoms: [`ATOM-${n}`] }],
    implementations: o.impl,
    evidence: o.evidence,
  };
}

/**
 * The clean unit: every directive `done`, every implementation changed against the baseline, every
 * evidence item changed, present and referencing its implementation —
 *   DIR-1 CSV     IMP-1 src/export.ts   EVD-1 test/export.test.ts (imports it; names AC-1)
 *   DIR-2 JSON    IMP-2 src/json.ts     EVD-2 test/cli.test.ts (imports src/cli.ts, a target, which imports src/json.ts)
 *   DIR-3 report  IMP-3 py/report.py    EVD-3 py/test_report.py (`from py.report import render`)
 *   DIR-4 tool    IMP-4 bin/tool.mjs    EVD-4 test/tool.test.sh (names bin/tool.mjs)
 */
export function cleanScenario(): Scenario {
  const text = PROJECT.get(SOURCE_PATH) as string;
  const current = new Map(PROJECT);
  current.delete('test/unrelated.test.ts');
  const baseline = new Map<string, string>([
    [SOURCE_PATH, text],
    ['src/util.ts', PROJECT.get('src/util.ts') as string],
    ...BASELINE_OVERRIDES,
  ]);
  return {
    contract: {
      kind: 'governed/request-contract',
      version: 1,
      title: 'Receipt exports',
      sources: [sourceDoc(text)],
      directives: [
        directive(1, text, { targets: [['src/export.ts']], impl: ['IMP-1'], evidence: ['EVD-1'] }),
        directive(2, text, { targets: [['src/json.ts', 'src/cli.ts']], impl: ['IMP-2'], evidence: ['EVD-2'] }),
        directive(3, text, { targets: [['py/report.py']], impl: ['IMP-3'], evidence: ['EVD-3'] }),
        directive(4, text, { targets: [['bin/tool.mjs']], impl: ['IMP-4'], evidence: ['EVD-4'] }),
      ],
      implementations: [
        { id: 'IMP-1', paths: ['src/export.ts'] },
        { id: 'IMP-2', paths: ['src/json.ts'] },
        { id: 'IMP-3', paths: ['py/report.py'] },
        { id: 'IMP-4', paths: ['bin/tool.mjs'] },
      ],
      evidence: [
        { id: 'EVD-1', kind: 'test', paths: ['test/export.test.ts'] },
        { id: 'EVD-2', kind: 'test', paths: ['test/cli.test.ts'] },
        { id: 'EVD-3', kind: 'test', paths: ['py/test_report.py'] },
        { id: 'EVD-4', kind: 'test', paths: ['test/tool.test.sh'] },
      ],
      authorities: [],
      tombstones: [],
    },
    sourceText: text,
    baseline,
    current,
    scopeHistory: [scopeVersion(1)],
    priorReceipts: [],
  };
}

export function scopeVersion(version: number, diff: Partial<ScopeHistoryInput['diff']> = {}, authorities: string[] = []): ScopeHistoryInput {
  return {
    version,
    scopeEpoch: version,
    workRevision: version - 1,
    contractDigest: `sha256:${String(version).repeat(64).slice(0, 64)}`,
    sourcesDigest: `sha256:${'2'.repeat(64)}`,
    boundAt: 1_700_000_000 + version,
    diff: { additions: [], narrowing: [], progress: [], ...diff },
    authorities,
  };
}

/** The directive `DIR-n` of a scenario's contract (for in-place edits). */
export function dir(s: Scenario, n: number): Record<string, any> {
  return (s.contract.directives as Record<string, any>[]).find((d) => d.id === `DIR-${n}`) as Record<string, any>;
}

export function item(s: Scenario, kind: 'implementations' | 'evidence', id: string): Record<string, any> {
  return (s.contract[kind] as Record<string, any>[]).find((x) => x.id === id) as Record<string, any>;
}

export const sha = (text: string | Uint8Array): string => createHash('sha256').update(text).digest('hex');

function fileInputs(files: ReadonlyMap<string, string>, paths: readonly string[]): FileInput[] {
  return paths.map((p) => {
    const text = files.get(p);
    return text === undefined ? { path: p, present: false as const } : { path: p, present: true as const, mode: '100644' as const, sha256: sha(text), bytes: Buffer.from(text) };
  });
}

export function changesOf(s: Scenario): { path: string; baseline: string | null; current: string | null }[] {
  const paths = [...new Set([...s.baseline.keys(), ...s.current.keys()])].sort();
  return paths.flatMap((p) => {
    const b = s.baseline.get(p);
    const c = s.current.get(p);
    return b === c ? [] : [{ path: p, baseline: b === undefined ? null : sha(b), current: c === undefined ? null : sha(c) }];
  });
}

/** A bundle governed would issue for this scenario, stage and slot. */
export function bundleOf(s: Scenario, stage: Stage, slot: string): BuiltBundle {
  const contract = parseContract(s.contract);
  const sourceBytes = new Map([['SRC-1', Buffer.from(s.sourceText)]]);
  validateContract(contract, { sourceBytes, productRoots: ['.'] });
  const changes = changesOf(s);
  assertChangeCoverage(contract, changes.map((c) => c.path));
  const paths = evidencePaths(contract, stage);
  const planning = stage === 'planning';
  return buildBundle({
    challengeId: `CHL-${'e'.repeat(32)}`,
    unit: `UNIT-${'f'.repeat(32)}`,
    stage,
    slot,
    contract,
    sourceBytes,
    scopeHistory: s.scopeHistory,
    changes: planning ? null : changes,
    currentFiles: planning ? null : fileInputs(s.current, paths),
    baseline: {
      commit: 'c'.repeat(40),
      tree: 'd'.repeat(40),
      manifest: [...s.baseline].map(([path, text]) => ({ path, mode: '100644' as const, sha256: sha(text) })),
      files: fileInputs(s.baseline, paths),
    },
    priorReceipts: s.priorReceipts,
    maxBytes: 64 << 20,
  });
}

export interface Output {
  readonly coverage: Record<string, string[]>;
  readonly findings: { code: string; class: string; severity: string; refs: string[] }[];
  readonly schema: string;
  readonly verdict: 'CLEAN' | 'DIRTY';
}

/**
 * Check a reviewer run against docs/reviewers.md#reviewer-output as the runner will: exit 0, stdout exactly the RFC 8785
 * text of one object (governed's canonicalJson), closed keys, the bundle's coverage echoed exactly,
 * closed finding enums, 1–4 sorted unique refs that are IDs of the view, findings sorted and
 * unique, at most 32, CLEAN ⇔ no findings; the runner's parser (src/core/review-output.ts) accepts
 * it — and nothing of the bundle's text or paths in stdout
 * or stderr. Returns the parsed output.
 */
export function expectValidOutput(run: ReviewerRun, built: BuiltBundle, s?: Scenario): Output {
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const out = JSON.parse(run.stdout) as Output;
  expect(run.stdout).toBe(canonicalJson(out));
  expect(Object.keys(out).sort()).toEqual(['coverage', 'findings', 'schema', 'verdict']);
  expect(out.schema).toBe('governed.review-output/v1');
  expect(out.coverage).toEqual(built.coverage);
  expect(canonicalJson(out.coverage)).toBe(canonicalJson(built.coverage));
  expect(out.findings.length).toBeLessThanOrEqual(32);
  const visible = new Set(Object.entries(built.coverage).flatMap(([k, v]) => (k === 'relations' ? [] : v)));
  for (const f of out.findings) {
    findingSchema.parse(f);
    for (const r of f.refs) expect(visible.has(r)).toBe(true);
  }
  // The receipt's own rule for findings order and uniqueness (CLEAN ⇔ no findings included).
  const violation = predicateRuleViolation(
    {
      verdict: out.verdict,
      findings: out.findings,
      vetoes: out.findings.filter((f) => isVeto(f as never)),
      times: { issued_at: 'a', started_at: 'a', finished_at: 'a' },
    } as unknown as Parameters<typeof predicateRuleViolation>[0],
    (v) => canonicalJson(v as never),
  );
  expect(violation).toBeNull();
  expect(out.verdict).toBe(out.findings.length === 0 ? 'CLEAN' : 'DIRTY');
  // And the runner's own strict parser of docs/reviewers.md#reviewer-output accepts it, with the same verdict and findings.
  const parsed = parseReviewOutput(Buffer.from(run.stdout, 'utf8'), built.coverage);
  expect(parsed.verdict).toBe(out.verdict);
  expect(parsed.findings).toEqual(out.findings);
  assertNothingLeaked(run, s);
  return out;
}

/** No canary text, and no path of the scenario, on stdout or stderr. */
export function assertNothingLeaked(run: ReviewerRun, s?: Scenario): void {
  for (const c of CANARIES) {
    expect(run.stdout).not.toContain(c);
    expect(run.stderr).not.toContain(c);
  }
  const paths = s ? [...new Set([...s.baseline.keys(), ...s.current.keys()])] : [...PROJECT.keys()];
  for (const p of paths) {
    expect(run.stdout).not.toContain(p);
    expect(run.stderr).not.toContain(p);
  }
}

/** Findings as compact strings `code/class/severity:REF,REF` for readable assertions. */
export function summary(out: Output): string[] {
  return out.findings.map((f) => `${f.code}/${f.class}/${f.severity}:${f.refs.join(',')}`);
}
