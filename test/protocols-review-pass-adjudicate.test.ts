// Adjudication rules (docs/review-pass-protocol.md#finding-matching matching/classification, docs/review-pass-protocol.md#graceful-degradation degradation, docs/review-pass-protocol.md#health-score health, docs/review-pass-protocol.md#known-issues known issues).
import { describe, expect, it } from 'vitest';
import {
  classifyGroup,
  confirmThreshold,
  decideDegradation,
  groupFindings,
  healthScore,
  invalidateKnownIssues,
  isSuppressed,
  makeFinding,
  makeKnownIssue,
  matchRule,
  suppressRange,
  type AdjudicableFinding,
  type FindingClass,
  type ParsedReviewerOutput,
  type Severity,
} from '../src/protocols/review-pass/index.js';

function f(over: Partial<AdjudicableFinding> & { reviewer: string }): AdjudicableFinding {
  return makeFinding({
    file: 'src/a.ts',
    line: 10,
    symbol: null,
    severity: 'HIGH',
    finding_class: 'correctness',
    req_id: null,
    description: 'Missing null check on parsed input',
    ...over,
  });
}

describe('matching rules (docs/review-pass-protocol.md#matching-rules, priority order)', () => {
  it.each([
    ['same symbol, far lines', { symbol: 'parse', line: 10 }, { symbol: 'parse', line: 500, description: 'different words entirely here' }, 'symbol'],
    ['line distance 19', { line: 10 }, { line: 29, description: 'unrelated wording about caching layer' }, 'line'],
    ['line distance 20 (not < 20), different words', { line: 10 }, { line: 30, description: 'unrelated wording about caching layer' }, null],
    ['line distance 20, Jaccard > 0.5', { line: 10 }, { line: 30, description: 'missing null check on the parsed input' }, 'keywords'],
    ['Jaccard exactly 0.5 is not > 0.5', { line: null, description: 'alpha beta gamma' }, { line: null, description: 'alpha beta delta' }, null],
    ['Jaccard 0.75', { line: null, description: 'alpha beta gamma' }, { line: null, description: 'alpha beta gamma delta' }, 'keywords'],
    ['file-level findings have no line distance', { line: null, description: 'aaa bbb' }, { line: null, description: 'ccc ddd' }, null],
    ['different files never match', { file: 'src/b.ts' }, {}, null],
  ] as const)('%s', (_name, a, b, rule) => {
    expect(matchRule(f({ reviewer: 'r1', ...a }), f({ reviewer: 'r2', ...b }))).toBe(rule);
  });

  it('same reviewer findings are not compared with each other (docs/review-pass-protocol.md#grouping)', () => {
    expect(matchRule(f({ reviewer: 'r1' }), f({ reviewer: 'r1' }))).toBeNull();
  });

  it('governed match keys: equal key matches, heuristics never apply', () => {
    const g = (reviewer: string, key: string) =>
      makeFinding({ file: 'test_gap', line: null, symbol: 'EVD-1', severity: 'LOW', finding_class: 'correctness', req_id: null, description: 'test_gap', reviewer, match_key: key });
    expect(matchRule(g('a', 'test_gap|EVD-1'), g('b', 'test_gap|EVD-1'))).toBe('match_key');
    // same symbol text but different key → no match
    expect(matchRule(g('a', 'test_gap|EVD-1'), g('b', 'test_gap|EVD-1,EVD-2'))).toBeNull();
  });

  it('grouping is transitive and independent of answer order; supporters are unique reviewers', () => {
    const fs = [
      f({ reviewer: 'r1', line: 10 }),
      f({ reviewer: 'r2', line: 25, description: 'other words entirely present' }),
      f({ reviewer: 'r3', line: 40, description: 'some more unrelated vocabulary' }),
      f({ reviewer: 'r1', line: 200, description: 'lonely remark about logging' }),
    ];
    const g1 = groupFindings(fs);
    const g2 = groupFindings([...fs].reverse());
    expect(g1.map((g) => g.id)).toEqual(g2.map((g) => g.id));
    expect(g1).toHaveLength(2);
    expect(g1[0]?.supporters).toEqual(['r1', 'r2', 'r3']);
    expect(g1[1]?.supporters).toEqual(['r1']);
  });

  it('a group takes its most severe member and is a veto when any member is', () => {
    const [g] = groupFindings([
      f({ reviewer: 'r1', severity: 'LOW' }),
      f({ reviewer: 'r2', severity: 'CRITICAL', finding_class: 'scope' }),
    ]);
    expect(g?.severity).toBe('CRITICAL');
    expect(g?.veto).toBe(true);
    expect(g?.finding_class).toBe('scope');
  });
});

describe('classification thresholds (docs/review-pass-protocol.md#classification) for R = 1, 2, 3, 4', () => {
  const reviewers = ['r1', 'r2', 'r3', 'r4'];
  function classify(severity: Severity, cls: FindingClass, supporters: number, r: number, opts: { autoDismiss?: boolean; low?: string[]; classMissing?: boolean } = {}) {
    const members = reviewers.slice(0, supporters).map((rv) => f({ reviewer: rv, severity, finding_class: cls, class_missing: opts.classMissing ?? false }));
    const [group] = groupFindings(members);
    if (!group) throw new Error('no group');
    return classifyGroup(group, {
      reviewers_available: r,
      available: reviewers.slice(0, r),
      auto_dismiss_enabled: opts.autoDismiss ?? true,
      low_health: new Set(opts.low ?? []),
    });
  }

  it.each([
    // severity, class, supporters, R, expected
    ['CRITICAL', 'correctness', 1, 1, 'CONFIRMED'], // supporters == R
    ['CRITICAL', 'correctness', 1, 2, 'CONTESTED'],
    ['CRITICAL', 'correctness', 2, 2, 'CONFIRMED'],
    ['CRITICAL', 'correctness', 1, 3, 'AUTO_DISMISSED'],
    ['CRITICAL', 'correctness', 2, 3, 'CONTESTED'],
    ['CRITICAL', 'correctness', 3, 3, 'CONFIRMED'],
    ['CRITICAL', 'correctness', 1, 4, 'AUTO_DISMISSED'],
    ['CRITICAL', 'correctness', 3, 4, 'CONTESTED'],
    ['CRITICAL', 'correctness', 4, 4, 'CONFIRMED'],
    ['HIGH', 'correctness', 1, 1, 'CONTESTED'], // max(2, ceil(1/2)) = 2 unreachable
    ['HIGH', 'correctness', 1, 2, 'CONTESTED'],
    ['HIGH', 'correctness', 2, 2, 'CONFIRMED'],
    ['MEDIUM', 'correctness', 1, 3, 'AUTO_DISMISSED'],
    ['MEDIUM', 'correctness', 2, 3, 'CONFIRMED'],
    ['LOW', 'scope', 1, 4, 'AUTO_DISMISSED'],
    ['LOW', 'correctness', 2, 4, 'CONFIRMED'],
    ['INFO', 'correctness', 3, 4, 'CONFIRMED'],
    // VETO: solo CRITICAL preservation/scope/authority/release, any R, never auto-dismissed
    ['CRITICAL', 'preservation', 1, 1, 'VETO'],
    ['CRITICAL', 'scope', 1, 2, 'VETO'],
    ['CRITICAL', 'authority', 1, 3, 'VETO'],
    ['CRITICAL', 'release', 1, 4, 'VETO'],
    ['CRITICAL', 'release', 4, 4, 'VETO'],
    // CRITICAL non-correctness solo at R >= 3 is never auto-dismissed: it is a veto
  ] as const)('%s %s supporters=%d R=%d → %s', (sev, cls, s, r, expected) => {
    expect(classify(sev, cls, s, r)).toBe(expected);
  });

  it.each([
    [1, 2], [2, 2], [3, 2], [4, 2], [5, 3], [6, 3], [7, 4],
  ])('confirm threshold R=%d → %d', (r, t) => {
    expect(confirmThreshold(r)).toBe(t);
  });

  it('degraded round (auto-dismiss disabled, docs/review-pass-protocol.md#graceful-degradation) turns AUTO_DISMISSED into CONTESTED', () => {
    expect(classify('MEDIUM', 'correctness', 1, 3, { autoDismiss: false })).toBe('CONTESTED');
    expect(classify('CRITICAL', 'correctness', 1, 3, { autoDismiss: false })).toBe('CONTESTED');
  });

  it('no auto-dismiss based solely on low-health silence (docs/review-pass-protocol.md#health-score)', () => {
    expect(classify('MEDIUM', 'correctness', 1, 3, { low: ['r2', 'r3'] })).toBe('CONTESTED');
    expect(classify('MEDIUM', 'correctness', 1, 3, { low: ['r2'] })).toBe('AUTO_DISMISSED');
  });

  it('a downgraded finding (class tag missing) is never auto-dismissed', () => {
    expect(classify('CRITICAL', 'correctness', 1, 3, { classMissing: true })).toBe('CONTESTED');
    expect(classify('LOW', 'correctness', 1, 4, { classMissing: true })).toBe('CONTESTED');
  });
});

describe('health score (docs/review-pass-protocol.md#health-score)', () => {
  const base: ParsedReviewerOutput = {
    reviewer: 'r', strategy: 'text_fallback', structured: true, files_read: ['a.ts'], read_evidence: true,
    files_read_rejected: 0, findings: [], rejected_findings: 0, downgraded_findings: 0, req_coverage: null, verdict: 'CLEAN',
  };
  const located = f({ reviewer: 'r', line: 3 });
  const fileLevel = f({ reviewer: 'r', line: null });
  it.each([
    ['clean, files read, no REQ', {}, [], 70, false],
    ['nothing read, no verdict', { read_evidence: false, verdict: null }, [], 30, true],
    ['all signals', { findings: [located], verdict: 'FOUND_ISSUES' }, [], 100, false],
    ['specificity at exactly 0.5 is 0', { findings: [located, fileLevel], verdict: 'FOUND_ISSUES' }, [], 70, false],
    ['verdict mismatch (findings but CLEAN)', { findings: [located], verdict: 'CLEAN' }, [], 80, false],
    ['VETO verdict counts as found issues', { findings: [located], verdict: 'VETO' }, [], 100, false],
    ['REQ applicable, findings without REQ-IDs', { findings: [located], verdict: 'FOUND_ISSUES' }, ['REQ-001'], 70, false],
    ['REQ applicable, findings with REQ-IDs', { findings: [f({ reviewer: 'r', req_id: 'REQ-001' })], verdict: 'FOUND_ISSUES' }, ['REQ-001'], 100, false],
    ['REQ applicable, zero findings, no coverage section', {}, ['REQ-001'], 40, false],
    ['REQ applicable, zero findings, file-level only, no verdict', { findings: [fileLevel], verdict: null, read_evidence: false }, ['REQ-001'], 0, true],
    ['no structured data', { structured: false }, [], 0, true],
  ] as const)('%s → %d', (_n, over, reqs, health, low) => {
    const h = healthScore({ ...base, ...over } as ParsedReviewerOutput, reqs);
    expect(h.health).toBe(health);
    expect(h.low).toBe(low);
  });
});

describe('known issues (docs/review-pass-protocol.md#known-issues)', () => {
  const lines = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`);
  const text = lines.join('\n');
  const edit = (n: number) => lines.map((l, i) => (i + 1 === n ? `${l} edited` : l)).join('\n');
  const finding = f({ reviewer: 'r1', line: 30 });

  it.each([
    [30, [20, 40]],
    [5, [1, 15]],
    [1, [1, 11]],
  ])('suppressRange(%d) = %j', (line, range) => {
    expect(suppressRange(line)).toEqual(range);
  });

  it.each([
    ['edit at line 20 (inside ±10)', 20, 'hash_changed'],
    ['edit at line 30', 30, 'hash_changed'],
    ['edit at line 40 (inside ±10)', 40, 'hash_changed'],
    ['edit at line 19 (outside)', 19, null],
    ['edit at line 41 (outside)', 41, null],
  ] as const)('%s', (_n, editLine, reason) => {
    const k = makeKnownIssue(finding, text, 1);
    if (!k) throw new Error('not hashed');
    const inv = invalidateKnownIssues([k], { 'src/a.ts': edit(editLine) });
    if (reason === null) expect(inv.kept).toHaveLength(1);
    else expect(inv.removed.map((r) => r.reason)).toEqual([reason]);
  });

  it('deleted file and invalid range remove the known issue', () => {
    const k = makeKnownIssue(finding, text, 1);
    if (!k) throw new Error('not hashed');
    expect(invalidateKnownIssues([k], { 'src/a.ts': null }).removed[0]?.reason).toBe('file_missing');
    expect(invalidateKnownIssues([k], {}).removed[0]?.reason).toBe('file_missing');
    expect(invalidateKnownIssues([k], { 'src/a.ts': 'short\nfile' }).removed[0]?.reason).toBe('range_invalid');
  });

  it('a file-level finding hashes the entire file', () => {
    const k = makeKnownIssue(f({ reviewer: 'r1', line: null }), text, 1);
    expect(k?.range).toBeNull();
    if (!k) throw new Error('not hashed');
    expect(invalidateKnownIssues([k], { 'src/a.ts': text }).kept).toHaveLength(1);
    expect(invalidateKnownIssues([k], { 'src/a.ts': edit(60) }).removed).toHaveLength(1);
  });

  it('suppresses re-reports, never vetoes and never more severe findings; governed findings never become known issues', () => {
    const k = makeKnownIssue(finding, text, 1);
    if (!k) throw new Error('not hashed');
    expect(isSuppressed(f({ reviewer: 'r1', line: 31 }), [k])).toBe(true); // same reviewer re-report
    expect(isSuppressed(f({ reviewer: 'r2', line: 35, severity: 'LOW' }), [k])).toBe(true);
    expect(isSuppressed(f({ reviewer: 'r2', line: 35, severity: 'CRITICAL' }), [k])).toBe(false);
    expect(isSuppressed(f({ reviewer: 'r2', line: 35, severity: 'CRITICAL', finding_class: 'scope' }), [k])).toBe(false);
    expect(isSuppressed(f({ reviewer: 'r2', line: 55, description: 'something else entirely' }), [k])).toBe(false);
    const opaque = makeFinding({ file: 'test_gap', line: null, symbol: 'E-1', severity: 'LOW', finding_class: 'correctness', req_id: null, description: 'test_gap', reviewer: 'x', match_key: 'test_gap|E-1' });
    expect(makeKnownIssue(opaque, 'anything', 1)).toBeNull();
  });
});

describe('graceful degradation (docs/review-pass-protocol.md#graceful-degradation, docs/review-pass-protocol.md#separated-roles)', () => {
  const run = (slot: string, status: 'ok' | 'timeout' | 'failed' = 'ok', usable = true, id = `x-${slot}`) => ({ slot, execution_id: id, status, usable });
  const dev = ['a', 'b', 'c'];

  it.each([
    ['all 3 answer', [run('a'), run('b'), run('c')], 3, true, 2, null],
    ['3 → 2 (timeout): auto-dismiss disabled', [run('a'), run('b', 'timeout'), run('c')], 2, false, 2, null],
    ['3 → 1: convergence raised to 2', [run('a'), run('b', 'failed'), run('c', 'timeout')], 1, false, 2, null],
    ['3 → 0: NOT_CLEAN', [run('a', 'timeout'), run('b', 'failed'), run('c', 'ok', false)], 0, false, 2, 'review_pass_no_reviewers'],
    ['unparseable output counts as unavailable', [run('a'), run('b'), run('c', 'ok', false)], 2, false, 2, null],
    ['reused execution id', [run('a', 'ok', true, 'same'), run('b', 'ok', true, 'same'), run('c')], 3, false, 2, 'review_pass_execution_reused'],
  ] as const)('%s', (_n, runs, r, autoDismiss, threshold, failure) => {
    const d = decideDegradation(false, runs, dev, [], 2);
    expect(d.r).toBe(r);
    expect(d.auto_dismiss_enabled).toBe(autoDismiss);
    expect(d.convergence_threshold).toBe(threshold);
    expect(d.failure).toBe(failure);
  });

  it('light mode single reviewer raises the threshold from 1 to 2', () => {
    expect(decideDegradation(false, [run('a'), run('b', 'timeout')], ['a', 'b'], [], 1).convergence_threshold).toBe(2);
    expect(decideDegradation(false, [run('a'), run('b')], ['a', 'b'], [], 1).convergence_threshold).toBe(1);
  });

  it('4 → 3 configured reviewers disables auto-dismiss (seed: R_configured - 1, R_configured >= 3)', () => {
    const d = decideDegradation(false, [run('a'), run('b'), run('c'), run('d', 'timeout')], ['a', 'b', 'c', 'd'], [], 2);
    expect(d.r).toBe(3);
    expect(d.auto_dismiss_enabled).toBe(false);
    expect(d.unavailable).toEqual([{ slot: 'd', reason: 'timeout' }]);
  });

  const roles = ['authority_release', 'baseline_preservation', 'implementation_test', 'source_fidelity'];
  it('roles: all four → OK; three → NOT_CLEAN (never degraded); an id seen in an earlier round → reuse', () => {
    expect(decideDegradation(true, roles.map((s) => run(s)), roles, [], 2).failure).toBeNull();
    expect(decideDegradation(true, roles.map((s, i) => run(s, i === 0 ? 'timeout' : 'ok')), roles, [], 2).failure).toBe('review_pass_role_coverage_incomplete');
    expect(decideDegradation(true, roles.map((s) => run(s)), roles, ['x-source_fidelity'], 2).failure).toBe('review_pass_execution_reused');
  });
});
