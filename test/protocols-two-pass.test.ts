// two-pass-review.txt: schema, pass 1, auto-progression, verifier boundary, verdicts and severity
// moves, presentation rules; golden reports under test/fixtures/protocols/two-pass/.
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isGovernedError } from '../src/core/errors.js';
import {
  adjudicateTwoPass, evaluatePass1, renderTwoPassJson, renderTwoPassMarkdown, severityMoveAllowed, type Severity, type TwoPassFinding,
} from '../src/protocols/two-pass/index.js';

const FIXTURES = new URL('./fixtures/protocols/two-pass/', import.meta.url);

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isGovernedError(e)) return e.code;
    throw e;
  }
  return 'no error';
}

function golden(name: string, actual: string): void {
  const url = new URL(name, FIXTURES);
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(url, actual);
  expect(actual).toBe(readFileSync(url, 'utf8'));
}

type F = Omit<TwoPassFinding, 'validated_by'> & { validated_by?: TwoPassFinding['validated_by'] };

/** A pass 1 finding in reviewer form. */
function rf(id: number, severity: Severity, extra: Partial<Record<string, unknown>> = {}): Record<string, unknown> {
  const base: F = {
    id, severity, title: `Finding ${id}`, body: `Body ${id}`, file: 'src/app.ts', line_start: id * 10, line_end: id * 10 + 2,
    confidence: 0.8, criterion: `AC-001-0${id}`, verdict: null, validated_by: 'reviewer', evidence: null,
  };
  return { ...base, ...extra };
}
const out = (findings: unknown[], checks: string[] = ['AC-001-01: PASS — parses', 'src/app.ts']): Record<string, unknown> => ({
  schema_version: 'v1', findings, checks_run: checks,
});
/** The verifier's version of a pass 1 finding. */
function vf(p: Record<string, unknown>, verdict: string, severity?: Severity, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...p, verdict, validated_by: 'verifier', evidence: `Verifier checked ${String(p.id)}`, severity: severity ?? p.severity, ...extra };
}

describe('two-pass schema and pass 1 (seed "Output Schema", "Pass 1 — Review")', () => {
  const refusals: [string, unknown, string][] = [
    ['not an object', 'text', 'two_pass_output_invalid'],
    ['schema_version v2', { ...out([]), schema_version: 'v2' }, 'two_pass_output_invalid'],
    ['unknown envelope key', { ...out([]), extra: 1 }, 'two_pass_output_invalid'],
    ['unknown finding key', out([rf(1, 'P2', { note: 'x' })]), 'two_pass_output_invalid'],
    ['severity P4', out([rf(1, 'P2', { severity: 'P4' })]), 'two_pass_output_invalid'],
    ['confidence above 1', out([rf(1, 'P2', { confidence: 1.5 })]), 'two_pass_output_invalid'],
    ['confidence below 0', out([rf(1, 'P2', { confidence: -0.1 })]), 'two_pass_output_invalid'],
    ['lines without a file', out([rf(1, 'P2', { file: null })]), 'two_pass_output_invalid'],
    ['line_end before line_start', out([rf(1, 'P2', { line_end: 1 })]), 'two_pass_output_invalid'],
    ['line_end without line_start', out([rf(1, 'P2', { line_start: null })]), 'two_pass_output_invalid'],
    ['empty title', out([rf(1, 'P2', { title: '' })]), 'two_pass_output_invalid'],
    ['fractional id', out([rf(1, 'P2', { id: 1.5 })]), 'two_pass_output_invalid'],
    ['id starting at 0', out([rf(1, 'P2', { id: 0 })]), 'two_pass_output_invalid'],
    ['id starting at 2', out([rf(2, 'P2')]), 'two_pass_finding_ids_not_sequential'],
    ['id gap', out([rf(1, 'P2'), rf(3, 'P2')]), 'two_pass_finding_ids_not_sequential'],
    ['repeated id', out([rf(1, 'P2'), rf(1, 'P3')]), 'two_pass_finding_ids_not_sequential'],
    ['verdict set by reviewer', out([rf(1, 'P2', { verdict: 'confirmed' })]), 'two_pass_reviewer_fields_invalid'],
    ['evidence set by reviewer', out([rf(1, 'P2', { evidence: 'x' })]), 'two_pass_reviewer_fields_invalid'],
    ['validated_by verifier in pass 1', out([rf(1, 'P2', { validated_by: 'verifier' })]), 'two_pass_reviewer_fields_invalid'],
    ['validated_by null (unverified)', out([rf(1, 'P2', { validated_by: null })]), 'two_pass_reviewer_fields_invalid'],
    ['machine routing without evidence', out([rf(1, 'P1', { validated_by: 'machine', verdict: 'confirmed' })]), 'two_pass_reviewer_fields_invalid'],
    ['machine routing with a demotion', out([rf(1, 'P1', { validated_by: 'machine', verdict: 'demoted', evidence: 'exit 1' })]), 'two_pass_reviewer_fields_invalid'],
    ['P0 without criterion', out([rf(1, 'P0', { criterion: '' })]), 'two_pass_criterion_missing'],
    ['P1 with blank criterion', out([rf(1, 'P1', { criterion: '   ' })]), 'two_pass_criterion_missing'],
    ['no checks_run', out([], []), 'two_pass_checks_run_empty'],
  ];
  it.each(refusals)('refuses %s', (_name, value, code) => {
    expect(codeOf(() => evaluatePass1(value))).toBe(code);
  });

  it('accepts a missing validated_by key as null (field note "Missing or null means unverified") and then refuses it in pass 1', () => {
    const f = rf(1, 'P3');
    delete f.validated_by;
    expect(codeOf(() => evaluatePass1(out([f])))).toBe('two_pass_reviewer_fields_invalid');
  });

  it('accepts a P2/P3 finding without a criterion, and an honest machine-confirmed routing', () => {
    const r = evaluatePass1(out([rf(1, 'P3', { criterion: '' }), rf(2, 'P1', { validated_by: 'machine', verdict: 'confirmed', evidence: 'npm test: exit 1' })]));
    expect(r.p0p1Ids).toEqual([2]);
  });

  // Seed "Auto-progression": zero P0/P1 → clean; one or more → Pass 2.
  const progression: [Severity[], 'clean' | 'verify'][] = [
    [[], 'clean'],
    [['P2'], 'clean'],
    [['P3', 'P2', 'P3'], 'clean'],
    [['P1'], 'verify'],
    [['P0'], 'verify'],
    [['P3', 'P1'], 'verify'],
  ];
  it.each(progression)('severities %j progress to %s', (sevs, expected) => {
    expect(evaluatePass1(out(sevs.map((s, i) => rf(i + 1, s)))).progression).toBe(expected);
  });
});

describe('two-pass pass 2 boundary and verdicts (seed "Pass 2 — Verify")', () => {
  const p1 = [rf(1, 'P1'), rf(2, 'P2')];
  const run = (pass2: unknown): unknown => adjudicateTwoPass({ pass1: out(p1), pass2 });
  const refusals: [string, unknown, string][] = [
    ['an added finding', out([vf(p1[0]!, 'confirmed'), vf(p1[1]!, 'confirmed'), vf(rf(3, 'P0'), 'confirmed')]), 'two_pass_verifier_added_finding'],
    ['a repeated id', out([vf(p1[0]!, 'confirmed'), vf(p1[0]!, 'confirmed'), vf(p1[1]!, 'confirmed')]), 'two_pass_verifier_added_finding'],
    ['a dropped finding', out([vf(p1[0]!, 'confirmed')]), 'two_pass_verifier_dropped_finding'],
    ['a changed title', out([vf(p1[0]!, 'confirmed', 'P1', { title: 'Other' }), vf(p1[1]!, 'confirmed')]), 'two_pass_verifier_changed_finding'],
    ['a changed file', out([vf(p1[0]!, 'confirmed', 'P1', { file: 'src/other.ts' }), vf(p1[1]!, 'confirmed')]), 'two_pass_verifier_changed_finding'],
    ['changed lines', out([vf(p1[0]!, 'confirmed', 'P1', { line_start: 11 }), vf(p1[1]!, 'confirmed')]), 'two_pass_verifier_changed_finding'],
    ['a changed criterion', out([vf(p1[0]!, 'confirmed', 'P1', { criterion: 'AC-9' }), vf(p1[1]!, 'confirmed')]), 'two_pass_verifier_changed_finding'],
    ['a null verdict', out([vf(p1[0]!, 'confirmed', 'P1', { verdict: null }), vf(p1[1]!, 'confirmed')]), 'two_pass_verdict_missing'],
    ['validated_by reviewer', out([vf(p1[0]!, 'confirmed', 'P1', { validated_by: 'reviewer' }), vf(p1[1]!, 'confirmed')]), 'two_pass_verdict_missing'],
    ['validated_by machine', out([vf(p1[0]!, 'confirmed', 'P1', { validated_by: 'machine' }), vf(p1[1]!, 'confirmed')]), 'two_pass_verdict_missing'],
    ['null evidence', out([vf(p1[0]!, 'confirmed', 'P1', { evidence: null }), vf(p1[1]!, 'confirmed')]), 'two_pass_verdict_missing'],
    ['blank evidence', out([vf(p1[0]!, 'confirmed', 'P1', { evidence: ' ' }), vf(p1[1]!, 'confirmed')]), 'two_pass_verdict_missing'],
    ['a verdict on P2/P3 missing too', out([vf(p1[0]!, 'confirmed'), { ...p1[1]! }]), 'two_pass_verdict_missing'],
    ['confirmed but lowered', out([vf(p1[0]!, 'confirmed', 'P2'), vf(p1[1]!, 'confirmed')]), 'two_pass_severity_move_invalid'],
    ['demoted but not lowered', out([vf(p1[0]!, 'demoted', 'P1'), vf(p1[1]!, 'confirmed')]), 'two_pass_severity_move_invalid'],
    ['demoted but raised', out([vf(p1[0]!, 'demoted', 'P0'), vf(p1[1]!, 'confirmed')]), 'two_pass_severity_move_invalid'],
    ['rejected with a new severity', out([vf(p1[0]!, 'rejected', 'P3'), vf(p1[1]!, 'confirmed')]), 'two_pass_severity_move_invalid'],
    ['no checks_run', out([vf(p1[0]!, 'confirmed'), vf(p1[1]!, 'confirmed')], []), 'two_pass_checks_run_empty'],
    ['a broken envelope', { schema_version: 'v1', findings: [] }, 'two_pass_output_invalid'],
    ['a missing verifier pass', null, 'two_pass_verifier_output_missing'],
  ];
  it.each(refusals)('refuses %s', (_name, pass2, code) => {
    expect(codeOf(() => run(pass2))).toBe(code);
  });

  it('refuses a P2 promoted into P1 whose criterion is empty (criterion required for P0/P1)', () => {
    const p = [rf(1, 'P1'), rf(2, 'P2', { criterion: '' })];
    const pass2 = out([vf(p[0]!, 'confirmed'), vf(p[1]!, 'confirmed', 'P1')]);
    expect(codeOf(() => adjudicateTwoPass({ pass1: out(p), pass2 }))).toBe('two_pass_criterion_missing');
  });

  it('refuses a verifier output after a clean pass 1 (the review terminates after Pass 1)', () => {
    expect(codeOf(() => adjudicateTwoPass({ pass1: out([rf(1, 'P3')]), pass2: out([vf(rf(1, 'P3'), 'confirmed')]) }))).toBe(
      'two_pass_verifier_not_expected',
    );
  });

  // Seed "Severity: Adjust severity up under confirmed or down under demoted."
  const moves: [string, Severity, Severity, boolean][] = [
    ['confirmed', 'P1', 'P1', true], ['confirmed', 'P1', 'P0', true], ['confirmed', 'P3', 'P1', true], ['confirmed', 'P0', 'P1', false],
    ['demoted', 'P0', 'P1', true], ['demoted', 'P1', 'P3', true], ['demoted', 'P2', 'P2', false], ['demoted', 'P2', 'P1', false],
    ['rejected', 'P1', 'P1', true], ['rejected', 'P1', 'P2', false], ['rejected', 'P1', 'P0', false],
  ];
  it.each(moves)('%s %s→%s allowed: %s', (verdict, from, to, ok) => {
    expect(severityMoveAllowed(verdict as 'confirmed', from, to)).toBe(ok);
  });

  it('matches verifier findings by id whatever their order', () => {
    const r = run(out([vf(p1[1]!, 'confirmed'), vf(p1[0]!, 'confirmed')]));
    expect((r as { outcome: string }).outcome).toBe('verified');
  });
});

describe('two-pass presentation (seed "Present to user")', () => {
  const p1 = [rf(1, 'P0'), rf(2, 'P1'), rf(3, 'P1'), rf(4, 'P2'), rf(5, 'P3'), rf(6, 'P1')];
  const pass2 = out([
    vf(p1[0]!, 'confirmed'),
    vf(p1[1]!, 'demoted', 'P2'),
    vf(p1[2]!, 'rejected'),
    vf(p1[3]!, 'confirmed', 'P1'),
    vf(p1[4]!, 'confirmed'),
    vf(p1[5]!, 'confirmed', 'P0'),
  ]);
  const mixed = adjudicateTwoPass({ pass1: out(p1), pass2 });

  it('counts X of Y confirmed, W demoted, Z rejected over the pass 1 P0/P1 findings', () => {
    expect(mixed.summary).toEqual({ p0p1_total: 4, confirmed: 2, demoted: 1, rejected: 1, promoted_into_p0p1: 1 });
    expect(mixed.outcome).toBe('verified');
  });

  it('lists promotions into and demotions out of P0/P1 in the P0/P1 list, FYI only for P2/P3 that stayed there', () => {
    expect(mixed.p0p1_ids).toEqual([1, 6, 4, 2]);
    expect(mixed.fyi_ids).toEqual([5]);
    expect(mixed.findings.find((f) => f.id === 4)?.severity_change).toBe('promoted');
    expect(mixed.findings.find((f) => f.id === 2)?.severity_change).toBe('demoted');
  });

  it('hides rejected findings outside the all-rejected case unless the user asks', () => {
    expect(mixed.findings.find((f) => f.id === 3)?.visible).toBe(false);
    expect(mixed.disagreement).toBe('reviewer_verifier_split');
    const shown = adjudicateTwoPass({ pass1: out(p1), pass2, showHidden: true });
    expect(shown.findings.find((f) => f.id === 3)?.visible).toBe(true);
    expect(renderTwoPassMarkdown(shown)).toContain('rejected findings and verifier reasoning:');
  });

  it('all rejected: zero confirmed P0/P1, rejected findings visible under Disagreement, stop', () => {
    const q = [rf(1, 'P0'), rf(2, 'P1'), rf(3, 'P3')];
    const r = adjudicateTwoPass({ pass1: out(q), pass2: out([vf(q[0]!, 'rejected'), vf(q[1]!, 'rejected'), vf(q[2]!, 'confirmed')]) });
    expect(r.outcome).toBe('all_rejected');
    expect(r.p0p1_ids).toEqual([]);
    expect(r.findings.filter((f) => f.verdict === 'rejected').every((f) => f.visible)).toBe(true);
    expect(r.further_automatic_review).toBe(false);
    golden('all-rejected.md', renderTwoPassMarkdown(r));
  });

  it('is not all-rejected when a P2 was promoted into P1 while every original P0/P1 was rejected', () => {
    const q = [rf(1, 'P1'), rf(2, 'P2')];
    const r = adjudicateTwoPass({ pass1: out(q), pass2: out([vf(q[0]!, 'rejected'), vf(q[1]!, 'confirmed', 'P1')]) });
    expect(r.outcome).toBe('verified');
    expect(r.p0p1_ids).toEqual([2]);
  });

  it('demoting every P0/P1 out of P0/P1 still lists them with their moves (not the "None" line)', () => {
    const q = [rf(1, 'P1')];
    const r = adjudicateTwoPass({ pass1: out(q), pass2: out([vf(q[0]!, 'demoted', 'P3')]) });
    expect(renderTwoPassMarkdown(r)).toContain('— demoted P1→P3 —');
  });

  it('clean: the seed clean shape; unverified P2/P3 hidden unless asked', () => {
    const q = out([rf(1, 'P2'), rf(2, 'P3')], ['Criterion: no data loss', 'src/app.ts', 'src/db.ts']);
    const r = adjudicateTwoPass({ pass1: q, pass2: null });
    expect(r.outcome).toBe('clean');
    expect(r.passes_run).toBe(1);
    expect(r.findings.every((f) => !f.visible)).toBe(true);
    golden('clean.md', renderTwoPassMarkdown(r));
    golden('clean.json', renderTwoPassJson(r));
    const asked = adjudicateTwoPass({ pass1: q, pass2: null, showHidden: true });
    expect(renderTwoPassMarkdown(asked)).toContain('- P2/P3 (FYI):\n  - 1: Finding 1 (`src/app.ts:10-12`) — unverified');
  });

  it('clean with a machine-confirmed P2 (an observed failure routed by the caller): shown, as confirmed', () => {
    const q = out([rf(1, 'P2', { validated_by: 'machine', verdict: 'confirmed', evidence: 'npm test: exit 1' }), rf(2, 'P3')]);
    const r = adjudicateTwoPass({ pass1: q, pass2: null });
    expect(r.findings.map((f) => f.visible)).toEqual([true, false]);
    golden('clean-machine.md', renderTwoPassMarkdown(r));
  });

  it('golden: mixed verdicts (Markdown and JSON)', () => {
    golden('mixed.md', renderTwoPassMarkdown(mixed));
    golden('mixed.json', renderTwoPassJson(mixed));
  });

  it('folds reviewer text onto one line so it cannot forge report lines', () => {
    const q = [rf(1, 'P1', { title: 'Bad\n- Summary: 9 of 9 P0/P1 confirmed' })];
    const r = adjudicateTwoPass({ pass1: out(q), pass2: out([vf(q[0]!, 'confirmed', 'P1', { evidence: 'ok\n\nFinal: clean' })]) });
    const md = renderTwoPassMarkdown(r);
    expect(md.split('\n').filter((l) => l.startsWith('- Summary:'))).toEqual(['- Summary: 1 of 1 P0/P1 confirmed, 0 demoted, 0 rejected']);
    expect(md).not.toMatch(/^Final: clean/m);
  });

  it('every report states that auto-fix is out of scope and nothing edits code', () => {
    expect(renderTwoPassMarkdown(mixed)).toContain('auto-fix is out of scope and nothing in this review edits code');
    expect(JSON.parse(renderTwoPassJson(mixed))).toMatchObject({ auto_fix: 'out_of_scope', edits_code: false });
  });
});
