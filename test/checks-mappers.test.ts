// The check adapters' pure parts (docs/reviewers.md#check-reviewers): the TAP reader, the three
// mappers' CLEAN / DIRTY / no-verdict rules, the refs rule, and the bundle reader's refusals. Every
// way a run can fail to reach a verdict must be a coded status, never CLEAN.
import { describe, expect, it } from 'vitest';
import { parseTap, snapshotRelative } from '../runner/reviewers/src/check/tap.js';
import { mapEslint, mapTests, mapTsc } from '../runner/reviewers/src/check/mappers.js';
import { NoVerdict, type CommandResult } from '../runner/reviewers/src/check/run.js';
import { RefMap } from '../runner/reviewers/src/check/refs.js';
import type { CheckInputs } from '../runner/reviewers/src/check/bundle.js';
import type { Bundle } from '../runner/reviewers/src/coverage/bundle.js';

const inputs = (report: CheckInputs['report'] = 'tap'): CheckInputs => ({ command: ['/usr/bin/node'], snapshot: '/snapshot', dependency_root: null, report, timeout_ms: 1000 });

const bundle = {
  stage: 'test',
  slot: 'tests',
  view: { name: 'complete', included: ['contract'] },
  coverage: {},
  sections: {
    contract: {
      form: 'full',
      directives: [
        { id: 'DIR-2', state: 'done', sources: [], targets: [{ id: 'TGT-3', paths: ['src/json.ts'] }], criteria: [], implementations: [], evidence: [] },
        { id: 'DIR-1', state: 'done', sources: [], targets: [{ id: 'TGT-1', paths: ['src'] }], criteria: [], implementations: ['IMP-1'], evidence: ['EVD-1'] },
      ],
      implementations: [{ id: 'IMP-1', paths: ['src/sum.js'] }],
      evidence: [{ id: 'EVD-1', kind: 'test', paths: ['test/sum.test.js'] }],
    },
  },
} as unknown as Bundle;
const refs = new RefMap(bundle, new Set(['DIR-1', 'DIR-2', 'TGT-1', 'TGT-3', 'IMP-1', 'EVD-1']));

function statusOf(fn: () => unknown): number | 'verdict' {
  try {
    fn();
    return 'verdict';
  } catch (e) {
    if (e instanceof NoVerdict) return e.status;
    throw e;
  }
}

const TAP_PASS = 'TAP version 13\n# CANARY\nok 1 - a\n  ---\n  duration_ms: 1\n  ...\nok 2 - b # SKIP\n1..2\n';
const TAP_FAIL = [
  'TAP version 13',
  '# Subtest: group',
  '    not ok 1 - inner',
  '      ---',
  "      location: '/snapshot/test/other.test.js:9:1'",
  '      ...',
  '    1..1',
  'not ok 1 - group',
  '  ---',
  "  location: '/snapshot/test/sum.test.js:4:1'",
  '  ...',
  'not ok 2 - todo # TODO later',
  'not ok 3 - no location',
  '1..3',
].join('\n');

describe('TAP', () => {
  it('counts top-level points only, attributes each failure to its own location, TODO is not a failure', () => {
    const t = parseTap(TAP_FAIL, '/snapshot');
    expect(t).toMatchObject({ version: true, plan: 3, points: 3, passed: 1, bailedOut: false });
    expect(t.failures).toEqual([{ file: 'test/sum.test.js' }, { file: null }]);
  });
  it('snapshotRelative keeps only clean paths inside the snapshot', () => {
    expect(snapshotRelative('/snapshot/a/b.js', '/snapshot')).toBe('a/b.js');
    expect(snapshotRelative('file:///snapshot/a.js', '/snapshot')).toBe('a.js');
    for (const bad of ['/etc/passwd', '/snapshot/../x', '/snapshotx/a', '']) expect(snapshotRelative(bad, '/snapshot')).toBeNull();
  });
});

describe('tests mapper', () => {
  const run = (status: number | null, stdout: string, report: CheckInputs['report'] = 'tap'): unknown => mapTests({ status, stdout } as CommandResult, inputs(report), refs);
  it('CLEAN only with exit 0, a TAP version, a met plan and no failure', () => {
    expect(run(0, TAP_PASS)).toEqual([]);
  });
  it('DIRTY: one correctness/HIGH finding per failure, on the evidence of its file or else the directives', () => {
    expect(run(1, TAP_FAIL)).toEqual([
      { code: 'correctness', class: 'correctness', severity: 'HIGH', refs: ['EVD-1'] },
      { code: 'correctness', class: 'correctness', severity: 'HIGH', refs: ['DIR-1', 'DIR-2'] },
    ]);
  });
  it('never CLEAN without a verdict: crash, no TAP, bail out, contradictions, unmet plan', () => {
    expect(statusOf(() => run(1, TAP_PASS))).toBe(80); // failed exit, no failed point: a crash
    expect(statusOf(() => run(0, TAP_FAIL))).toBe(82); // exit 0 with failures
    expect(statusOf(() => run(0, ''))).toBe(82); // no TAP at all
    expect(statusOf(() => run(0, 'TAP version 13\nok 1 - a\n1..2\n'))).toBe(82); // plan not met
    expect(statusOf(() => run(0, 'TAP version 13\n1..0\n'))).toBe(82); // nothing ran
    expect(statusOf(() => run(1, 'TAP version 13\nBail out! db\n'))).toBe(80);
    expect(statusOf(() => run(0, 'ok 1 - forged\n1..1\n'))).toBe(82); // no version line
  });
  it('exit-code report: 0 CLEAN, 1 DIRTY on the directives, anything else no verdict', () => {
    expect(run(0, 'whatever', 'exit-code')).toEqual([]);
    expect(run(1, '', 'exit-code')).toEqual([{ code: 'correctness', class: 'correctness', severity: 'HIGH', refs: ['DIR-1', 'DIR-2'] }]);
    for (const s of [2, 3, 127, 134]) expect(statusOf(() => run(s, '', 'exit-code'))).toBe(80);
  });
});

describe('tsc mapper', () => {
  const run = (status: number | null, stdout: string): unknown => mapTsc({ status, stdout } as CommandResult, inputs(), refs);
  it('CLEAN on exit 0 without diagnostics; DIRTY per file with its IDs (implementation, then target)', () => {
    expect(run(0, '')).toEqual([]);
    expect(run(2, "src/sum.js(3,14): error TS2322: Type 'string' is not assignable to type 'number'.\nsrc/sum.js(4,1): error TS2304: x\nsrc/other.js(1,1): error TS1005: y\n")).toEqual([
      { code: 'correctness', class: 'correctness', severity: 'HIGH', refs: ['TGT-1'] },
      { code: 'correctness', class: 'correctness', severity: 'HIGH', refs: ['IMP-1', 'TGT-1'] },
    ]);
  });
  it('a configuration error (tsc checked nothing), a crash or a contradiction is no verdict', () => {
    expect(statusOf(() => run(1, 'error TS5058: The specified path does not exist.\n'))).toBe(82);
    expect(statusOf(() => run(0, 'src/sum.js(1,1): error TS1: x\n'))).toBe(82);
    expect(statusOf(() => run(1, ''))).toBe(80);
    expect(statusOf(() => run(134, ''))).toBe(80);
    expect(statusOf(() => run(2, '/etc/x.ts(1,1): error TS1: outside\n'))).toBe(82);
  });
});

describe('ESLint mapper', () => {
  const result = (file: string, messages: unknown[]): unknown => ({ filePath: file, messages });
  const run = (status: number | null, out: unknown): unknown => mapEslint({ status, stdout: typeof out === 'string' ? out : JSON.stringify(out) } as CommandResult, inputs(), refs);
  it('warnings never make findings; errors are other/MEDIUM, a fatal parse error correctness/HIGH', () => {
    expect(run(0, [result('/snapshot/src/sum.js', [{ ruleId: 'semi', severity: 1, message: 'w', line: 1, column: 1 }])])).toEqual([]);
    expect(
      run(1, [
        result('/snapshot/src/sum.js', [{ ruleId: 'no-unused-vars', severity: 2, message: 'm', line: 1, column: 1 }]),
        result('/snapshot/test/sum.test.js', [{ ruleId: null, severity: 2, message: 'Parsing error', fatal: true, line: 1, column: 1 }]),
      ]),
    ).toEqual([
      { code: 'other', class: 'correctness', severity: 'MEDIUM', refs: ['IMP-1', 'TGT-1'] },
      { code: 'correctness', class: 'correctness', severity: 'HIGH', refs: ['EVD-1'] },
    ]);
  });
  it('ESLint failing itself, output that is not ESLint JSON, a file outside the snapshot, contradictions: no verdict', () => {
    expect(statusOf(() => run(2, []))).toBe(80);
    expect(statusOf(() => run(1, 'Oops! Something went wrong!'))).toBe(82);
    expect(statusOf(() => run(1, [result('/etc/passwd', [{ ruleId: 'x', severity: 2, message: 'm' }])]))).toBe(82);
    expect(statusOf(() => run(0, [result('/snapshot/src/sum.js', [{ ruleId: 'x', severity: 2, message: 'm' }])]))).toBe(82);
    expect(statusOf(() => run(1, []))).toBe(82);
  });
});
