// Small units of the orchestrator: confined repository reads, the lead's deterministic checks, the
// reviewer-JSON reader, the arbiter's answer, and how an execution becomes an engine run.
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkLocation, crossReference, sameIssue, snippetOccurs } from '../src/flows/review-pass/lead.js';
import { isRepoFile, readRepoText, readRepoTexts, validateFiles } from '../src/flows/review-pass/repo-files.js';
import { extractJsonText, parseReviewerJson } from '../src/flows/review-pass/reviewer-json.js';
import { arbiterDecision, engineRun } from '../src/flows/review-pass/protocol-review-pass.js';
import { resolveConfig } from '../src/flows/review-pass/config-load.js';
import { mapBounded } from '../src/flows/review-pass/pool.js';
import type { ReviewerExecution } from '../src/flows/review-pass/run-reviewer.js';
import { GovernedError } from '../src/core/errors.js';
import { makeTempDir } from './helpers/temp.js';

const root = makeTempDir('governed-orch-units-');
const outside = makeTempDir('governed-orch-units-out-');
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});
mkdirSync(join(root, 'src'));
writeFileSync(join(root, 'src', 'a.js'), 'line1\n  const x = 1;\nline3\n');
writeFileSync(join(outside, 'secret.txt'), 'outside\n');
symlinkSync(join(outside, 'secret.txt'), join(root, 'src', 'link.txt'));
writeFileSync(join(root, 'bin.dat'), Buffer.from([0xff, 0xfe, 0x00]));

describe('confined repository reads', () => {
  it('reads repository files, by relative or sandbox path; refuses escapes', () => {
    expect(readRepoText(root, 'src/a.js')).toBe('line1\n  const x = 1;\nline3\n');
    expect(readRepoText(root, './src/a.js')).not.toBeNull();
    expect(readRepoText(root, '/repo/src/a.js')).not.toBeNull();
    expect(readRepoText(root, '../x')).toBeNull();
    expect(readRepoText(root, join(outside, 'secret.txt'))).toBeNull();
    expect(readRepoText(root, 'src/link.txt')).toBeNull(); // a link leaving the repository
    expect(readRepoText(root, 'src')).toBeNull();
    expect(readRepoText(root, 'bin.dat')).toBeNull(); // not UTF-8
    expect(isRepoFile(root, 'bin.dat')).toBe(true);
    expect(isRepoFile(root, 'src/link.txt')).toBe(false);
  });
  it('a round reads at most its byte budget', () => {
    const texts = readRepoTexts(root, ['src/a.js', 'src/a.js', './src/a.js'], 30);
    expect(texts['src/a.js']).not.toBeNull();
    expect(texts['./src/a.js']).toBeNull();
  });
  it('--files validation: exact code, no partial acceptance', () => {
    expect(validateFiles(root, ['src/a.js', 'src/a.js'])).toEqual(['src/a.js']);
    for (const bad of ['src', '/etc/passwd', 'src/../src/a.js', 'src/link.txt', 'nope.js']) {
      let code: string | undefined;
      try {
        validateFiles(root, ['src/a.js', bad]);
      } catch (e) {
        code = (e as GovernedError).code;
      }
      expect(code).toBe('orchestrator_files_invalid');
    }
  });
});

describe('the lead (weave / simple)', () => {
  it('location check: missing file and line past the end are false', () => {
    expect(checkLocation(root, 'src/a.js', 3).verification).toBe('exists');
    expect(checkLocation(root, 'src/a.js', 99)).toEqual({ verification: 'false', note: 'the referenced line is beyond the end of the file' });
    expect(checkLocation(root, 'src/gone.js', 1).verification).toBe('false');
    expect(checkLocation(root, null, null).verification).toBe('exists');
  });
  it('snippet check: every non-empty line must occur', () => {
    const text = 'line1\n  const x = 1;\nline3\n';
    expect(snippetOccurs(text, 'const x = 1;')).toBe(true);
    expect(snippetOccurs(text, 'line1\n\n  line3  ')).toBe(true);
    expect(snippetOccurs(text, 'const y = 2;')).toBe(false);
    expect(snippetOccurs(text, '   \n')).toBe(false);
  });
  it('cross-reference by the docs/review-pass-protocol.md#matching-rules rules, across reviewers only, transitively', () => {
    const f = (reviewer: string, line: number, description = 'x') => ({ reviewer, file: 'src/a.js', line, severity: 'HIGH' as const, description });
    expect(sameIssue(f('a', 10), f('b', 29))).toBe(true);
    expect(sameIssue(f('a', 10), f('b', 30))).toBe(false);
    expect(sameIssue(f('a', 10), f('a', 11))).toBe(false);
    const groups = crossReference([f('a', 10), f('b', 25), f('c', 40), f('a', 100)]);
    expect(groups.map((g) => g.map((m) => `${m.reviewer}${m.line}`).sort())).toEqual([['a10', 'b25', 'c40'], ['a100']]);
  });
});

describe('reviewer JSON', () => {
  it('whole stdout or exactly one fenced block', () => {
    expect(extractJsonText(' {"a":1} ')).toBe('{"a":1}');
    expect(extractJsonText('Here:\n```json\n{"a":1}\n```\n')).toBe('{"a":1}');
    expect(extractJsonText('```json\n{"a":1}\n```\n```json\n{"a":2}\n```')).toBeNull();
    expect(extractJsonText('no json')).toBeNull();
  });
  it('floats allowed, duplicate keys and non-objects refused', () => {
    expect(parseReviewerJson('{"confidence":0.8}')).toEqual({ confidence: 0.8 });
    expect(parseReviewerJson('{"a":1,"a":2}')).toBeNull();
    expect(parseReviewerJson('{"a":{"b":1,"b":1}}')).toBeNull();
    expect(parseReviewerJson('[1,2]')).toBeNull();
    expect(parseReviewerJson('{"a":')).toBeNull();
  });
});

describe('review-pass wiring', () => {
  it('the arbiter answers on its first line', () => {
    expect(arbiterDecision('CONFIRMED\nbecause')).toBe('FIX');
    expect(arbiterDecision('\n**DISMISSED** — not a bug')).toBe('DISMISS');
    expect(arbiterDecision('I think CONFIRMED')).toBeNull();
    expect(arbiterDecision('')).toBeNull();
  });
  it('executions become engine runs by parse strategy', () => {
    const c = resolveConfig({}, null);
    const x = (over: Partial<ReviewerExecution>): ReviewerExecution => ({
      reviewer: 'r', tool: 't', purpose: 'review', round: 1, execution_id: 'EXE-1', status: 'ok', failure: null,
      attempts: 1, exit_code: 0, exit_class: 'exited_zero', duration_ms: 1, stdout: 'x', network: false, ...over,
    });
    expect(engineRun(c.tools.gemini!, x({}))).toEqual({ slot: 'r', execution_id: 'EXE-1', status: 'ok', output: { strategy: 'text_fallback', text: 'x' } });
    expect(engineRun(c.tools.claude!, x({}))).toMatchObject({ output: { strategy: 'json' } });
    expect(engineRun(c.tools.gemini!, x({ status: 'timeout', stdout: '' }))).toEqual({ slot: 'r', execution_id: 'EXE-1', status: 'timeout' });
    // A tool run that did not review becomes unstructured output (the engine then degrades it).
    expect(engineRun(c.tools.tsc!, x({ stdout: "error TS5058: The specified path does not exist: '/repo'.\n" }))).toMatchObject({
      output: { strategy: 'text_fallback', text: '' },
    });
    // More text than the engine accepts is a failed run, not a crash of the round.
    expect(engineRun(c.tools.gemini!, x({ stdout: 'y'.repeat(1024 * 1024 + 1) }))).toMatchObject({ status: 'failed' });
  });
  it('bounded parallelism keeps input order and the limit', async () => {
    let running = 0;
    let peak = 0;
    const out = await mapBounded([30, 10, 20, 5], 2, async (ms, i) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, ms));
      running--;
      return i;
    });
    expect(out).toEqual([0, 1, 2, 3]);
    expect(peak).toBe(2);
  });
});
