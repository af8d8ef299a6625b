// Governed mode's protocol drivers (src/flows/review-pass/governed-protocols.ts) and the engine's
// halt (haltReview), table-driven over hand-built run records: the receipts' opaque findings feed
// the same pure engines as non-governed mode; a DIRTY or ABORTED run never ends CLEAN.
import { describe, expect, it } from 'vitest';
import { isGovernedError } from '../src/core/errors.js';
import { reviewPassDriver, weaveDriver, weaveInput, WEAVE_SEVERITY_OF, NO_RECOMMENDATION } from '../src/flows/review-pass/governed-protocols.js';
import type { GovernedFinding, GovernedRunRecord } from '../src/flows/review-pass/governed-run.js';
import { haltReview, startReview } from '../src/protocols/review-pass/index.js';
import { seededRandom, steppingClock } from './review-pass-helpers.js';

let n = 0;
const hex = (): string => (++n).toString(16).padStart(32, '0');
function rec(slot: string, verdict: GovernedRunRecord['verdict'], findings: GovernedFinding[] = [], error: string | null = null): GovernedRunRecord {
  const aborted = verdict === 'ABORTED';
  return {
    round: 1,
    slot,
    reviewer: slot,
    challenge_id: `CHL-${hex()}`,
    run_id: `RUN-${hex()}`,
    verdict,
    receipt_id: aborted ? null : `sha256:${'a'.repeat(64)}`,
    execution_id: aborted ? null : `EXE-${hex()}`,
    error: aborted ? (error ?? 'review_output_not_canonical') : null,
    findings,
  };
}
const F = (code: string, cls: string, severity: string, refs: string[]): GovernedFinding => ({ code, class: cls, severity, refs });
const HIGH = F('correctness', 'correctness', 'HIGH', ['AC-1']);
const VETO = F('scope_omission', 'scope', 'CRITICAL', ['ATOM-1']);

function codeOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return isGovernedError(e) ? e.code : 'not-governed';
  }
  return 'no-error';
}

function reviewPass(slots: string[], rounds: GovernedRunRecord[][], streak = 2) {
  const d = reviewPassDriver({ stage: 'development', slots, streak, preservationWaived: true, preservationBound: false, pendingControls: [] }, steppingClock());
  for (const runs of rounds) {
    if (!d.running()) break;
    d.beforeRound();
    d.recordRound(runs);
    if (runs.some((r) => r.verdict !== 'CLEAN')) d.halt();
  }
  const r = d.finish([]);
  return { r, json: JSON.parse(r.result_json) as Record<string, unknown> & { summary: Record<string, number>; review_log: { result: string }[] } };
}

describe('review-pass driver: the engine over opaque findings', () => {
  it.each([
    // [case, slots, one round, expected classification counts, reasons]
    ['R=3, two slots agree on HIGH → CONFIRMED', ['a', 'b', 'c'], [rec('a', 'DIRTY', [HIGH]), rec('b', 'DIRTY', [HIGH]), rec('c', 'CLEAN')], { confirmed: 1, escalations: 0, vetoes: 0, auto_dismissed: 0 }, ['review_pass_confirmed_findings']],
    ['R=2, a solo HIGH → CONTESTED, unresolved (no arbiter in governed mode)', ['a', 'b'], [rec('a', 'DIRTY', [HIGH]), rec('b', 'CLEAN')], { confirmed: 0, escalations: 1, vetoes: 0, auto_dismissed: 0 }, ['review_pass_contested_unresolved']],
    ['R=1, a solo CRITICAL scope finding → VETO', ['a'], [rec('a', 'DIRTY', [VETO])], { confirmed: 0, escalations: 0, vetoes: 1, auto_dismissed: 0 }, ['review_pass_veto']],
    // The engine may auto-dismiss a solo non-veto finding at R ≥ 3 (docs/review-pass-protocol.md#classification), but the DIRTY receipt
    // blocks its slot (docs/decision.md#the-rules-in-short): the orchestrator halts, the result is never CLEAN.
    ['R=3, a solo HIGH → AUTO_DISMISSED, yet halted NOT_CLEAN', ['a', 'b', 'c'], [rec('a', 'DIRTY', [HIGH]), rec('b', 'CLEAN'), rec('c', 'CLEAN')], { confirmed: 0, escalations: 0, vetoes: 0, auto_dismissed: 1 }, ['review_pass_halted']],
    ['different refs never match: two solo groups', ['a', 'b'], [rec('a', 'DIRTY', [HIGH]), rec('b', 'DIRTY', [F('correctness', 'correctness', 'HIGH', ['AC-2'])])], { confirmed: 0, escalations: 2, vetoes: 0, auto_dismissed: 0 }, ['review_pass_contested_unresolved']],
    ['an ABORTED run degrades the round (R=2 of 3) and halts it', ['a', 'b', 'c'], [rec('a', 'CLEAN'), rec('b', 'CLEAN'), rec('c', 'ABORTED')], { confirmed: 0, escalations: 0, vetoes: 0, auto_dismissed: 0 }, ['review_pass_halted']],
    ['every run ABORTED → no reviewers', ['a', 'b'], [rec('a', 'ABORTED'), rec('b', 'ABORTED', [], 'reviewer_timeout')], { confirmed: 0, escalations: 0, vetoes: 0, auto_dismissed: 0 }, ['review_pass_no_reviewers']],
  ] as const)('%s', (_name, slots, round, counts, reasons) => {
    const { r, json } = reviewPass([...slots], [[...round]]);
    expect(r.result).toBe('NOT_CLEAN');
    expect(r.reasons).toEqual(reasons);
    expect(json.summary).toMatchObject(counts);
    expect(json).toMatchObject({ schema: 'governed.review-pass-result/v1', mode: 'governed', rounds: 1 });
  });

  it('CLEAN rounds converge at the policy streak (3): three rounds, CONVERGED', () => {
    const clean = (): GovernedRunRecord[] => [rec('a', 'CLEAN'), rec('b', 'CLEAN')];
    const { r, json } = reviewPass(['a', 'b'], [clean(), clean(), clean(), clean()], 3);
    expect(r.result).toBe('CLEAN');
    expect(json.review_log.map((e) => e.result)).toEqual(['CLEAN', 'CLEAN', 'CLEAN']);
    expect(json).toMatchObject({ convergence: { threshold: 3, consecutive_clean: 3 } });
  });

  it('a streak beyond the seed budget (8 rounds) is refused before anything runs', () => {
    expect(codeOf(() => reviewPassDriver({ stage: 'development', slots: ['a', 'b'], streak: 9, preservationWaived: true, preservationBound: false, pendingControls: [] }, steppingClock()))).toBe('orchestrator_governed_streak_unreachable');
    expect(codeOf(() => reviewPassDriver({ stage: 'development', slots: ['a', 'b'], streak: 8, preservationWaived: true, preservationBound: false, pendingControls: [] }, steppingClock()))).toBe('no-error');
  });

  it.each([
    [true, false, true],
    [false, false, false],
    [false, true, true],
  ])('planning (four roles): preservation waived %s, a contract bound %s → reviewers run %s', (waived, bound, runs) => {
    const d = reviewPassDriver({ stage: 'planning', slots: ['authority_release', 'baseline_preservation', 'implementation_test', 'source_fidelity'], streak: 2, preservationWaived: waived, preservationBound: bound, pendingControls: [] }, steppingClock());
    expect(d.running()).toBe(runs);
    if (!runs) expect(d.finish([]).reasons).toEqual(['review_pass_mandatory_inputs_missing']);
  });

  // The report must not contradict `governed status`: pending controls are the pinned policy's (docs/review-pass.md).
  it.each([
    [[], [], 'no pending control is required by the pinned policy'],
    [['cross_role_comparison'], ['control_pending:cross_role_comparison'], 'pending controls the pinned policy requires: cross_role_comparison'],
    [['external_effect_gate'], ['control_pending:external_effect_gate'], 'pending controls the pinned policy requires: external_effect_gate'],
  ] as const)('integration: pending controls %j → delivery reasons only those, as the decision has them', (pending, reasons, line) => {
    const d = reviewPassDriver(
      { stage: 'integration', slots: ['authority_release', 'baseline_preservation', 'implementation_test', 'source_fidelity'], streak: 2, preservationWaived: true, preservationBound: false, pendingControls: [...pending] },
      steppingClock(),
    );
    const clean = (): GovernedRunRecord[] => ['authority_release', 'baseline_preservation', 'implementation_test', 'source_fidelity'].map((s) => rec(s, 'CLEAN'));
    for (let i = 0; i < 2 && d.running(); i++) {
      d.beforeRound();
      d.recordRound(clean());
    }
    const r = d.finish([]);
    const json = JSON.parse(r.result_json) as { delivery_reasons: string[]; pending_controls: string[] };
    expect(r.result).toBe('CLEAN');
    expect(json.delivery_reasons).toEqual(['advisory_result', ...reasons].sort());
    expect(json.pending_controls).toEqual([...pending]);
    expect(r.report_md).toContain(`**Controls**: ${line}`);
    if (pending.length === 0) expect(r.result_json + r.report_md).not.toContain('control_pending');
  });

  it('a receipt value that breaks the closed shape is refused by the engine adapter, never degraded', () => {
    const d = reviewPassDriver({ stage: 'development', slots: ['a'], streak: 2, preservationWaived: true, preservationBound: false, pendingControls: [] }, steppingClock());
    d.beforeRound();
    expect(codeOf(() => d.recordRound([rec('a', 'DIRTY', [F('correctness', 'correctness', 'HIGH', ['AC-2', 'AC-1'])])]))).toBe('review_pass_governed_output_invalid');
    expect(codeOf(() => d.recordRound([rec('a', 'DIRTY', [F('made_up', 'correctness', 'HIGH', ['AC-1'])])]))).toBe('review_pass_governed_output_invalid');
  });
});

describe('haltReview (engine, governed mode only)', () => {
  it('ends a RUNNING governed review NOT_CLEAN; refuses non-governed and terminal states', () => {
    const s = startReview({ stage: 'development', mode: 'governed', reviewers: ['a', 'b'] }, 10);
    const h = haltReview(s, 11);
    expect(h.state).toMatchObject({ status: 'NOT_CLEAN', reasons: ['review_pass_halted'] });
    expect(h.decision).toEqual({ kind: 'NOT_CLEAN', reasons: ['review_pass_halted'] });
    expect(codeOf(() => haltReview(h.state, 12))).toBe('review_pass_state_terminal');
    expect(codeOf(() => haltReview(startReview({ stage: 'development', mode: 'non_governed', reviewers: ['a', 'b'] }, 10), 11))).toBe('review_pass_config_invalid');
    expect(codeOf(() => haltReview(s, 9))).toBe('review_pass_clock_invalid');
  });
});

describe('weave driver: lanes = slots, issues = findings grouped by code and refs', () => {
  it('maps receipts to lanes and issues: most severe member per lane, severities, failures', () => {
    const input = weaveInput([
      rec('a', 'DIRTY', [HIGH, F('correctness', 'correctness', 'LOW', ['AC-9'])]),
      rec('b', 'DIRTY', [F('correctness', 'release', 'CRITICAL', ['AC-1']), VETO]),
      rec('c', 'ABORTED', [], 'reviewer_timeout'),
      rec('d', 'ABORTED'),
    ]);
    expect(input.lanes.map((l) => (l.status === 'ok' ? `${l.participant}:ok:${l.findings.length}` : `${l.participant}:${l.failure}`))).toEqual(['a:ok:2', 'b:ok:2', 'c:timeout', 'd:crash']);
    const a = input.lanes[0];
    const b = input.lanes[1];
    if (a?.status !== 'ok' || b?.status !== 'ok') throw new Error('lanes');
    // correctness|AC-1 from a (HIGH) and b (CRITICAL release) match by code and refs: one issue.
    const shared = b.findings.find((f) => a.findings.some((g) => g.issue_id === f.issue_id));
    expect(shared?.severity).toBe('Critical');
    expect(a.findings.find((f) => f.issue_id === shared?.issue_id)?.severity).toBe('Important');
    expect(input.issues).toHaveLength(3);
    for (const i of input.issues) expect(i).toMatchObject({ file: null, line: null, verification: 'plausible-unverified' });
    for (const f of [...a.findings, ...b.findings]) expect(f.recommendation).toBe(NO_RECOMMENDATION);
    expect(WEAVE_SEVERITY_OF).toEqual({ CRITICAL: 'Critical', HIGH: 'Important', MEDIUM: 'Important', LOW: 'Suggestion', INFO: 'Suggestion' });
  });

  it.each([
    ['clean rounds up to the streak → CLEAN', [['CLEAN', 'CLEAN'], ['CLEAN', 'CLEAN']], 'CLEAN', [], 2],
    ['a DIRTY lane → findings, stops', [['CLEAN', 'DIRTY'], ['CLEAN', 'CLEAN']], 'NOT_CLEAN', ['orchestrator_weave_findings'], 1],
    ['an ABORTED lane → degraded synthesis, stops', [['CLEAN', 'ABORTED']], 'NOT_CLEAN', ['orchestrator_weave_lane_unavailable'], 1],
    ['every lane ABORTED → incomplete result', [['ABORTED', 'ABORTED']], 'NOT_CLEAN', ['orchestrator_reviewer_unavailable'], 1],
  ] as const)('%s', (_name, rounds, result, reasons, ran) => {
    const d = weaveDriver({ stage: 'development', slots: ['a', 'b'], streak: 2 }, seededRandom('w'));
    let count = 0;
    for (const round of rounds) {
      if (!d.running()) break;
      d.recordRound(round.map((v, i) => rec(i === 0 ? 'a' : 'b', v, v === 'DIRTY' ? [HIGH] : [])));
      count++;
    }
    expect(count).toBe(ran);
    const r = d.finish([]);
    expect({ result: r.result, reasons: r.reasons }).toEqual({ result, reasons });
    const schema = (JSON.parse(r.result_json) as { schema: string }).schema;
    expect(schema).toBe(reasons.includes('orchestrator_reviewer_unavailable' as never) ? 'governed.review-pass-incomplete/v1' : 'governed.weave-result/v1');
  });

  it('halted before any synthesis (run budget): the incomplete result carries the governed reason', () => {
    const d = weaveDriver({ stage: 'development', slots: ['a'], streak: 2 }, seededRandom('w'));
    d.halt();
    const r = d.finish(['orchestrator_governed_budget_exhausted']);
    expect(r).toMatchObject({ result: 'NOT_CLEAN', reasons: ['orchestrator_governed_budget_exhausted'] });
    expect(r.report_md).toContain('orchestrator_governed_budget_exhausted');
  });
});
