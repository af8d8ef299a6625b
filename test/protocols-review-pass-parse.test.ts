// Reviewer output parsing (docs/review-pass-protocol.md#reviewer-output-format format, docs/review-pass-protocol.md#finding-schema schema, docs/review-pass-protocol.md#output-parsing-rules strategies; docs/reviewers.md#reviewer-output adapter).
import { describe, expect, it } from 'vitest';
import { GovernedError } from '../src/core/errors.js';
import {
  FindingSchema,
  governedMatchKey,
  isExactReadPath,
  isVetoShape,
  parseFindingEntry,
  parseGovernedReviewerOutput,
  parseJsonReviewerOutput,
  parseLocation,
  parseReviewerRunOutput,
  parseTextReviewerOutput,
} from '../src/protocols/review-pass/index.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof GovernedError) return e.code;
    throw e;
  }
  return undefined;
}

const TEXT = [
  'Some preamble the reviewer wrote.',
  '## Files Read',
  '- `src/a.ts`',
  '- `src/b.ts`',
  '- `src/*.ts`',
  '- `src/c.ts through src/f.ts`',
  '- `src/dir/`',
  '- `../etc/passwd`',
  '### Findings',
  '- `src/a.ts:12 [HIGH] [correctness] REQ-001 — Missing null check on input`',
  '- `src/a.ts:parseConfig [CRITICAL] [preservation] — Removes the export command`',
  '- `src/b.ts [LOW] [correctness] — File-level naming issue`',
  '- `src/b.ts:40 [MEDIUM] Off-by-one in loop bound REQ-002`',
  '- `src/b.ts:41 [SEVERE] [correctness] — unknown severity`',
  '- `src/b.ts:42 [HIGH] [security] — unknown class`',
  '- `[HIGH] [correctness] — no location`',
  '- `src/b.ts:43 [HIGH] [correctness] —`',
  '### REQ-ID Coverage',
  '- REQ-001: COVERED (src/a.ts:parseConfig)',
  '- REQ-002: NOT FOUND',
  '### Verdict',
  '**VETO**',
].join('\n');

describe('text_fallback strategy (docs/review-pass-protocol.md#reviewer-output-format, docs/review-pass-protocol.md#output-parsing-rules)', () => {
  const out = parseTextReviewerOutput('gemini', TEXT);

  it('keeps only exact repository-relative paths as read evidence', () => {
    expect(out.files_read).toEqual(['src/a.ts', 'src/b.ts']);
    expect(out.files_read_rejected).toBe(4);
    expect(out.read_evidence).toBe(true);
  });

  it('parses complete findings with the derived veto bit', () => {
    expect(out.findings).toHaveLength(4);
    const [a, b, c, d] = out.findings;
    expect(a).toMatchObject({ file: 'src/a.ts', line: 12, symbol: null, severity: 'HIGH', finding_class: 'correctness', req_id: 'REQ-001', description: 'Missing null check on input', veto: false, class_missing: false });
    expect(b).toMatchObject({ file: 'src/a.ts', line: null, symbol: 'parseConfig', severity: 'CRITICAL', finding_class: 'preservation', veto: true });
    expect(c).toMatchObject({ file: 'src/b.ts', line: null, symbol: null, severity: 'LOW' });
    // Downgrade: class tag missing → correctness + class_missing; REQ-ID extracted from the text.
    expect(d).toMatchObject({ line: 40, severity: 'MEDIUM', finding_class: 'correctness', class_missing: true, req_id: 'REQ-002' });
    for (const f of out.findings) {
      const { match_key: _m, class_missing: _c, ...seed } = f;
      expect(FindingSchema.safeParse(seed).success).toBe(true);
    }
  });

  it('rejects incomplete findings (unknown severity, unknown class, no location, empty description)', () => {
    expect(out.rejected_findings).toBe(4);
    expect(out.downgraded_findings).toBe(1);
  });

  it('reads REQ-ID coverage and the verdict', () => {
    expect(out.req_coverage).toEqual({
      all_covered: false,
      not_applicable: false,
      entries: [
        { req_id: 'REQ-001', status: 'COVERED', location: 'src/a.ts:parseConfig' },
        { req_id: 'REQ-002', status: 'NOT_FOUND', location: null },
      ],
    });
    expect(out.verdict).toBe('VETO');
    expect(out.structured).toBe(true);
  });

  it('NONE, ALL COVERED and CLEAN', () => {
    const o = parseTextReviewerOutput('r', '### Files Read\n- a.ts\n### Findings\nNONE\n- NONE\n### REQ-ID Coverage\nALL COVERED\n### Verdict\nCLEAN\n');
    expect(o.findings).toEqual([]);
    expect(o.rejected_findings).toBe(0);
    expect(o.req_coverage?.all_covered).toBe(true);
    expect(o.verdict).toBe('CLEAN');
  });

  it('scans freeform text when there is no Findings section', () => {
    const o = parseTextReviewerOutput('r', 'I looked.\nsrc/x.ts:3 [HIGH] [correctness] — wrong sum\nblah [x]\n');
    expect(o.findings).toHaveLength(1);
    expect(o.structured).toBe(true);
    expect(o.verdict).toBeNull();
  });

  it('no structured data at all → structured false (health LOW, docs/review-pass-protocol.md#output-parsing-rules)', () => {
    const o = parseTextReviewerOutput('r', 'Looks fine to me!');
    expect(o.structured).toBe(false);
    expect(o.findings).toEqual([]);
  });

  it('an unknown verdict word is no verdict', () => {
    expect(parseTextReviewerOutput('r', '### Verdict\nLGTM').verdict).toBeNull();
  });
});

describe('parseLocation / parseFindingEntry', () => {
  it.each([
    ['src/a.ts:12', { file: 'src/a.ts', line: 12, symbol: null }],
    ['src/a.ts:Foo.bar', { file: 'src/a.ts', line: null, symbol: 'Foo.bar' }],
    ['src/a.ts', { file: 'src/a.ts', line: null, symbol: null }],
    ['src/a.ts:0', null],
    ['src/a.ts:', null],
    [':12', null],
    ['src/a.ts:12-14', null],
  ])('%s', (loc, expected) => {
    expect(parseLocation(loc)).toEqual(expected);
  });

  it('plain prose is not a finding', () => {
    expect(parseFindingEntry('r', 'This looks good').kind).toBe('not_a_finding');
  });

  it('case-insensitive tags are normalised', () => {
    const r = parseFindingEntry('r', 'a.ts:1 [high] [Scope] — x y z');
    expect(r.kind === 'finding' && r.finding.severity === 'HIGH' && r.finding.finding_class === 'scope').toBe(true);
  });
});

describe('isExactReadPath (docs/review-pass-protocol.md#reviewer-output-format read evidence)', () => {
  it.each([
    ['src/a.ts', true],
    ['README.md', true],
    ['src/*.ts', false],
    ['src/', false],
    ['/etc/passwd', false],
    ['src/../x', false],
    ['a.ts through z.ts', false],
    ['a.ts to z.ts', false],
    ['src\\a.ts', false],
    ['', false],
  ])('%s → %s', (p, ok) => {
    expect(isExactReadPath(p)).toBe(ok);
  });
});

describe('JSON strategy (docs/review-pass-protocol.md#output-parsing-rules primary)', () => {
  const good = {
    files_read: ['src/a.ts', 'src/*'],
    findings: [
      { file: './src/a.ts', line: 3, symbol: null, severity: 'CRITICAL', finding_class: 'scope', req_id: null, description: 'drops a directive' },
    ],
    req_coverage: null,
    verdict: 'VETO',
  };

  it('parses a valid output; veto derived; path normalised', () => {
    const o = parseJsonReviewerOutput('claude', JSON.stringify(good));
    expect(o.findings[0]).toMatchObject({ file: 'src/a.ts', veto: true, reviewer: 'claude' });
    expect(o.files_read).toEqual(['src/a.ts']);
    expect(o.files_read_rejected).toBe(1);
  });

  it.each([
    ['unknown key', JSON.stringify({ ...good, extra: 1 })],
    ['reviewer-supplied veto', JSON.stringify({ ...good, findings: [{ ...good.findings[0], veto: false }] })],
    ['bad severity', JSON.stringify({ ...good, findings: [{ ...good.findings[0], severity: 'BAD' }] })],
    ['float line', JSON.stringify({ ...good, findings: [{ ...good.findings[0], line: 1.5 }] })],
    ['duplicate key', '{"verdict":"CLEAN","verdict":"VETO","files_read":[],"findings":[],"req_coverage":null}'],
    ['not JSON', 'hello'],
  ])('%s → review_pass_output_invalid', (_name, text) => {
    expect(codeOf(() => parseJsonReviewerOutput('claude', text))).toBe('review_pass_output_invalid');
  });

  it('a json-strategy run whose output is not review JSON falls back to text parsing (docs/review-pass-protocol.md#output-parsing-rules)', () => {
    const o = parseReviewerRunOutput('claude', { strategy: 'json', text: '### Findings\n- a.ts:1 [LOW] [correctness] — typo here\n### Verdict\nFOUND_ISSUES' });
    expect(o.strategy).toBe('text_fallback');
    expect(o.findings).toHaveLength(1);
  });
});

describe('governed opaque output adapter (docs/reviewers.md#reviewer-output, docs/review-pass.md#review-protocols)', () => {
  const out = {
    verdict: 'DIRTY',
    coverage_matched: true,
    findings: [
      { code: 'authority_mismatch', class: 'authority', severity: 'CRITICAL', refs: ['AUTH-1', 'DIR-2'] },
      { code: 'test_gap', class: 'correctness', severity: 'MEDIUM', refs: ['EVD-1'] },
    ],
  };

  it('maps code+refs to the match key and derives the veto', () => {
    const o = parseGovernedReviewerOutput('coverage', out);
    expect(o.findings[0]).toMatchObject({ file: 'authority_mismatch', symbol: 'AUTH-1,DIR-2', match_key: 'authority_mismatch|AUTH-1,DIR-2', veto: true });
    expect(o.findings[1]?.veto).toBe(false);
    expect(o.verdict).toBe('VETO');
    expect(o.read_evidence).toBe(true);
    expect(governedMatchKey('x', ['B-1', 'A-1'])).toBe('x|A-1,B-1');
  });

  it.each([
    ['CLEAN with findings', { ...out, verdict: 'CLEAN' }],
    ['DIRTY without findings', { ...out, findings: [] }],
    ['unsorted refs', { ...out, findings: [{ ...out.findings[1], refs: ['EVD-2', 'EVD-1'] }] }],
    ['duplicate refs', { ...out, findings: [{ ...out.findings[1], refs: ['EVD-1', 'EVD-1'] }] }],
    ['5 refs', { ...out, findings: [{ ...out.findings[1], refs: ['A-1', 'A-2', 'A-3', 'A-4', 'A-5'] }] }],
    ['unknown code', { ...out, findings: [{ ...out.findings[1], code: 'nope' }] }],
    ['text smuggled in a ref', { ...out, findings: [{ ...out.findings[1], refs: ['has spaces'] }] }],
    ['extra key', { ...out, note: 'x' }],
  ])('%s → review_pass_governed_output_invalid', (_n, value) => {
    expect(codeOf(() => parseGovernedReviewerOutput('coverage', value))).toBe('review_pass_governed_output_invalid');
  });
});

describe('isVetoShape (docs/review-pass-protocol.md#classification VETO classes)', () => {
  it.each([
    ['CRITICAL', 'preservation', true],
    ['CRITICAL', 'scope', true],
    ['CRITICAL', 'authority', true],
    ['CRITICAL', 'release', true],
    ['CRITICAL', 'correctness', false],
    ['HIGH', 'preservation', false],
  ] as const)('%s %s → %s', (s, c, v) => {
    expect(isVetoShape(s, c)).toBe(v);
  });
});
