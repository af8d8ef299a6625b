// Real-tool reports (runner/reviewers/adapters) → the findings each protocol engine accepts.
//
// A tool diagnostic is an observed machine result, so every protocol records it as such:
//   review-pass  the docs/review-pass-protocol.md#reviewer-output-format JSON output: class `correctness`, a severity from the diagnostic's level,
//                the files the tool read as `files_read` (health score docs/review-pass-protocol.md#health-score), verdict FOUND_ISSUES iff
//                there is a diagnostic;
//   two-pass     a pass-1 ReviewOutput whose findings are *machine routings* (verdict confirmed,
//                validated_by machine, evidence = the exact check and observed failure — the seed's
//                field note allows exactly this for observed failures);
//   weave        a lane's findings with Critical / Important / Suggestion;
//   simple       findings under the finding contract: file:line, the source line as snippet,
//                verification `command`, a one-line fix direction.
// Severity mapping (documented in docs/review-pass.md): a tsc error is a real defect the compiler
// proves; an ESLint error is a project rule the project chose to enforce; a warning is advisory; an
// ESLint fatal message is a file that does not parse.
import { SANDBOX_REPO } from '../../../runner/repo-sandbox.js';
import { parseEslintJson, parseTscOutput, type DiagnosticLevel, type ToolDiagnostic, type ToolReport } from '../../../runner/reviewers/adapters/index.js';
import { canonicalJson } from '../../core/canonical.js';
import type { Severity } from '../../protocols/review-pass/index.js';

/** The parse strategies that are real tools. */
export function isToolStrategy(parse: string): parse is 'tsc' | 'eslint' {
  return parse === 'tsc' || parse === 'eslint';
}

/** Parse a tool's stdout; null when the run is unusable (not the tool's format, or configuration errors). */
export function toolReportOf(parse: 'tsc' | 'eslint', stdout: string): ToolReport | null {
  const report = parse === 'tsc' ? parseTscOutput(stdout, SANDBOX_REPO) : parseEslintJson(stdout, SANDBOX_REPO);
  if (report === null || report.tool_errors > 0) return null;
  // tsc with no diagnostics and no listed file reviewed nothing (no tsconfig `include` match).
  if (report.files_read.length === 0) return null;
  return report;
}

import { REVIEW_PASS_FINDING_MAX_TEXT as MAX_TEXT } from '../../core/limits.js';
const clip = (s: string, n = MAX_TEXT): string => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);
const at = (d: ToolDiagnostic): string => `${d.file}${d.line === null ? '' : `:${d.line}`}${d.column === null ? '' : `:${d.column}`}`;
export const toolCheck = (r: ToolReport): string => (r.tool === 'tsc' ? 'tsc --noEmit' : 'eslint');

// --- review-pass -----------------------------------------------------------------------------
const RP_SEVERITY: Readonly<Record<ToolReport['tool'], Readonly<Record<DiagnosticLevel, Severity>>>> = {
  tsc: { fatal: 'HIGH', error: 'HIGH', warning: 'MEDIUM' },
  eslint: { fatal: 'HIGH', error: 'MEDIUM', warning: 'LOW' },
};
/** JsonReviewerOutputSchema allows at most 1000 findings; the most severe are kept. */
import { REVIEW_PASS_MAX_FINDINGS as MAX_REVIEW_PASS_FINDINGS } from '../../core/limits.js';

export function reviewPassOutputText(r: ToolReport): string {
  const rank = (d: ToolDiagnostic): number => ['fatal', 'error', 'warning'].indexOf(d.level);
  const kept = [...r.diagnostics].sort((a, b) => rank(a) - rank(b)).slice(0, MAX_REVIEW_PASS_FINDINGS);
  const findings = kept.map((d) => ({
    file: d.file,
    line: d.line,
    symbol: null,
    severity: RP_SEVERITY[r.tool][d.level],
    finding_class: 'correctness',
    req_id: null,
    description: clip(`${r.tool} ${d.message}`),
  }));
  return canonicalJson({
    files_read: [...r.files_read],
    findings,
    req_coverage: null,
    verdict: findings.length > 0 ? 'FOUND_ISSUES' : 'CLEAN',
  });
}

// --- two-pass --------------------------------------------------------------------------------
const TP_SEVERITY: Readonly<Record<ToolReport['tool'], Readonly<Record<DiagnosticLevel, string>>>> = {
  tsc: { fatal: 'P1', error: 'P1', warning: 'P2' },
  eslint: { fatal: 'P1', error: 'P2', warning: 'P3' },
};

export function twoPassPass1Output(r: ToolReport): Record<string, unknown> {
  return {
    schema_version: 'v1',
    findings: r.diagnostics.map((d, i) => ({
      id: i + 1,
      severity: TP_SEVERITY[r.tool][d.level],
      title: clip(d.message, 200),
      body: clip(`${toolCheck(r)} reported ${d.code} at ${at(d)}: ${d.message}`),
      file: d.file,
      line_start: d.line,
      line_end: d.line,
      confidence: 1,
      criterion: `${r.tool}:${d.code}`,
      verdict: 'confirmed',
      validated_by: 'machine',
      evidence: `observed: ${toolCheck(r)} reported ${d.code} at ${at(d)}`,
    })),
    checks_run: [`criterion: ${toolCheck(r)}`, ...r.files_read],
  };
}

interface Pass1FindingView {
  readonly id: number;
  readonly severity: string;
  readonly title: string;
  readonly body: string;
  readonly file: string | null;
  readonly line_start: number | null;
  readonly line_end: number | null;
  readonly confidence: number;
  readonly criterion: string;
}

/**
 * A machine verifier (two-pass pass 2 by the same tool that made pass 1): an independent re-run of
 * the tool confirms a finding it observes again at the same file, line and code, and rejects one it
 * does not reproduce. Only findings of that same tool can be judged this way (the caller checks).
 */
export function twoPassMachineVerify(pass1: { findings: readonly Pass1FindingView[] }, rerun: ToolReport): Record<string, unknown> {
  return {
    schema_version: 'v1',
    findings: pass1.findings.map((f) => {
      const code = f.criterion.slice(f.criterion.indexOf(':') + 1);
      const seen = rerun.diagnostics.some((d) => d.file === f.file && d.line === f.line_start && d.code === code);
      const where = `${f.file ?? '(global)'}${f.line_start === null ? '' : `:${f.line_start}`}`;
      return {
        id: f.id,
        severity: f.severity,
        title: f.title,
        body: f.body,
        file: f.file,
        line_start: f.line_start,
        line_end: f.line_end,
        confidence: f.confidence,
        criterion: f.criterion,
        verdict: seen ? 'confirmed' : 'rejected',
        validated_by: 'verifier',
        evidence: seen
          ? `re-observed: an independent re-run of ${toolCheck(rerun)} reported ${code} at ${where}`
          : `not reproduced: an independent re-run of ${toolCheck(rerun)} did not report ${code} at ${where}`,
      };
    }),
    checks_run: [`criterion: independent re-run of ${toolCheck(rerun)}`, ...rerun.files_read],
  };
}

// --- weave ------------------------------------------------------------------------------------
const WEAVE_SEVERITY: Readonly<Record<DiagnosticLevel, 'Critical' | 'Important' | 'Suggestion'>> = {
  fatal: 'Critical',
  error: 'Important',
  warning: 'Suggestion',
};

export interface LaneFinding {
  readonly file: string | null;
  readonly line: number | null;
  readonly severity: 'Critical' | 'Important' | 'Suggestion';
  readonly description: string;
  readonly recommendation: string;
}

export function weaveLaneFindings(r: ToolReport): LaneFinding[] {
  return r.diagnostics.map((d) => ({
    file: d.file,
    line: d.line,
    severity: WEAVE_SEVERITY[d.level],
    description: clip(`${r.tool} ${d.message}`),
    recommendation: `Resolve the ${toolCheck(r)} diagnostic ${d.code} at ${at(d)}.`,
  }));
}

// --- simple -----------------------------------------------------------------------------------
const SIMPLE_SEVERITY: Readonly<Record<ToolReport['tool'], Readonly<Record<DiagnosticLevel, string>>>> = {
  tsc: { fatal: 'HIGH', error: 'MEDIUM', warning: 'LOW' },
  eslint: { fatal: 'HIGH', error: 'LOW', warning: 'INFO' },
};

/** The source line a diagnostic points at (the finding contract's snippet, ≤ 6 lines). */
function snippetOf(text: string | null, line: number | null): string | null {
  if (text === null || line === null) return null;
  const l = text.split('\n')[line - 1];
  return l === undefined || l.trim() === '' ? null : clip(l.replace(/\r$/, ''), 500);
}

export function simpleFindings(r: ToolReport, prefix: string, texts: Readonly<Record<string, string | null>>): Record<string, unknown>[] {
  return r.diagnostics.map((d, i) => ({
    finding_id: `${prefix}-${String(i + 1).padStart(3, '0')}`,
    title: clip(d.message, 200),
    file: d.file,
    line: d.line,
    snippet: snippetOf(texts[d.file] ?? null, d.line),
    verification: { method: 'command', detail: `${toolCheck(r)} reported ${d.code} at ${at(d)}` },
    severity: SIMPLE_SEVERITY[r.tool][d.level],
    fix_direction: `Resolve ${r.tool} ${d.code} at ${at(d)}.`,
    claim_kind: 'other',
    trigger: null,
    decision_impact: 'routine',
  }));
}
