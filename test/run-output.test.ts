// docs/reviewers.md#reviewer-output: the strict parser of reviewer stdout (src/core/review-output.ts), attacked rule by rule.
// Every refusal has its own code, and no rejected value ever appears in the error (message or IDs).
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/core/canonical.js';
import { isGovernedError } from '../src/core/errors.js';
import { parseReviewOutput, REVIEW_OUTPUT_SCHEMA, type CoverageObject } from '../src/core/review-output.js';

const CANARY = 'CANARY-OUTPUT-91c2';
const COVERAGE: CoverageObject = {
  atoms: ['ATOM-1', 'ATOM-2', 'ATOM-3'],
  authorities: [],
  changes: ['CHG-0123456789abcdef01234567'],
  criteria: ['AC-1', 'AC-2'],
  directives: ['DIR-1', 'DIR-2'],
  evidence: ['EVD-1'],
  implementations: ['IMP-1'],
  relations: ['ATOM-1>AC-1', 'ATOM-1>DIR-1', 'DIR-1>AC-1'],
  scope_versions: ['SCOPE-1'],
  sources: ['SRC-1'],
  surfaces: [],
  targets: ['TGT-1', 'TGT-3'],
  tombstones: [],
};

type F = { code: string; class: string; severity: string; refs: string[] };
const f = (over: Partial<F> = {}): F => ({ code: 'correctness', class: 'correctness', severity: 'HIGH', refs: ['DIR-1'], ...over });
const out = (o: Record<string, unknown> = {}): Record<string, unknown> => ({
  coverage: COVERAGE,
  findings: [],
  schema: REVIEW_OUTPUT_SCHEMA,
  verdict: 'CLEAN',
  ...o,
});
const bytes = (v: unknown, suffix = '\n'): Buffer => Buffer.from(canonicalJson(v) + suffix, 'utf8');

function codeOf(stdout: Uint8Array): { code: string; text: string } {
  try {
    parseReviewOutput(stdout, COVERAGE);
  } catch (e) {
    if (!isGovernedError(e)) throw e;
    return { code: e.code, text: `${e.message} ${JSON.stringify(e.toJSON())}` };
  }
  return { code: 'accepted', text: '' };
}

function expectRefused(stdout: Uint8Array, code: string): void {
  const r = codeOf(stdout);
  expect(r.code).toBe(code);
  expect(r.text).not.toContain(CANARY);
}

describe('accepted outputs', () => {
  it('CLEAN: the canonical object echoing the coverage, with or without one trailing newline', () => {
    expect(parseReviewOutput(bytes(out()), COVERAGE)).toEqual({ verdict: 'CLEAN', findings: [], vetoes: [] });
    expect(parseReviewOutput(bytes(out(), ''), COVERAGE).verdict).toBe('CLEAN');
  });

  it('DIRTY: findings kept sorted; vetoes are exactly the CRITICAL preservation/scope/authority/release ones', () => {
    const veto = f({ class: 'scope', code: 'scope_omission', severity: 'CRITICAL', refs: ['ATOM-3', 'DIR-2'] });
    const critCorrectness = f({ severity: 'CRITICAL' });
    const findings = [f(), critCorrectness, veto].sort((a, b) => (canonicalJson(a) < canonicalJson(b) ? -1 : 1));
    const r = parseReviewOutput(bytes(out({ verdict: 'DIRTY', findings })), COVERAGE);
    expect(r.verdict).toBe('DIRTY');
    expect(r.findings).toEqual(findings);
    expect(r.vetoes).toEqual([veto]);
  });

  it('32 findings is the limit, and a finding may carry 4 refs', () => {
    const all: F[] = [];
    for (const severity of ['CRITICAL', 'HIGH', 'INFO', 'LOW'])
      for (const code of ['correctness', 'evidence_gap', 'other', 'release_blocker', 'scope_omission', 'source_mapping', 'test_gap', 'trace_gap'])
        all.push(f({ code, severity, refs: ['AC-1', 'DIR-1', 'SCOPE-1', 'SRC-1'] }));
    const findings = all.sort((a, b) => (canonicalJson(a) < canonicalJson(b) ? -1 : 1));
    expect(findings).toHaveLength(32);
    expect(parseReviewOutput(bytes(out({ verdict: 'DIRTY', findings })), COVERAGE).findings).toHaveLength(32);
  });
});

describe('refused outputs, each with its code (docs/reviewers.md#reviewer-output)', () => {
  it('not canonical: whitespace, key order, two trailing newlines, CRLF, BOM, empty, not UTF-8, two objects, free text', () => {
    const text = canonicalJson(out());
    const cases: Buffer[] = [
      Buffer.from(JSON.stringify(out(), null, 1)),
      Buffer.from(JSON.stringify({ verdict: 'CLEAN', schema: REVIEW_OUTPUT_SCHEMA, findings: [], coverage: COVERAGE })),
      Buffer.from(`${text}\n\n`),
      Buffer.from(`${text}\r\n`),
      Buffer.from(`\ufeff${text}`),
      Buffer.from(` ${text}`),
      Buffer.alloc(0),
      Buffer.from('\n'),
      Buffer.concat([Buffer.from(text.slice(0, -1)), Buffer.from([0xff]), Buffer.from('}')]),
      Buffer.from(`${text}\n${text}\n`),
      Buffer.from(`${text}${text}`),
      Buffer.from(`Looks good to me. ${CANARY}\n`),
    ];
    for (const c of cases) expectRefused(c, 'review_output_not_canonical');
  });

  it('duplicate keys are not canonical (the second key would shadow the first)', () => {
    const text = canonicalJson(out());
    expectRefused(Buffer.from(text.replace('"verdict":"CLEAN"', '"verdict":"DIRTY","verdict":"CLEAN"')), 'review_output_not_canonical');
  });

  it('schema: not an object, extra key (free text), missing key, wrong schema literal, wrong types', () => {
    expectRefused(bytes([out()]), 'review_output_schema_invalid');
    expectRefused(bytes(out({ note: CANARY })), 'review_output_schema_invalid');
    const { findings: _f, ...missing } = out();
    expectRefused(bytes(missing), 'review_output_schema_invalid');
    expectRefused(bytes(out({ schema: 'governed.review-output/v2' })), 'review_output_schema_invalid');
    expectRefused(bytes(out({ verdict: 1 })), 'review_output_schema_invalid');
    expectRefused(bytes(out({ findings: {} })), 'review_output_schema_invalid');
    expectRefused(bytes(out({ coverage: [] })), 'review_output_schema_invalid');
    expectRefused(bytes(out({ coverage: { ...COVERAGE, atoms: [1, 2] } })), 'review_output_schema_invalid');
    expectRefused(bytes(out({ verdict: 'DIRTY', findings: [{ ...f(), detail: CANARY }] })), 'review_output_schema_invalid');
    expectRefused(bytes(out({ verdict: 'DIRTY', findings: ['DIR-1'] })), 'review_output_schema_invalid');
    expectRefused(bytes(out({ verdict: 'DIRTY', findings: [f({ refs: [] })] })), 'review_output_schema_invalid');
    expectRefused(bytes(out({ verdict: 'DIRTY', findings: [f({ refs: ['AC-1', 'AC-2', 'DIR-1', 'DIR-2', 'SRC-1'] })] })), 'review_output_schema_invalid');
  });

  it('bad enum: verdict, code, class, severity (free text included)', () => {
    expectRefused(bytes(out({ verdict: 'LGTM' })), 'review_output_enum_invalid');
    expectRefused(bytes(out({ verdict: 'DIRTY', findings: [f({ code: CANARY })] })), 'review_output_enum_invalid');
    expectRefused(bytes(out({ verdict: 'DIRTY', findings: [f({ class: 'style' })] })), 'review_output_enum_invalid');
    expectRefused(bytes(out({ verdict: 'DIRTY', findings: [f({ severity: 'BLOCKER' })] })), 'review_output_enum_invalid');
    expectRefused(bytes(out({ verdict: 'DIRTY', findings: [f({ severity: 'high' })] })), 'review_output_enum_invalid');
  });

  it('coverage: a kind missing or extra, an ID missing or extra', () => {
    const { surfaces: _s, ...noKind } = COVERAGE;
    expectRefused(bytes(out({ coverage: noKind })), 'review_output_coverage_mismatch');
    expectRefused(bytes(out({ coverage: { ...COVERAGE, secrets: [] } })), 'review_output_coverage_mismatch');
    expectRefused(bytes(out({ coverage: { ...COVERAGE, atoms: ['ATOM-1', 'ATOM-2'] } })), 'review_output_coverage_mismatch');
    expectRefused(bytes(out({ coverage: { ...COVERAGE, atoms: ['ATOM-1', 'ATOM-2', 'ATOM-3', 'ATOM-4'] } })), 'review_output_coverage_mismatch');
    expectRefused(bytes(out({ coverage: { ...COVERAGE, relations: [] } })), 'review_output_coverage_mismatch');
    expectRefused(bytes(out({ coverage: { ...COVERAGE, surfaces: ['SURF-1'] } })), 'review_output_coverage_mismatch');
  });

  it('unsorted or duplicate: coverage lists, refs, findings', () => {
    expectRefused(bytes(out({ coverage: { ...COVERAGE, atoms: ['ATOM-2', 'ATOM-1', 'ATOM-3'] } })), 'review_output_unsorted');
    expectRefused(bytes(out({ coverage: { ...COVERAGE, atoms: ['ATOM-1', 'ATOM-1', 'ATOM-2', 'ATOM-3'] } })), 'review_output_unsorted');
    expectRefused(bytes(out({ verdict: 'DIRTY', findings: [f({ refs: ['DIR-2', 'DIR-1'] })] })), 'review_output_unsorted');
    expectRefused(bytes(out({ verdict: 'DIRTY', findings: [f({ refs: ['DIR-1', 'DIR-1'] })] })), 'review_output_unsorted');
    expectRefused(bytes(out({ verdict: 'DIRTY', findings: [f({ severity: 'LOW' }), f({ severity: 'HIGH' })] })), 'review_output_unsorted');
    expectRefused(bytes(out({ verdict: 'DIRTY', findings: [f(), f()] })), 'review_output_unsorted');
  });

  it('refs: a path, a digest, a relation, free text are not IDs; an ID the view does not show is unknown', () => {
    for (const ref of ['src/export.ts', `sha256:${'ab'.repeat(32)}`, 'ATOM-1>DIR-1', CANARY.toLowerCase(), 'DIR 1', '']) {
      expectRefused(bytes(out({ verdict: 'DIRTY', findings: [f({ refs: [ref] })] })), 'review_output_ref_invalid');
    }
    expectRefused(bytes(out({ verdict: 'DIRTY', findings: [f({ refs: ['DIR-999'] })] })), 'review_output_ref_unknown');
    expectRefused(bytes(out({ verdict: 'DIRTY', findings: [f({ refs: ['SHA-3f2a9c0123456789abcdef01'] })] })), 'review_output_ref_unknown');
  });

  it('at most 32 findings', () => {
    const all: F[] = [];
    for (const severity of ['CRITICAL', 'HIGH', 'INFO', 'LOW', 'MEDIUM'])
      for (const code of ['correctness', 'evidence_gap', 'other', 'release_blocker', 'scope_omission', 'source_mapping', 'test_gap'])
        all.push(f({ code, severity }));
    const findings = all.slice(0, 33).sort((a, b) => (canonicalJson(a) < canonicalJson(b) ? -1 : 1));
    expectRefused(bytes(out({ verdict: 'DIRTY', findings })), 'review_output_too_many_findings');
  });

  it('CLEAN with findings, DIRTY without', () => {
    expectRefused(bytes(out({ verdict: 'CLEAN', findings: [f()] })), 'review_output_verdict_inconsistent');
    expectRefused(bytes(out({ verdict: 'DIRTY', findings: [] })), 'review_output_verdict_inconsistent');
  });
});
