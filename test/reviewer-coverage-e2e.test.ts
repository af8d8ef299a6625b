// The coverage reviewer where it really lives:
//   - over bundles issued by the real `governed review-challenge` (built CLI; set GOVERNED_CLI for a
//     private build) from a real git repository holding the fixture project;
//   - inside real bubblewrap through runner/sandbox (runSandboxed), as `review-run` starts it: the
//     reviewer bytes and the bundle only through descriptors, the fixed environment, the sandbox uid;
//   - as the pinned, self-contained file docs/formats.md#attestors requires: its import graph is exactly its own
//     sources, the one bundle definition of src/core with zod/mini, and Node built-ins (no yaml, no
//     error tables, no store), and the build script's output is this build.
// A missing bwrap fails this suite; it never skips.
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltBundle } from '../src/core/bundle/index.js';
import { runSandboxed } from '../runner/sandbox/run.js';
import { REPO_ROOT } from './helpers/cli.js';
import { cleanupDirs, govOk, makeWorld, setupUnit, type World } from './state-helpers.js';
import {
  BUILT_REVIEWER,
  buildReviewer,
  bundleOf,
  cleanScenario,
  cleanup,
  expectValidOutput,
  NODE,
  PROJECT,
  REVIEWER_ENTRY,
  runReviewer,
  sha,
  summary,
  tempDir,
  type Output,
  type Scenario,
} from './reviewer-coverage-helpers.js';
import { realAllow, testLimits } from './sandbox-helpers.js';

const BWRAP = '/usr/bin/bwrap';
/** A sandbox uid of this suite's own (RLIMIT_NPROC counts per uid across concurrent suites). */
const SANDBOX_UID = 64517;

let reviewer: string;
beforeAll(async () => {
  reviewer = await buildReviewer();
}, 60_000);
afterAll(() => {
  cleanup();
  cleanupDirs();
});

/** A real repository whose baseline commit is the scenario's baseline, with a real unit over the scenario's contract. */
function realUnit(s: Scenario): { w: World; unit: string } {
  const w = makeWorld({ contract: s.contract, baselineFiles: Object.fromEntries(s.baseline) });
  const unit = setupUnit(w);
  for (const [path, text] of s.current) if (s.baseline.get(path) !== text) w.repo.write(path, text);
  return { w, unit };
}

function challengeBundle(w: World, unit: string, stage: string, slot: string): Buffer {
  const out = govOk(w, ['review-challenge', '--unit', unit, '--writer-session', 'agent-1', '--stage', stage, '--slot', slot]);
  return readFileSync(join(w.home, 'bundles', `${out.challenge_id as string}.json`));
}

function reviewIssued(bytes: Buffer, s: Scenario): Output {
  const coverage = (JSON.parse(bytes.toString('utf8')) as { coverage: BuiltBundle['coverage'] }).coverage;
  return expectValidOutput(runReviewer(reviewer, bytes), { coverage } as BuiltBundle, s);
}

describe('bundles issued by the real governed review-challenge', () => {
  it('CLEAN for the clean unit in every view governed issues before planning is sealed; DIRTY on a real gap', () => {
    const s = cleanScenario();
    const { w, unit } = realUnit(s);
    expect(reviewIssued(challengeBundle(w, unit, 'development', 'coverage'), s).verdict).toBe('CLEAN');
    for (const role of ['source_fidelity', 'baseline_preservation', 'implementation_test', 'authority_release']) {
      expect(reviewIssued(challengeBundle(w, unit, 'planning', role), s).verdict, role).toBe('CLEAN');
    }
    // The writer rewrites the CSV test so that it no longer exercises the CSV exporter.
    const gap = (PROJECT.get('test/export.test.ts') as string).replace("import { toCsv } from '../src/export.js';\n", 'const toCsv = (): string => "id,verdict\\nr1,CLEAN";\n');
    w.repo.write('test/export.test.ts', gap);
    expect(summary(reviewIssued(challengeBundle(w, unit, 'development', 'coverage'), s))).toEqual(['trace_gap/correctness/HIGH:DIR-1,EVD-1']);
  });

  it('finds a done directive whose implementation the writer never touched', () => {
    const s = cleanScenario();
    s.baseline.set('py/report.py', PROJECT.get('py/report.py') as string);
    const { w, unit } = realUnit(s);
    expect(summary(reviewIssued(challengeBundle(w, unit, 'development', 'coverage'), s))).toEqual(['scope_omission/scope/HIGH:DIR-3,IMP-3']);
  });
});

describe('inside real bubblewrap', () => {
  it('runs sandboxed exactly as outside, CLEAN and DIRTY, with nothing on stderr', async () => {
    accessSync(BWRAP, constants.X_OK);
    const bytes = readFileSync(reviewer);
    const clean = bundleOf(cleanScenario(), 'integration', 'implementation_test');
    const dirty = cleanScenario();
    dirty.baseline.set('test/export.test.ts', PROJECT.get('test/export.test.ts') as string);
    const dirtyBundle = bundleOf(dirty, 'development', 'coverage');
    for (const built of [clean, dirtyBundle]) {
      const r = await runSandboxed({
        bwrapPath: BWRAP,
        allow: await realAllow(sha(bytes)),
        interpreter: NODE,
        reviewer: { bytes },
        bundleBytes: built.bytes,
        env: {},
        uid: SANDBOX_UID,
        gid: SANDBOX_UID,
        limits: testLimits(),
      });
      expect(r.exitCode).toBe(0);
      expect(r.timedOut || r.outputOverflow || r.setupFailed).toBe(false);
      expect(r.stderrBytes).toBe(0);
      const outside = runReviewer(reviewer, built.bytes);
      expect(r.stdout.toString('utf8')).toBe(outside.stdout);
      expectValidOutput({ code: 0, stdout: r.stdout.toString('utf8'), stderr: '' }, built);
    }
    expect(JSON.parse(runReviewer(reviewer, dirtyBundle.bytes).stdout).verdict).toBe('DIRTY');
  }, 60_000);
});

describe('a pinned, self-contained program (docs/formats.md#attestors)', () => {
  it('its import graph is its own sources, the shared vocabularies and names, the one timestamp rule, the limits table, the compiled form of the one bundle definition (with its named refinements), the bundle rule functions, the policy check rules and Node built-ins only: no zod', async () => {
    const r = await build({
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
      entryPoints: [REVIEWER_ENTRY],
      outfile: join(tempDir('meta'), 'x.mjs'),
    });
    const inputs = Object.keys(r.metafile.inputs).map((p) => relative(REPO_ROOT, join(process.cwd(), p)));
    expect(inputs.length).toBeGreaterThan(3);
    // The bundle format is one definition shared with governed (docs/reviewers.md), read here through
    // its compiled form (docs/architecture.md#compiled-formats): the generated module, its checker,
    // the named refinements, the rule functions and the constant lists they need — never zod, the
    // error tables, canonical JSON or a store. sandbox-bounds: the policy's check command and
    // dependency-root rules, which the bundle's `check` inputs share (pure, no imports but the limits table).
    const shared = [
      'src/core/review-vocabulary.ts',
      'src/core/iso-time.ts',
      'src/core/limits.ts',
      'src/core/ids.ts',
      'src/core/contract/vocabulary.ts',
      'src/core/preservation/vocabulary.ts',
      'src/core/bundle/names.ts',
      'src/core/bundle/format.ts',
      'src/core/bundle/rules.ts',
      'src/core/bundle/preservation-rules.ts',
      'src/core/bundle/ids.ts',
      'src/core/sandbox-bounds.ts',
      'src/core/format/compiled.ts',
      'src/core/format/interpret.ts',
      'src/core/format/node.ts',
      'src/core/format/accept-runtime.ts',
      'src/core/format/refinements.ts',
    ];
    for (const p of inputs) expect(p.startsWith('runner/reviewers/src/') || shared.includes(p), p).toBe(true);
    expect(inputs.filter((p) => p.startsWith('node_modules/'))).toEqual([]);
    const text = readFileSync(reviewer, 'utf8');
    const specifiers = [...text.matchAll(/^import .* from ["']([^"']+)["'];?$/gm)].map((m) => m[1]);
    expect(specifiers.length).toBeGreaterThan(0);
    for (const s of specifiers) expect(s?.startsWith('node:'), s).toBe(true);
    expect(text).not.toMatch(/\bimport\(|require\(["'](?!node:)/);
  });

  it.skipIf(!existsSync(BUILT_REVIEWER))('runner/reviewers/coverage.mjs (scripts/build.mjs) is byte-identical to this build', () => {
    expect(readFileSync(BUILT_REVIEWER).equals(readFileSync(reviewer))).toBe(true);
  });
});
