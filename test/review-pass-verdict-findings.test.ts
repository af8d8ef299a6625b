// `review-pass` (docs/review-pass.md#review-protocols, docs/review-pass-protocol.md#reviewer-output-format, docs/review-pass-protocol.md#output-parsing-rules, docs/review-pass-protocol.md#graceful-degradation; docs/threat-model.md#rules-that-hold-everywhere fail closed). A reviewer
// that declares VETO (or FOUND_ISSUES) but whose every finding line is rejected by the parser (here
// `a.ts:0`: line 0 is not a line) contributed zero findings, so before the fix two such reviewers
// made the review converge CLEAN and `governed review-pass` exit 0 — a VETO turned into a clean
// vote. Such an output must not count as a usable clean answer.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseReviewerRunOutput } from '../src/protocols/review-pass/parse-reviewer-run.js';
import { makeTempRepo } from './helpers/git-repo.js';
import { runCli } from './helpers/cli.js';

const VETO_TEXT = [
  '### Files Read',
  '- `a.ts`',
  '### Findings',
  '- `a.ts:0 [CRITICAL] [scope] — the change drops a required surface`',
  '### Verdict',
  'VETO',
  '',
].join('\n');

describe('a reviewer verdict that its findings do not support', () => {
  it('text_fallback: VETO / FOUND_ISSUES with every finding rejected is not usable structured output', () => {
    const veto = parseReviewerRunOutput('a', { strategy: 'text_fallback', text: VETO_TEXT });
    expect(veto.rejected_findings).toBe(1);
    expect(veto.findings).toHaveLength(0);
    expect(veto.structured).toBe(false);
    const found = parseReviewerRunOutput('a', { strategy: 'text_fallback', text: VETO_TEXT.replace('VETO', 'FOUND_ISSUES') });
    expect(found.structured).toBe(false);
  });

  it('json: a FOUND_ISSUES / VETO verdict with no findings is not usable either', () => {
    const text = JSON.stringify({ files_read: ['a.ts'], findings: [], req_coverage: null, verdict: 'VETO' });
    expect(parseReviewerRunOutput('a', { strategy: 'json', text }).structured).toBe(false);
  });

  it('unchanged: a CLEAN verdict with no findings, and a VETO with a readable finding, stay usable', () => {
    const clean = parseReviewerRunOutput('a', { strategy: 'text_fallback', text: '### Files Read\n- `a.ts`\n### Findings\nNONE\n### Verdict\nCLEAN\n' });
    expect(clean.structured).toBe(true);
    const real = parseReviewerRunOutput('a', { strategy: 'text_fallback', text: VETO_TEXT.replace('a.ts:0', 'a.ts:3') });
    expect(real.structured).toBe(true);
    expect(real.findings).toHaveLength(1);
  });

  it('the CLI: two reviewers that both say VETO never make the review CLEAN (exit 9, not 0)', () => {
    const repo = makeTempRepo({ prefix: 'rtd-verdict-' });
    const out = `${repo.root}-out`;
    try {
      repo.write('a.ts', 'export const a = 1;\n');
      repo.write('r.sh', `cat >/dev/null\nprintf '%s' '${VETO_TEXT}'\n`);
      repo.write(
        'review-pass.yaml',
        [
          'tools:',
          '  a: { command: ["/usr/bin/bash", "{repo}/r.sh"], parse: text_fallback, timeout: 20s, retries: 0 }',
          '  b: { command: ["/usr/bin/bash", "{repo}/r.sh"], parse: text_fallback, timeout: 20s, retries: 0 }',
          'stages:',
          '  development: { reviewers: [a, b], arbiter: null }',
          '',
        ].join('\n'),
      );
      repo.commitAll();
      const r = runCli(['review-pass', '--stage', 'development', '--repo', repo.root, '--out', out, '--json'], { cwd: repo.root });
      expect(r.stdout.trim().split('\n')).toHaveLength(1);
      const o = JSON.parse(r.stdout) as { result: string };
      expect(o.result, r.stdout.slice(0, 400)).toBe('NOT_CLEAN');
      expect(r.code).toBe(9);
      expect(existsSync(join(out, 'result.json'))).toBe(true);
      expect((JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as { result: string }).result).toBe('NOT_CLEAN');
    } finally {
      repo.cleanup();
      rmSync(out, { recursive: true, force: true });
    }
  });
});
