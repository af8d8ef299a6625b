// The round/loop reducer (docs/review-pass-protocol.md#rounds-and-convergence loop, docs/review-pass-protocol.md#convergence-thresholds thresholds, docs/review-pass-protocol.md#budget-guard budget, docs/review-pass-protocol.md#graceful-degradation, docs/review-pass-protocol.md#known-issues, docs/review-pass-protocol.md#req-id-coverage, docs/review-pass-protocol.md#light-mode)
// and the reports (docs/review-pass-protocol.md#final-report) with golden files.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GovernedError } from '../src/core/errors.js';
import {
  adjudicateRound,
  checkBudget,
  normalizeConfig,
  recordRound,
  renderReviewPassJson,
  renderReviewPassMarkdown,
  reviewResult,
  roundContext,
  startReview,
  type ReviewState,
} from '../src/protocols/review-pass/index.js';

const T0 = 1_700_000_000_000;
const MIN = 60_000;
const OK_EVIDENCE = { mandatory_inputs_valid: true, probes_passed: 0, probes_total: 0 };
const PREFLIGHT = { source_artifacts: true, baseline_ref: true, preservation_contract: true, incident_history: true };
const ROLES = ['source_fidelity', 'baseline_preservation', 'implementation_test', 'authority_release'];

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof GovernedError) return e.code;
    throw e;
  }
  return undefined;
}

const CLEAN_TEXT = '### Files Read\n- `src/a.ts`\n### Findings\nNONE\n### Verdict\nCLEAN\n';
function issues(...lines: string[]): string {
  return `### Files Read\n- \`src/a.ts\`\n### Findings\n${lines.map((l) => `- \`${l}\``).join('\n')}\n### Verdict\nFOUND_ISSUES\n`;
}

let execCounter = 0;
function runs(texts: Record<string, string | 'timeout' | 'failed'>) {
  return Object.entries(texts).map(([slot, t]) => {
    execCounter++;
    if (t === 'timeout' || t === 'failed') return { slot, execution_id: `exec-${execCounter}`, status: t };
    return { slot, execution_id: `exec-${execCounter}`, status: 'ok' as const, output: { strategy: 'text_fallback' as const, text: t } };
  });
}

const FILE_A = Array.from({ length: 80 }, (_, i) => `const v${i + 1} = ${i + 1};`).join('\n');

function round(state: ReviewState, texts: Record<string, string | 'timeout' | 'failed'>, now: number, extra: Partial<Parameters<typeof recordRound>[1]> = {}) {
  return recordRound(state, { runs: runs(texts), files: { 'src/a.ts': FILE_A }, evidence: OK_EVIDENCE, ...extra }, now);
}

const all = (slots: readonly string[], text: string) => Object.fromEntries(slots.map((s) => [s, text]));

describe('configuration refusals (docs/review-pass-protocol.md#light-mode light mode, docs/review-pass-protocol.md#convergence-thresholds floor)', () => {
  it.each([
    [{ stage: 'planning', mode: 'non_governed', light: true, preflight: PREFLIGHT }, 'review_pass_light_forbidden_stage'],
    [{ stage: 'integration', mode: 'non_governed', light: true, preflight: PREFLIGHT }, 'review_pass_light_forbidden_stage'],
    [{ stage: 'development', mode: 'governed', light: true, reviewers: ['coverage'] }, 'review_pass_light_forbidden_governed'],
    [{ stage: 'test', mode: 'governed', light: true, reviewers: ['coverage'] }, 'review_pass_light_forbidden_governed'],
    [{ stage: 'development', mode: 'non_governed', convergence: 1 }, 'review_pass_convergence_below_floor'],
    [{ stage: 'planning', mode: 'governed', convergence: 1 }, 'review_pass_convergence_below_floor'],
    [{ stage: 'development', mode: 'non_governed', extra: 1 }, 'review_pass_config_invalid'],
    [{ stage: 'staging', mode: 'non_governed' }, 'review_pass_config_invalid'],
    [{ stage: 'planning', mode: 'non_governed', reviewers: ['gemini', 'codex', 'opencode', 'claude'] }, 'review_pass_config_invalid'],
    [{ stage: 'development', mode: 'governed', reviewers: ['coverage'], arbiter: 'claude' }, 'review_pass_config_invalid'],
    [{ stage: 'development', mode: 'governed', reviewers: ['coverage'], req_ids: ['REQ-1'] }, 'review_pass_config_invalid'],
    [{ stage: 'development', mode: 'non_governed', reviewers: ['a', 'a'] }, 'review_pass_config_invalid'],
    [{ stage: 'development', mode: 'non_governed', reviewers: ['claude'] }, 'review_pass_config_invalid'], // only reviewer is the arbiter
  ])('%j → %s', (config, code) => {
    expect(codeOf(() => normalizeConfig(config))).toBe(code);
  });

  it('defaults (docs/review-pass-protocol.md#default-profile), light budget (docs/review-pass-protocol.md#light-mode), arbiter removed from the pool (docs/review-pass-protocol.md#the-arbiter-is-outside-the-pool), budgets only lowered (docs/review-pass-protocol.md#budget-guard)', () => {
    const dev = normalizeConfig({ stage: 'development', mode: 'non_governed' });
    expect(dev).toMatchObject({ slots: ['gemini', 'opencode', 'codex'], arbiter: 'claude', convergence: 2, max_rounds: 8, max_total_time_ms: 30 * MIN });
    expect(dev.lenses).toEqual(['correctness', 'completeness', 'consistency', 'pattern_compliance']);
    const light = normalizeConfig({ stage: 'test', mode: 'non_governed', light: true, req_ids: ['REQ-1'] });
    expect(light).toMatchObject({ convergence: 1, max_rounds: 4, lenses: ['test_validity'] });
    const pool = normalizeConfig({ stage: 'development', mode: 'non_governed', reviewers: ['claude', 'gemini'] });
    expect(pool.slots).toEqual(['gemini']);
    expect(pool.warnings).toContain('arbiter_removed_from_reviewer_pool');
    const raised = normalizeConfig({ stage: 'development', mode: 'non_governed', budget: { max_rounds: 50, max_total_time_ms: 999 * MIN } });
    expect(raised).toMatchObject({ max_rounds: 8, max_total_time_ms: 30 * MIN });
    expect(normalizeConfig({ stage: 'planning', mode: 'governed' }).slots).toEqual(ROLES);
  });
});

describe('convergence thresholds per stage (docs/review-pass-protocol.md#convergence-thresholds)', () => {
  it.each([
    ['planning', { stage: 'planning', mode: 'non_governed', preflight: PREFLIGHT }, ROLES, 2],
    ['development', { stage: 'development', mode: 'non_governed' }, ['gemini', 'opencode', 'codex'], 2],
    ['development --light', { stage: 'development', mode: 'non_governed', light: true }, ['gemini', 'opencode', 'codex'], 1],
    ['test', { stage: 'test', mode: 'non_governed' }, ['gemini', 'opencode'], 2],
    ['test --light (non-governed)', { stage: 'test', mode: 'non_governed', light: true }, ['gemini', 'opencode'], 1],
    ['integration', { stage: 'integration', mode: 'non_governed', preflight: PREFLIGHT }, ROLES, 2],
    ['development, policy streak 3', { stage: 'development', mode: 'non_governed', convergence: 3 }, ['gemini', 'opencode', 'codex'], 3],
  ] as const)('%s converges after exactly %#→ n clean rounds', (_n, config, slots, n) => {
    let s = startReview(config, T0);
    for (let i = 1; i <= n; i++) {
      expect(s.status).toBe('RUNNING');
      const t = round(s, all(slots, CLEAN_TEXT), T0 + i * MIN);
      s = t.state;
      expect(t.decision.kind).toBe(i === n ? 'CONVERGED' : 'CONTINUE');
    }
    expect(reviewResult(s).result).toBe('CLEAN');
    expect(reviewResult(s).rounds).toBe(n);
  });
});

describe('budget guard (docs/review-pass-protocol.md#budget-guard): exhaustion is NOT_CLEAN, never partial clean', () => {
  it('max rounds reached with a clean streak short of the threshold', () => {
    let s = startReview({ stage: 'development', mode: 'non_governed', convergence: 3, budget: { max_rounds: 2 } }, T0);
    s = round(s, all(['gemini', 'opencode', 'codex'], CLEAN_TEXT), T0 + MIN).state;
    const t = round(s, all(['gemini', 'opencode', 'codex'], CLEAN_TEXT), T0 + 2 * MIN);
    expect(t.decision).toEqual({ kind: 'NOT_CLEAN', reasons: ['review_pass_budget_rounds'] });
    const r = reviewResult(t.state);
    expect(r.result).toBe('NOT_CLEAN');
    expect(r.convergence.consecutive_clean).toBe(2);
  });

  it('a round finishing after the time budget cannot converge', () => {
    let s = startReview({ stage: 'development', mode: 'non_governed', light: true, budget: { max_total_time_ms: 10 * MIN } }, T0);
    const t = round(s, all(['gemini', 'opencode', 'codex'], CLEAN_TEXT), T0 + 10 * MIN + 1);
    expect(t.decision).toEqual({ kind: 'NOT_CLEAN', reasons: ['review_pass_budget_time'] });
    s = startReview({ stage: 'development', mode: 'non_governed', light: true, budget: { max_total_time_ms: 10 * MIN } }, T0);
    expect(round(s, all(['gemini', 'opencode', 'codex'], CLEAN_TEXT), T0 + 10 * MIN).decision.kind).toBe('CONVERGED');
  });

  it('checkBudget at the top of the loop', () => {
    const s = startReview({ stage: 'development', mode: 'non_governed' }, T0);
    expect(checkBudget(s, T0 + 30 * MIN).decision.kind).toBe('CONTINUE');
    const over = checkBudget(s, T0 + 30 * MIN + 1);
    expect(over.decision).toEqual({ kind: 'NOT_CLEAN', reasons: ['review_pass_budget_time'] });
    expect(codeOf(() => round(over.state, all(['gemini', 'opencode', 'codex'], CLEAN_TEXT), T0 + 31 * MIN))).toBe('review_pass_state_terminal');
  });
});

describe('round outcomes', () => {
  const dev = { stage: 'development', mode: 'non_governed' } as const;
  const S = ['gemini', 'opencode', 'codex'];

  it('a solo CRITICAL scope finding is a VETO at R=3, never auto-dismissed, and ends NOT_CLEAN', () => {
    const s = startReview(dev, T0);
    const t = round(s, { gemini: issues('src/a.ts:5 [CRITICAL] [scope] — drops directive DIR-1'), opencode: CLEAN_TEXT, codex: CLEAN_TEXT }, T0 + MIN);
    expect(t.decision).toEqual({ kind: 'NOT_CLEAN', reasons: ['review_pass_veto'] });
    const r = reviewResult(t.state);
    expect(r.vetoes).toHaveLength(1);
    expect(r.summary.auto_dismissed).toBe(0);
  });

  it('a solo CRITICAL correctness finding is auto-dismissed at R=3 and the round is CLEAN', () => {
    const s = startReview(dev, T0);
    const t = round(s, { gemini: issues('src/a.ts:5 [CRITICAL] [correctness] — wrong sum'), opencode: CLEAN_TEXT, codex: CLEAN_TEXT }, T0 + MIN);
    expect(t.decision.kind).toBe('CONTINUE');
    expect(t.state.log[0]?.counts.auto_dismissed).toBe(1);
  });

  it('CONFIRMED findings end the review NOT_CLEAN (the orchestrator never edits code)', () => {
    const s = startReview(dev, T0);
    const f = issues('src/a.ts:5 [HIGH] [correctness] — wrong sum of totals');
    const t = round(s, { gemini: f, opencode: f, codex: CLEAN_TEXT }, T0 + MIN);
    expect(t.decision).toEqual({ kind: 'NOT_CLEAN', reasons: ['review_pass_confirmed_findings'] });
  });

  it('CONTESTED dismissed by the arbiter becomes a known issue; suppressed next round; an edit inside ±10 lines revives it', () => {
    let s = startReview(dev, T0);
    const f = issues('src/a.ts:40 [HIGH] [correctness] — wrong sum of totals');
    const texts = { gemini: f, opencode: CLEAN_TEXT, codex: 'timeout' as const }; // degraded: no auto-dismiss
    const preview = adjudicateRound(roundContext(s), runs(texts), { 'src/a.ts': FILE_A });
    const contested = preview.groups.filter((g) => g.classification === 'CONTESTED');
    expect(contested).toHaveLength(1);
    const id = contested[0]?.group.id as string;
    let t = round(s, texts, T0 + MIN, { resolutions: [{ group_id: id, decision: 'DISMISS', by: 'arbiter' }] });
    expect(t.decision.kind).toBe('CONTINUE');
    s = t.state;
    expect(s.known_issues).toHaveLength(1);
    // Next round: same finding, file unchanged → suppressed → CLEAN → converged.
    t = round(s, texts, T0 + 2 * MIN);
    expect(t.decision.kind).toBe('CONVERGED');
    expect(t.state.log[1]?.counts.suppressed).toBe(1);
    const r = reviewResult(t.state);
    expect(r.summary.contested_resolved).toEqual({ total: 1, by_arbiter: 1, by_user: 0 });
    // Same second round but line 45 edited (inside 30..50): the known issue is invalidated.
    const edited = FILE_A.split('\n').map((l, i) => (i === 44 ? `${l} // changed` : l)).join('\n');
    t = recordRound(s, { runs: runs(texts), files: { 'src/a.ts': edited }, evidence: OK_EVIDENCE }, T0 + 2 * MIN);
    expect(t.decision).toEqual({ kind: 'NOT_CLEAN', reasons: ['review_pass_contested_unresolved'] });
    expect(t.state.log[1]?.counts.known_issues_invalidated).toBe(1);
    // Edit outside the window (line 60): still suppressed.
    const outside = FILE_A.split('\n').map((l, i) => (i === 59 ? `${l} // changed` : l)).join('\n');
    t = recordRound(s, { runs: runs(texts), files: { 'src/a.ts': outside }, evidence: OK_EVIDENCE }, T0 + 2 * MIN);
    expect(t.decision.kind).toBe('CONVERGED');
  });

  it('user FIX resolution counts as confirmed', () => {
    const s = startReview({ stage: 'test', mode: 'non_governed' }, T0);
    const texts = { gemini: issues('src/a.ts:3 [LOW] [correctness] — weak assertion'), opencode: CLEAN_TEXT };
    const id = adjudicateRound(roundContext(s), runs(texts), {}).groups[0]?.group.id as string;
    const t = round(s, texts, T0 + MIN, { resolutions: [{ group_id: id, decision: 'FIX', by: 'user' }] });
    expect(t.decision).toEqual({ kind: 'NOT_CLEAN', reasons: ['review_pass_confirmed_findings'] });
    expect(reviewResult(t.state).summary.contested_resolved.by_user).toBe(1);
  });

  it.each([
    ['veto group', 'veto', 'arbiter', 'review_pass_veto_not_arbitrable'],
    ['unknown group', 'unknown', 'arbiter', 'review_pass_resolution_invalid'],
    ['arbiter claimed where none exists (test stage)', 'contested-test', 'arbiter', 'review_pass_resolution_invalid'],
  ] as const)('resolution refusal: %s', (_n, which, by, code) => {
    const stage = which === 'contested-test' ? 'test' : 'development';
    const s = startReview({ stage, mode: 'non_governed' }, T0);
    const texts: Record<string, string> =
      stage === 'test'
        ? { gemini: issues('src/a.ts:3 [LOW] [correctness] — weak assertion'), opencode: CLEAN_TEXT }
        : { gemini: issues('src/a.ts:3 [CRITICAL] [release] — ships unreviewed'), opencode: CLEAN_TEXT, codex: CLEAN_TEXT };
    const groupId = which === 'unknown' ? 'sha256:0000' : (adjudicateRound(roundContext(s), runs(texts), {}).groups[0]?.group.id as string);
    expect(codeOf(() => round(s, texts, T0 + MIN, { resolutions: [{ group_id: groupId, decision: 'DISMISS', by }] }))).toBe(code);
  });

  it.each([
    ['missing slot', [{ slot: 'gemini', execution_id: 'e1', status: 'ok', output: { strategy: 'text_fallback', text: CLEAN_TEXT } }]],
    ['unknown slot', ['gemini', 'opencode', 'codex', 'rogue'].map((slot, i) => ({ slot, execution_id: `u${i}`, status: 'timeout' }))],
    ['duplicate slot', ['gemini', 'gemini', 'opencode', 'codex'].map((slot, i) => ({ slot, execution_id: `d${i}`, status: 'timeout' }))],
    ['ok without output', ['gemini', 'opencode', 'codex'].map((slot, i) => ({ slot, execution_id: `o${i}`, status: 'ok' }))],
  ])('round refusal: %s → review_pass_round_invalid', (_n, bad) => {
    const s = startReview(dev, T0);
    expect(codeOf(() => recordRound(s, { runs: bad, files: {}, evidence: OK_EVIDENCE }, T0 + MIN))).toBe('review_pass_round_invalid');
  });

  it('clock going backwards → review_pass_clock_invalid; result before the end → review_pass_state_running', () => {
    const s = startReview(dev, T0);
    expect(codeOf(() => round(s, all(S, CLEAN_TEXT), T0 - 1))).toBe('review_pass_clock_invalid');
    expect(codeOf(() => reviewResult(s))).toBe('review_pass_state_running');
  });

  it('missing evidence or a failed probe is NOT_CLEAN (docs/review-pass-protocol.md#clean-conditions)', () => {
    const s = startReview(dev, T0);
    const t = round(s, all(S, CLEAN_TEXT), T0 + MIN, { evidence: { mandatory_inputs_valid: true, probes_passed: 1, probes_total: 2 } });
    expect(t.decision).toEqual({ kind: 'NOT_CLEAN', reasons: ['review_pass_missing_evidence'] });
  });

  it('planning without the preservation preflight inputs is NOT_CLEAN from the start', () => {
    const s = startReview({ stage: 'planning', mode: 'non_governed', preflight: { ...PREFLIGHT, incident_history: false } }, T0);
    expect(s.status).toBe('NOT_CLEAN');
    expect(reviewResult(s).reasons).toEqual(['review_pass_mandatory_inputs_missing']);
  });

  it('integration with a missing role is NOT_CLEAN, never degraded (docs/review-pass-protocol.md#separated-roles)', () => {
    const s = startReview({ stage: 'integration', mode: 'non_governed', preflight: PREFLIGHT }, T0);
    const texts = { ...all(ROLES, CLEAN_TEXT), authority_release: 'timeout' as const };
    expect(round(s, texts, T0 + MIN).decision).toEqual({ kind: 'NOT_CLEAN', reasons: ['review_pass_role_coverage_incomplete'] });
  });

  it('REQ coverage (docs/review-pass-protocol.md#req-id-coverage): uncovered blocks, deferred does not', () => {
    const cfg = { stage: 'development', mode: 'non_governed', reviewers: ['gemini', 'opencode'], req_ids: ['REQ-001', 'REQ-002'], deferred_req_ids: ['REQ-002'] } as const;
    const covered = '### Files Read\n- `src/a.ts`\n### Findings\nNONE\n### REQ-ID Coverage\n- REQ-001: COVERED (src/a.ts:main)\n### Verdict\nCLEAN\n';
    const notFound = '### Files Read\n- `src/a.ts`\n### Findings\nNONE\n### REQ-ID Coverage\n- REQ-001: NOT FOUND\n### Verdict\nCLEAN\n';
    let t = round(startReview(cfg, T0), { gemini: covered, opencode: covered }, T0 + MIN);
    expect(t.decision.kind).toBe('CONTINUE');
    expect(t.state.last_round?.req_coverage).toEqual([
      { req_id: 'REQ-001', status: 'COVERED', locations: ['src/a.ts:main'] },
      { req_id: 'REQ-002', status: 'DEFERRED', locations: [] },
    ]);
    t = round(startReview(cfg, T0), { gemini: covered, opencode: notFound }, T0 + MIN);
    expect(t.decision).toEqual({ kind: 'NOT_CLEAN', reasons: ['review_pass_req_uncovered'] });
    t = round(startReview(cfg, T0), { gemini: CLEAN_TEXT, opencode: CLEAN_TEXT }, T0 + MIN);
    expect(t.decision).toEqual({ kind: 'NOT_CLEAN', reasons: ['review_pass_req_uncovered'] });
  });

  it('single available reviewer raises convergence to 2 even in light mode (docs/review-pass-protocol.md#graceful-degradation)', () => {
    let s = startReview({ stage: 'test', mode: 'non_governed', light: true }, T0);
    let t = round(s, { gemini: CLEAN_TEXT, opencode: 'failed' }, T0 + MIN);
    expect(t.decision.kind).toBe('CONTINUE');
    s = t.state;
    expect(s.convergence_threshold).toBe(2);
    t = round(s, { gemini: CLEAN_TEXT, opencode: CLEAN_TEXT }, T0 + 2 * MIN);
    expect(t.decision.kind).toBe('CONVERGED');
  });

  it('an execution id reused across rounds is NOT_CLEAN', () => {
    const s = startReview(dev, T0);
    const rs = runs(all(S, CLEAN_TEXT));
    const t1 = recordRound(s, { runs: rs, files: {}, evidence: OK_EVIDENCE }, T0 + MIN);
    const t2 = recordRound(t1.state, { runs: rs, files: {}, evidence: OK_EVIDENCE }, T0 + 2 * MIN);
    expect(t2.decision).toEqual({ kind: 'NOT_CLEAN', reasons: ['review_pass_execution_reused'] });
  });
});

describe('governed mode: adjudication by code and refs (docs/review-pass.md#review-protocols)', () => {
  const cfg = { stage: 'development', mode: 'governed', reviewers: ['cov-a', 'cov-b'] } as const;
  const gov = (findings: unknown[]) => ({ strategy: 'governed' as const, value: { verdict: findings.length ? 'DIRTY' : 'CLEAN', coverage_matched: true, findings } });
  const gap = { code: 'test_gap', class: 'correctness', severity: 'MEDIUM', refs: ['EVD-1'] };

  it('the same code+refs from both reviewers is CONFIRMED; different refs stay CONTESTED', () => {
    const s = startReview(cfg, T0);
    const mk = (a: unknown[], b: unknown[]) => [
      { slot: 'cov-a', execution_id: `ga-${++execCounter}`, status: 'ok', output: gov(a) },
      { slot: 'cov-b', execution_id: `gb-${++execCounter}`, status: 'ok', output: gov(b) },
    ];
    const same = adjudicateRound(roundContext(s), mk([gap], [gap]), {});
    expect(same.groups.map((g) => g.classification)).toEqual(['CONFIRMED']);
    const diff = adjudicateRound(roundContext(s), mk([gap], [{ ...gap, refs: ['EVD-2'] }]), {});
    expect(diff.groups.map((g) => g.classification)).toEqual(['CONTESTED', 'CONTESTED']);
    const t = recordRound(s, { runs: mk([], []), files: {}, evidence: OK_EVIDENCE }, T0 + MIN);
    expect(t.decision.kind).toBe('CONTINUE');
    const id = diff.groups[0]?.group.id as string;
    expect(codeOf(() => recordRound(s, { runs: mk([gap], [{ ...gap, refs: ['EVD-2'] }]), files: {}, evidence: OK_EVIDENCE, resolutions: [{ group_id: id, decision: 'DISMISS', by: 'user' }] }, T0 + MIN))).toBe('review_pass_resolution_invalid');
    expect(codeOf(() => recordRound(s, { runs: [{ slot: 'cov-a', execution_id: 'z1', status: 'ok', output: { strategy: 'governed', value: { verdict: 'CLEAN' } } }, { slot: 'cov-b', execution_id: 'z2', status: 'timeout' }], files: {}, evidence: OK_EVIDENCE }, T0 + MIN))).toBe('review_pass_governed_output_invalid');
  });
});

// ---- Golden reports (docs/review-pass-protocol.md#final-report shape) ------------------------------------------------------------------
const FIXTURES = fileURLToPath(new URL('./fixtures/protocols/review-pass/', import.meta.url));
function golden(name: string, actual: string): void {
  const path = `${FIXTURES}${name}`;
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(path, actual);
  expect(actual).toBe(readFileSync(path, 'utf8'));
}

function fixedRuns(round: number, texts: Record<string, string | 'timeout'>) {
  return Object.entries(texts).map(([slot, t]) =>
    t === 'timeout'
      ? { slot, execution_id: `r${round}-${slot}`, status: 'timeout' as const }
      : { slot, execution_id: `r${round}-${slot}`, status: 'ok' as const, output: { strategy: 'text_fallback' as const, text: t } },
  );
}

function cleanScenario(): ReviewState {
  let s = startReview({ stage: 'development', mode: 'non_governed', req_ids: ['REQ-001', 'REQ-003'], deferred_req_ids: ['REQ-003'] }, T0);
  const covered = '### Files Read\n- `src/a.ts`\n### Findings\nNONE\n### REQ-ID Coverage\n- REQ-001: COVERED (src/a.ts:main)\n### Verdict\nCLEAN\n';
  const f = '### Files Read\n- `src/a.ts`\n### Findings\n- `src/a.ts:40 [HIGH] [correctness] REQ-001 — wrong sum of totals`\n### REQ-ID Coverage\n- REQ-001: COVERED (src/a.ts:main)\n### Verdict\nFOUND_ISSUES\n';
  const r1 = { gemini: f, opencode: covered, codex: 'timeout' as const };
  const id = adjudicateRound(roundContext(s), fixedRuns(1, r1), { 'src/a.ts': FILE_A }).groups[0]?.group.id as string;
  s = recordRound(s, { runs: fixedRuns(1, r1), files: { 'src/a.ts': FILE_A }, evidence: OK_EVIDENCE, resolutions: [{ group_id: id, decision: 'DISMISS', by: 'arbiter' }] }, T0 + 2 * MIN).state;
  s = recordRound(s, { runs: fixedRuns(2, { gemini: f, opencode: covered, codex: covered }), files: { 'src/a.ts': FILE_A }, evidence: OK_EVIDENCE }, T0 + 4 * MIN + 5000).state;
  return s;
}

function vetoScenario(): ReviewState {
  const s = startReview({ stage: 'development', mode: 'non_governed' }, T0);
  const g = issues(
    'src/a.ts:5 [CRITICAL] [preservation] — removes the export CLI command',
    'src/a.ts:60 [HIGH] [correctness] — off-by-one in pagination loop',
    'src/b.ts:parseArgs [MEDIUM] — unchecked argv index access',
  );
  const o = issues('src/a.ts:62 [HIGH] [correctness] — pagination loop skips last page');
  const c = '### Files Read\n- `src/*`\nLooks fine overall.\n### Verdict\nCLEAN\n';
  return recordRound(s, { runs: fixedRuns(1, { gemini: g, opencode: o, codex: c }), files: {}, evidence: OK_EVIDENCE }, T0 + 90_000).state;
}

describe('reports (docs/review-pass-protocol.md#final-report) — golden files', () => {
  it('CLEAN development review with a degraded round and an arbiter dismissal', () => {
    const s = cleanScenario();
    expect(s.status).toBe('CONVERGED');
    const r = reviewResult(s);
    golden('clean-development.md', renderReviewPassMarkdown(r));
    golden('clean-development.json', renderReviewPassJson(r));
  });

  it('NOT_CLEAN development review with a veto, a confirmed finding and an escalation', () => {
    const s = vetoScenario();
    expect(s.status).toBe('NOT_CLEAN');
    const r = reviewResult(s);
    golden('veto-development.md', renderReviewPassMarkdown(r));
    golden('veto-development.json', renderReviewPassJson(r));
  });

  it('every report states that auto-fix is out of scope and the orchestrator never edits code', () => {
    for (const s of [cleanScenario(), vetoScenario()]) {
      const md = renderReviewPassMarkdown(reviewResult(s));
      expect(md).toContain('Auto-fix is out of scope: the orchestrator never edits code.');
      const json = JSON.parse(renderReviewPassJson(reviewResult(s)));
      expect(json.auto_fix).toBe('out_of_scope');
      expect(json.orchestrator_edits_code).toBe(false);
      expect(json.delivery_state).toBe('REVIEW_ONLY');
    }
  });
});
