// The coverage reviewer (docs/reviewers.md#the-coverage-reviewer; docs/reviewers.md#reviewer-output, docs/reviewers.md#the-reviewers-world) run as a real child process, exactly as
// the sandbox starts it, over real bundles built by governed's buildBundle from the fixture project
// (test/fixtures/reviewer-coverage). Every check is shown to fire on a real gap — and only in the
// views that show the sections it needs — and to stay quiet on the clean unit; every output is
// checked against docs/reviewers.md#reviewer-output the way the runner will (reviewer-coverage-helpers.ts expectValidOutput).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/core/canonical.js';
import { changeId } from '../src/core/bundle/index.js';
import type { Stage } from '../src/core/policy.js';
import {
  buildReviewer,
  bundleOf,
  cleanScenario,
  cleanup,
  dir,
  expectValidOutput,
  item,
  PROJECT,
  runReviewer,
  scopeVersion,
  sourceDoc,
  SOURCE_PATH,
  summary,
  type Output,
  type Scenario,
} from './reviewer-coverage-helpers.js';

let reviewer: string;
beforeAll(async () => {
  reviewer = await buildReviewer();
}, 60_000);
afterAll(cleanup);

const ROLES = ['source_fidelity', 'baseline_preservation', 'implementation_test', 'authority_release'] as const;
/** Every view of docs/bundle.md#views the reviewer can be given: the four roles of planning and integration, and `complete`. */
const VIEWS: readonly (readonly [Stage, string])[] = [
  ...ROLES.map((r) => ['planning', r] as const),
  ['development', 'coverage'],
  ['test', 'coverage'],
  ...ROLES.map((r) => ['integration', r] as const),
];
const key = (stage: Stage, slot: string): string => `${stage}.${slot}`;

function review(s: Scenario, stage: Stage, slot: string): Output {
  const built = bundleOf(s, stage, slot);
  return expectValidOutput(runReviewer(reviewer, built.bytes), built, s);
}

/** The findings of every view, as summary strings keyed `stage.slot`. */
function everyView(s: Scenario): Record<string, string[]> {
  return Object.fromEntries(VIEWS.map(([stage, slot]) => [key(stage, slot), summary(review(s, stage, slot))]));
}

/** Expect `findings` in exactly the listed views and CLEAN in all others. */
function expectOnlyIn(s: Scenario, views: readonly string[], findings: string[]): void {
  const got = everyView(s);
  const want = Object.fromEntries(VIEWS.map(([stage, slot]) => [key(stage, slot), views.includes(key(stage, slot)) ? findings : []]));
  expect(got).toEqual(want);
}

/** The views with the full contract (and changes and current files). */
const CONTRACT_VIEWS = ['development.coverage', 'test.coverage', 'integration.implementation_test'];
const SOURCE_VIEWS = ['planning.source_fidelity', 'development.coverage', 'test.coverage', 'integration.source_fidelity'];
const HISTORY_VIEWS = ['planning.authority_release', 'development.coverage', 'test.coverage', 'integration.authority_release'];

/** Replace the request text (and so SRC-1's atoms) everywhere. */
function withSource(s: Scenario, text: string): void {
  s.sourceText = text;
  s.baseline.set(SOURCE_PATH, text);
  s.current.set(SOURCE_PATH, text);
  s.contract.sources = [sourceDoc(text)];
}

describe('the clean unit', () => {
  it('is CLEAN in every view, echoing each view’s own coverage exactly', () => {
    const s = cleanScenario();
    for (const [stage, slot] of VIEWS) {
      const built = bundleOf(s, stage, slot);
      const out = expectValidOutput(runReviewer(reviewer, built.bytes), built, s);
      expect(out.verdict, key(stage, slot)).toBe('CLEAN');
      expect(out.findings).toEqual([]);
    }
  });

  it('is deterministic: the same view gives the same bytes, whatever the challenge id', () => {
    const s = cleanScenario();
    s.current.set('test/export.test.ts', '// no import at all\n'); // make it DIRTY so findings are compared too
    const a = runReviewer(reviewer, bundleOf(s, 'development', 'coverage').bytes);
    const b = runReviewer(reviewer, bundleOf(s, 'development', 'coverage').bytes);
    const other = bundleOf(s, 'development', 'coverage');
    const bundle = JSON.parse(other.bytes.toString('utf8')) as { challenge_id: string };
    bundle.challenge_id = `CHL-${'0'.repeat(32)}`;
    const c = runReviewer(reviewer, Buffer.from(canonicalJson(bundle as never)));
    expect(a.stdout).toBe(b.stdout);
    expect(c.stdout).toBe(a.stdout);
    expect(JSON.parse(a.stdout).verdict).toBe('DIRTY');
  });
});

describe('trace_gap: an evidence file must import or name its directive’s implementation', () => {
  it('fires when the test exercises something else, in the views with the contract and current files', () => {
    const s = cleanScenario();
    s.current.delete('test/export.test.ts');
    s.current.set('test/unrelated.test.ts', PROJECT.get('test/unrelated.test.ts') as string);
    item(s, 'evidence', 'EVD-1').paths = ['test/unrelated.test.ts'];
    expectOnlyIn(s, CONTRACT_VIEWS, ['trace_gap/correctness/HIGH:DIR-1,EVD-1']);
  });

  it('follows imports through other visible files, and fires when that chain is cut', () => {
    // Clean: test/cli.test.ts → src/cli.ts (a target) → src/json.ts (IMP-2). Cut the second link:
    const s = cleanScenario();
    s.current.set('src/cli.ts', (PROJECT.get('src/cli.ts') as string).replace("import { toJson } from './json.js';\n", 'const toJson = JSON.stringify;\n'));
    expect(summary(review(s, 'development', 'coverage'))).toEqual(['trace_gap/correctness/HIGH:DIR-2,EVD-2']);
  });

  it('reads Python imports, and fires without them', () => {
    const s = cleanScenario();
    s.current.set('py/test_report.py', (PROJECT.get('py/test_report.py') as string).replace('from py.report import render\n', 'render = str\n'));
    expect(summary(review(s, 'development', 'coverage'))).toEqual(['trace_gap/correctness/HIGH:DIR-3,EVD-3']);
    const relative = cleanScenario();
    relative.current.set('py/test_report.py', (PROJECT.get('py/test_report.py') as string).replace('from py.report import', 'from .report import'));
    expect(summary(review(relative, 'development', 'coverage'))).toEqual([]);
  });

  it('accepts a test that names the implementation by its path, and fires when it names another', () => {
    const s = cleanScenario();
    s.current.set('test/tool.test.sh', (PROJECT.get('test/tool.test.sh') as string).replace('bin/tool.mjs', 'bin/tool.mjs.orig'));
    expect(summary(review(s, 'development', 'coverage'))).toEqual(['trace_gap/correctness/HIGH:DIR-4,EVD-4']);
  });

  it('does not count a file as evidence for itself', () => {
    const s = cleanScenario();
    // EVD-1 lists the test and the implementation; the test no longer imports anything.
    item(s, 'evidence', 'EVD-1').paths = ['src/export.ts', 'test/export.test.ts'];
    s.current.set('test/export.test.ts', "it('AC-1: csv', () => {});\n");
    expect(summary(review(s, 'development', 'coverage'))).toEqual(['trace_gap/correctness/HIGH:DIR-1,EVD-1']);
  });

  it('only judges executable evidence (test, benchmark): a doc item need not import the code', () => {
    const s = cleanScenario();
    item(s, 'evidence', 'EVD-1').kind = 'doc';
    s.current.set('test/export.test.ts', 'CSV export, see the manual.\n');
    expect(summary(review(s, 'development', 'coverage'))).toEqual([]);
    item(s, 'evidence', 'EVD-1').kind = 'benchmark';
    expect(summary(review(s, 'development', 'coverage'))).toEqual(['trace_gap/correctness/HIGH:DIR-1,EVD-1']);
  });
});

describe('scope_omission: a done directive’s implementation must really have changed', () => {
  it('fires when the implementation is byte-identical to the baseline', () => {
    const s = cleanScenario();
    s.baseline.set('src/export.ts', PROJECT.get('src/export.ts') as string);
    expectOnlyIn(s, CONTRACT_VIEWS, ['scope_omission/scope/HIGH:DIR-1,IMP-1']);
  });

  it('is quiet for an active directive (nothing is claimed yet)', () => {
    const s = cleanScenario();
    s.baseline.set('src/export.ts', PROJECT.get('src/export.ts') as string);
    dir(s, 1).state = 'active';
    expect(summary(review(s, 'development', 'coverage'))).toEqual([]);
  });
});

describe('test_gap: implementation changed without its evidence changing', () => {
  it('fires with the change that moved the implementation', () => {
    const s = cleanScenario();
    s.baseline.set('test/export.test.ts', PROJECT.get('test/export.test.ts') as string);
    expectOnlyIn(s, CONTRACT_VIEWS, [`test_gap/correctness/MEDIUM:${changeId('src/export.ts')},DIR-1,IMP-1`]);
  });

  it('also for an active directive', () => {
    const s = cleanScenario();
    s.baseline.set('test/export.test.ts', PROJECT.get('test/export.test.ts') as string);
    dir(s, 1).state = 'active';
    expect(summary(review(s, 'development', 'coverage'))).toEqual([`test_gap/correctness/MEDIUM:${changeId('src/export.ts')},DIR-1,IMP-1`]);
  });
});

describe('evidence_gap: a done directive’s criteria must have evidence', () => {
  it('fires when a done directive has no evidence at all', () => {
    const s = cleanScenario();
    dir(s, 1).evidence = [];
    s.contract.evidence = (s.contract.evidence as { id: string }[]).filter((e) => e.id !== 'EVD-1');
    s.current.delete('test/export.test.ts');
    expectOnlyIn(s, CONTRACT_VIEWS, ['evidence_gap/correctness/HIGH:AC-1,DIR-1']);
  });

  it('fires when the only evidence is the implementation itself', () => {
    const s = cleanScenario();
    item(s, 'evidence', 'EVD-1').paths = ['src/export.ts'];
    s.current.delete('test/export.test.ts');
    expect(summary(review(s, 'development', 'coverage'))).toEqual(['evidence_gap/correctness/HIGH:AC-1,DIR-1']);
  });

  it('fires when an evidence file of a done directive is absent from the workspace (not for an active one)', () => {
    const s = cleanScenario();
    item(s, 'evidence', 'EVD-1').paths = ['test/export.test.ts', 'test/export-more.test.ts'];
    expectOnlyIn(s, CONTRACT_VIEWS, ['evidence_gap/correctness/HIGH:DIR-1,EVD-1']);
    dir(s, 1).state = 'active';
    expect(summary(review(s, 'development', 'coverage'))).toEqual([]);
  });

  it('with criterion tagging in use, fires for a criterion no evidence file names', () => {
    const s = cleanScenario();
    (dir(s, 1).criteria as unknown[]).push({ id: 'AC-1b', statement: 'Empty input gives the header only.', atoms: [] });
    expectOnlyIn(s, CONTRACT_VIEWS, ['evidence_gap/correctness/MEDIUM:AC-1b,DIR-1']);
    // Naming it (not as part of a longer ID) clears it; `AC-1bx` does not.
    s.current.set('test/export.test.ts', `${PROJECT.get('test/export.test.ts') as string}// AC-1bx\n`);
    expect(summary(review(s, 'development', 'coverage'))).toEqual(['evidence_gap/correctness/MEDIUM:AC-1b,DIR-1']);
    s.current.set('test/export.test.ts', `${PROJECT.get('test/export.test.ts') as string}it('AC-1b: header only', () => {});\n`);
    expect(summary(review(s, 'development', 'coverage'))).toEqual([]);
  });

  it('does not impose criterion tagging on a directive whose evidence names none of its criteria', () => {
    const s = cleanScenario();
    (dir(s, 2).criteria as unknown[]).push({ id: 'AC-2b', statement: 'Rows keep their order.', atoms: [] });
    expect(summary(review(s, 'development', 'coverage'))).toEqual([]);
  });
});

describe('scope_omission: an active directive whose targets were all deleted', () => {
  function deletedTool(state: 'active' | 'done'): Scenario {
    const s = cleanScenario();
    s.baseline.set('bin/tool.mjs', PROJECT.get('bin/tool.mjs') as string);
    s.current.delete('bin/tool.mjs');
    dir(s, 4).state = state;
    return s;
  }

  it('fires for an active directive', () => {
    expectOnlyIn(deletedTool('active'), CONTRACT_VIEWS, ['scope_omission/scope/HIGH:DIR-4,TGT-4a']);
  });

  it('is quiet for a done directive (a removal can be the work itself)', () => {
    expect(summary(review(deletedTool('done'), 'development', 'coverage'))).toEqual([]);
  });

  it('is quiet while one target path still exists', () => {
    const s = deletedTool('active');
    (dir(s, 4).targets as { paths: string[] }[])[0]?.paths.push('test/tool.test.sh');
    expect(summary(review(s, 'development', 'coverage'))).toEqual([]);
  });
});

describe('source_mapping: a requirement filed as context', () => {
  const segs = (PROJECT.get(SOURCE_PATH) as string).split(/(?<=\.)(?= )/);
  const withContext = (context: string): string => `${segs.slice(0, 4).join('')} ${context}\n`;

  it('fires for MUST / SHALL / REQUIRED in a context atom of a directive source, in the views with source text', () => {
    for (const context of ['Background: the export MUST keep a header row CANARY-CTX-29ab.', 'Note: rows SHALL NOT be merged.', 'A header is REQUIRED.']) {
      const s = cleanScenario();
      withSource(s, withContext(context));
      expectOnlyIn(s, SOURCE_VIEWS, ['source_mapping/scope/MEDIUM:ATOM-5,SRC-1']);
    }
  });

  it('is quiet for lower-case prose and for words that only contain the keyword', () => {
    for (const context of ['Background: auditors must sign off CANARY-CTX-29ab.', 'Background: MUSTARD and REQUIREDNESS are fine.']) {
      const s = cleanScenario();
      withSource(s, withContext(context));
      expect(summary(review(s, 'development', 'coverage')), context).toEqual([]);
    }
  });
});

describe('authority_mismatch: a narrowing bind without authority in the scope history', () => {
  it('fires in the views with the scope history', () => {
    const s = cleanScenario();
    s.scopeHistory = [scopeVersion(1), scopeVersion(2, { narrowing: ['TGT-9'] })];
    expectOnlyIn(s, HISTORY_VIEWS, ['authority_mismatch/authority/HIGH:SCOPE-2']);
  });

  it('is quiet when the narrowing consumed an authority record', () => {
    const s = cleanScenario();
    s.scopeHistory = [scopeVersion(1), scopeVersion(2, { narrowing: ['TGT-9'] }, ['REC-3f2a9c'])];
    expect(summary(review(s, 'development', 'coverage'))).toEqual([]);
  });
});

describe('several gaps at once', () => {
  it('reports each, sorted by canonical text', () => {
    const s = cleanScenario();
    s.baseline.set('src/export.ts', PROJECT.get('src/export.ts') as string); // scope_omission DIR-1
    s.baseline.set('test/cli.test.ts', PROJECT.get('test/cli.test.ts') as string); // test_gap DIR-2
    s.scopeHistory = [scopeVersion(1), scopeVersion(2, { narrowing: ['AC-9'] })]; // authority_mismatch
    const out = review(s, 'development', 'coverage');
    expect(summary(out)).toEqual([
      'authority_mismatch/authority/HIGH:SCOPE-2',
      `test_gap/correctness/MEDIUM:${changeId('src/json.ts')},DIR-2,IMP-2`,
      'scope_omission/scope/HIGH:DIR-1,IMP-1',
    ]);
  });

  it('keeps at most 32 findings, the most severe ones, and stays DIRTY', () => {
    const s = cleanScenario();
    // 40 absent evidence items of done DIR-1 (HIGH each) and one MEDIUM test_gap of DIR-2.
    const extra = Array.from({ length: 40 }, (_, i) => ({ id: `EVD-X${i}`, kind: 'test', paths: [`test/missing-${i}.test.ts`] }));
    s.contract.evidence = [...(s.contract.evidence as unknown[]), ...extra];
    dir(s, 1).evidence = ['EVD-1', ...extra.map((e) => e.id)];
    s.baseline.set('test/cli.test.ts', PROJECT.get('test/cli.test.ts') as string);
    const out = review(s, 'development', 'coverage');
    const expected = extra
      .map((e) => ({ class: 'correctness', code: 'evidence_gap', refs: ['DIR-1', e.id], severity: 'HIGH' }))
      .map((f) => canonicalJson(f))
      .sort()
      .slice(0, 32);
    expect(out.verdict).toBe('DIRTY');
    expect(out.findings.map((f) => canonicalJson(f as never))).toEqual(expected);
  });
});
