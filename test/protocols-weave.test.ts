// weave-review.txt Phase 4: blind labels with a recorded map, consensus levels (dissent vs silence),
// severity promotion, ordering, split findings under Reviewer Disagreements; golden reports.
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isGovernedError } from '../src/core/errors.js';
import {
  adjudicateWeave, assignBlindLabels, consensusLevel, consensusTag, promoteByConsensus, renderWeaveJson, renderWeaveMarkdown,
  type ConsensusLevel, type WeaveSeverity,
} from '../src/protocols/weave/index.js';

const FIXTURES = new URL('./fixtures/protocols/weave/', import.meta.url);
const SEED = new Uint8Array(32).fill(7);

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
const seedOf = (n: number): Uint8Array => {
  const s = new Uint8Array(16);
  new DataView(s.buffer).setUint32(0, n);
  return s;
};

describe('blind labels (Blind Judging Protocol, Step 1)', () => {
  it('is a permutation recorded as label → participant, reproducible from the same seed', () => {
    const map = assignBlindLabels(['claude', 'agy', 'gpt'], SEED);
    expect(Object.keys(map)).toEqual(['A', 'B', 'C']);
    expect(Object.values(map).sort()).toEqual(['agy', 'claude', 'gpt']);
    expect(assignBlindLabels(['claude', 'agy', 'gpt'], SEED)).toEqual(map);
  });

  it('does not always assign the first participant to A: every permutation of three occurs', () => {
    const seen = new Set<string>();
    const aCount = new Map<string, number>();
    for (let i = 0; i < 600; i++) {
      const m = assignBlindLabels(['claude', 'agy', 'gpt'], seedOf(i));
      seen.add(Object.values(m).join(','));
      aCount.set(m.A as string, (aCount.get(m.A as string) ?? 0) + 1);
    }
    expect(seen.size).toBe(6);
    // Roughly uniform: each participant gets A about a third of the time (200 ± 60).
    for (const p of ['claude', 'agy', 'gpt']) expect(Math.abs((aCount.get(p) ?? 0) - 200)).toBeLessThan(60);
  });

  const refusals: [string, string[], Uint8Array, string][] = [
    ['a 15-byte seed', ['a', 'b'], new Uint8Array(15), 'weave_label_seed_too_short'],
    ['27 participants', Array.from({ length: 27 }, (_, i) => `p${i}`), SEED, 'weave_too_many_participants'],
    ['a duplicate participant', ['a', 'a'], SEED, 'weave_participant_duplicate'],
  ];
  it.each(refusals)('refuses %s', (_n, participants, seed, code) => {
    expect(codeOf(() => assignBlindLabels(participants, seed))).toBe(code);
  });
});

describe('consensus levels (Cross-Reference and Deduplicate)', () => {
  // [agree, dissent, M] → level. Silent = M - agree - dissent.
  const table: [number, number, number, ConsensusLevel][] = [
    [1, 0, 1, 'single'], // one lane only: no second opinion
    [2, 0, 2, 'unanimous'],
    [1, 0, 2, 'single'], // one agree, one silent
    [1, 1, 2, 'split'], // one agree, one dissent: dissent is not silence
    [3, 0, 3, 'unanimous'],
    [2, 0, 3, 'majority'], // someone silent
    [2, 1, 3, 'majority'], // someone dissents
    [1, 0, 3, 'single'], // one agree, rest silent
    [1, 1, 3, 'split'],
    [1, 2, 3, 'split'],
    [4, 0, 4, 'unanimous'],
    [3, 1, 4, 'majority'],
    [2, 0, 4, 'split'], // 2 of 4 is not > M/2
    [2, 2, 4, 'split'],
    [1, 0, 4, 'single'],
  ];
  it.each(table)('agree %i, dissent %i of M=%i → %s', (a, d, m, level) => {
    expect(consensusLevel(a, d, m)).toBe(level);
  });

  it('tags: "consensus 2/3", "consensus 1/3 (uncontested)", split marked', () => {
    expect(consensusTag('majority', 2, 3)).toBe('consensus 2/3');
    expect(consensusTag('single', 1, 3)).toBe('consensus 1/3 (uncontested)');
    expect(consensusTag('split', 1, 3)).toBe('consensus 1/3 (split)');
    expect(consensusTag('unanimous', 3, 3)).toBe('consensus 3/3');
  });

  // Consensus boost: 1 → as-is; 2 → one level up; 3+ → Critical.
  const promo: [WeaveSeverity, number, WeaveSeverity][] = [
    ['Suggestion', 1, 'Suggestion'], ['Important', 1, 'Important'], ['Critical', 1, 'Critical'],
    ['Suggestion', 2, 'Important'], ['Important', 2, 'Critical'], ['Critical', 2, 'Critical'],
    ['Suggestion', 3, 'Critical'], ['Important', 3, 'Critical'], ['Suggestion', 4, 'Critical'],
  ];
  it.each(promo)('%s flagged by %i → %s', (s, n, expected) => {
    expect(promoteByConsensus(s, n)).toBe(expected);
  });
});

type Lane = Record<string, unknown>;
const ok = (participant: string, findings: [string, WeaveSeverity][], dissents: [string, string][] = []): Lane => ({
  participant, status: 'ok',
  findings: findings.map(([issue_id, severity]) => ({ issue_id, severity, description: `${participant} on ${issue_id}`, recommendation: `fix ${issue_id}` })),
  dissents: dissents.map(([issue_id, reason]) => ({ issue_id, reason })),
});
const issue = (issue_id: string, verification: string, line: number | null = 10): Record<string, unknown> => ({
  issue_id, title: `Issue ${issue_id}`, file: line === null ? null : 'src/a.ts', line, verification, verification_note: `checked ${issue_id}`,
});

const SAMPLE = {
  lanes: [
    ok('claude', [['I1', 'Important'], ['I2', 'Suggestion'], ['I3', 'Suggestion'], ['I5', 'Critical']]),
    ok('agy', [['I1', 'Suggestion'], ['I2', 'Suggestion'], ['I4', 'Important']], [['I5', 'not an issue: guarded by caller']]),
    ok('gpt', [['I1', 'Suggestion'], ['I6', 'Important']], [['I3', 'intended behaviour'], ['I4', 'value is validated upstream']]),
    { participant: 'gemini', status: 'failed', failure: 'timeout' },
  ],
  issues: [
    issue('I1', 'verified', 42), issue('I2', 'verified', 7), issue('I3', 'plausible-unverified', 99), issue('I4', 'verified', 5),
    issue('I5', 'plausible-unverified', null), issue('I6', 'false', 3),
  ],
};

describe('weave synthesis (Phase 4)', () => {
  const r = adjudicateWeave(SAMPLE, SEED);
  const get = (id: string) => [...r.findings, ...r.refuted].find((f) => f.issue_id === id)!;

  it('counts M over lanes that produced output; failed lanes are reported unavailable, not silent', () => {
    expect(r.lanes).toBe(3);
    expect(r.unavailable).toEqual([{ participant: 'gemini', failure: 'timeout' }]);
    expect(get('I1').silent).toEqual([]);
  });

  it('computes level, promotion and disagreement per issue', () => {
    expect([get('I1').level, get('I1').reported_severity, get('I1').final_severity]).toEqual(['unanimous', 'Important', 'Critical']);
    expect([get('I2').level, get('I2').final_severity]).toEqual(['majority', 'Important']);
    expect([get('I3').level, get('I3').in_disagreements]).toEqual(['split', true]);
    expect([get('I4').level, get('I4').in_disagreements]).toEqual(['split', true]);
    expect([get('I5').level, get('I5').final_severity]).toEqual(['split', 'Critical']);
    expect(get('I6').level).toBe('single');
  });

  it('lists every split finding under disagreements, settled by verification or not', () => {
    expect(r.disagreement_ids).toEqual(expect.arrayContaining(['I3', 'I4', 'I5']));
    expect(r.findings.map((f) => f.issue_id)).toEqual(expect.arrayContaining(['I3', 'I4', 'I5']));
  });

  it('moves claims verification found false out of the findings into refuted, never dropping them', () => {
    expect(r.findings.some((f) => f.issue_id === 'I6')).toBe(false);
    expect(r.refuted.map((f) => f.issue_id)).toEqual(['I6']);
  });

  it('orders bands Critical first, then unanimous/majority/single/split verified before unverified', () => {
    expect(r.findings.map((f) => `${f.final_severity}:${f.issue_id}`)).toEqual([
      'Critical:I1', 'Critical:I5', 'Important:I2', 'Important:I4', 'Suggestion:I3',
    ]);
    const band = adjudicateWeave(
      {
        lanes: [ok('x', [['U', 'Important'], ['S', 'Important'], ['V', 'Important'], ['M', 'Suggestion']]), ok('y', [['M', 'Suggestion']], [['V', 'no']]), ok('z', [['M', 'Suggestion']])],
        issues: [issue('U', 'plausible-unverified'), issue('S', 'verified'), issue('V', 'verified'), issue('M', 'verified')],
      },
      SEED,
    );
    // M: unanimous (3 → Critical); S single-verified, V split-verified, U single-unverified (Important band).
    expect(band.findings.map((f) => f.issue_id)).toEqual(['M', 'S', 'V', 'U']);
  });

  it('judges blindly: findings reference labels only; identities appear only in the label map', () => {
    const json = renderWeaveJson(r);
    const parsed = JSON.parse(json) as { findings: unknown; label_map: Record<string, string> };
    expect(JSON.stringify(parsed.findings)).not.toMatch(/"(label|by)":"(claude|agy|gpt)"/);
    expect(Object.values(parsed.label_map).sort()).toEqual(['agy', 'claude', 'gpt']);
  });

  const bad = (mut: (s: typeof SAMPLE) => unknown) => () => adjudicateWeave(mut(structuredClone(SAMPLE)), SEED);
  const refusals: [string, () => unknown, string][] = [
    ['an unknown key', bad((s) => ({ ...s, extra: true })), 'weave_input_invalid'],
    ['an unknown severity', bad((s) => ({ ...s, lanes: [ok('a', [['I1', 'Blocker' as WeaveSeverity]])] })), 'weave_input_invalid'],
    ['a failed lane with findings', bad((s) => ({ ...s, lanes: [{ participant: 'a', status: 'failed', failure: 'crash', findings: [] }] })), 'weave_input_invalid'],
    ['a duplicate issue id', bad((s) => ({ ...s, issues: [...s.issues, issue('I1', 'verified')] })), 'weave_input_invalid'],
    ['every lane failed', bad(() => ({ lanes: [{ participant: 'a', status: 'failed', failure: 'empty' }], issues: [] })), 'weave_no_participants'],
    ['a duplicate participant', bad((s) => ({ ...s, lanes: [...s.lanes, { participant: 'gemini', status: 'failed', failure: 'crash' }] })), 'weave_participant_duplicate'],
    ['a finding on an unknown issue', bad((s) => ({ ...s, lanes: [...s.lanes, ok('x', [['I9', 'Important']])] })), 'weave_issue_unknown'],
    ['a dissent on an unknown issue', bad((s) => ({ ...s, lanes: [...s.lanes, ok('x', [], [['I9', 'no']])] })), 'weave_issue_unknown'],
    ['an issue nobody reported', bad((s) => ({ ...s, issues: [...s.issues, issue('I7', 'verified')] })), 'weave_issue_unreported'],
    ['a lane reporting an issue twice', bad((s) => ({ ...s, lanes: [ok('x', [['I1', 'Important'], ['I1', 'Suggestion']])], issues: [issue('I1', 'verified')] })), 'weave_position_conflict'],
    ['a lane agreeing and dissenting', bad((s) => ({ ...s, lanes: [ok('x', [['I1', 'Important']], [['I1', 'no']])], issues: [issue('I1', 'verified')] })), 'weave_position_conflict'],
    ['a short label seed', () => adjudicateWeave(SAMPLE, new Uint8Array(8)), 'weave_label_seed_too_short'],
  ];
  it.each(refusals)('refuses %s', (_n, fn, code) => {
    expect(codeOf(fn)).toBe(code);
  });

  it('golden: Markdown and JSON reports', () => {
    golden('sample.md', renderWeaveMarkdown(r));
    golden('sample.json', renderWeaveJson(r));
    expect(renderWeaveMarkdown(r)).toContain('auto-fix is out of scope and nothing in this review edits code');
  });

  it('a single-lane run (Claude-only fallback) yields single findings without promotion', () => {
    const one = adjudicateWeave({ lanes: [ok('claude', [['I1', 'Important']])], issues: [issue('I1', 'verified')] }, SEED);
    expect([one.lanes, one.findings[0]?.level, one.findings[0]?.tag, one.findings[0]?.final_severity]).toEqual([
      1, 'single', 'consensus 1/1 (uncontested)', 'Important',
    ]);
    golden('single-lane.md', renderWeaveMarkdown(one));
  });
});
