// Reviewer prompts (pure). They reach a reviewer through stdin or the read-only prompt file, never
// argv (docs/review-pass.md#review-protocols). Shapes follow the seeds:
//   review-pass  docs/review-pass-protocol.md#reviewer-output-format envelope (Review Context, Review Lens, mandatory Output Format);
//                the JSON form of the same four sections when the tool parses `json`;
//   two-pass     two-pass-review.txt Pass 1 (artifact, criteria, scope, ReviewOutput rules) and Pass 2
//                (the reviewer's full Finding array; verdicts; "do not add findings");
//   weave        weave-review.txt Phase 3 role preambles (Maintainer / Skeptic / Builder) on one shared
//                context packet;
//   simple       simple-review.txt Reviewer Prompt Contract (invocation id, output_mode, pair,
//                review_type, finding_id_prefix, absolute scope paths, baseline, finding contract,
//                Coverage) and the rebuttal prompt (one verdict per finding_id);
//   arbiter      docs/review-pass-protocol.md#arbiter-decisions (finding, supporters, code ±20 lines; CONFIRMED or DISMISSED).
// Every prompt says the repository is read-only and that the orchestrator never edits code.
import { SANDBOX_REPO } from '../../../runner/repo-sandbox.js';
import type { Stage } from '../../protocols/review-pass/index.js';

export interface PromptContext {
  readonly stage: Stage;
  readonly files: readonly string[];
  readonly files_truncated: boolean;
  readonly lenses: readonly string[];
  readonly req_ids: readonly string[];
  readonly deferred_req_ids: readonly string[];
}

/** docs/review-pass-protocol.md#stages-and-their-roles lens checks for the standard stages (the role stages never run non-governed rounds). */
const LENS_CHECKS: Readonly<Record<string, string>> = {
  correctness: 'logic matches intent; null checks on external inputs; off-by-one in loops; error paths handled; no silent failures',
  completeness: 'all planned items implemented; all REQ-IDs have code mappings; no TODO stubs in production paths',
  consistency: 'naming matches project conventions; import paths correct; no conflicts with existing code; no unintended side effects',
  pattern_compliance: 'same patterns as similar files in the project; read 2-3 similar files to compare',
  req_to_code: 'each REQ-ID maps to specific code (file + symbol); acceptance criteria traceable to implementation',
  test_validity: 'tests import and call the changed code; assertions execute after the code under test runs; mocks do not replace the logic tested',
  coverage: 'changed code paths are tested; negative cases exist; edge cases tested',
  assertion_quality: 'assertions check specific values, not just "not null"; no assertion that always passes',
  req_to_test: 'each REQ-ID maps to a specific test file and test name',
};

const READ_ONLY =
  `The repository is mounted read-only at ${SANDBOX_REPO}. Do not try to modify anything: the orchestrator ` +
  'never edits code, and auto-fix is out of scope. Report only.';

function fileList(ctx: PromptContext): string {
  const lines = ctx.files.map((f) => `- ${f}`);
  if (ctx.files_truncated) lines.push('- (list truncated; the whole repository is in scope)');
  return lines.length > 0 ? lines.join('\n') : '- (no files)';
}

function reviewContext(ctx: PromptContext, round: number, knownIssues: readonly string[]): string {
  return [
    '## Review Context',
    `Stage: ${ctx.stage}`,
    'Role: standard',
    `Round: ${round}`,
    `Repository: ${SANDBOX_REPO} (read-only; paths below are relative to it)`,
    'Files:',
    fileList(ctx),
    `REQ-IDs: ${ctx.req_ids.length > 0 ? ctx.req_ids.join(', ') : 'N/A for this review'}`,
    `Deferred REQ-IDs: ${ctx.deferred_req_ids.length > 0 ? ctx.deferred_req_ids.join(', ') : 'none'}`,
    `Known issues from previous rounds: ${knownIssues.length > 0 ? `\n${knownIssues.map((k) => `- ${k}`).join('\n')}` : 'none'}`,
    'Source artifacts: not provided (non-governed mode)',
    'Baseline ref: not provided (non-governed mode)',
    '',
    READ_ONLY,
  ].join('\n');
}

function lensSection(ctx: PromptContext): string {
  return ['## Review Lens', ...ctx.lenses.map((l) => `Lens: ${l}\nChecks to perform: ${LENS_CHECKS[l] ?? 'see the stage profile'}`)].join('\n');
}

const TEXT_FORMAT = [
  '## Output Format (MANDATORY)',
  '### Files Read',
  '- `path/to/exact-file`',
  '',
  'List every required repository-relative path separately. Ranges, directory shorthand, globs, and "A through B" do not count as read evidence.',
  '',
  '### Findings',
  '- `file:line [CRITICAL|HIGH|MEDIUM|LOW|INFO] [correctness|preservation|scope|authority|release] REQ-ID — description`',
  '  (REQ-ID is optional; include only if the finding relates to a specific requirement)',
  'or',
  'NONE',
  '',
  '### REQ-ID Coverage (skip if no REQ-IDs provided)',
  '- REQ-001: COVERED (path/to/file:symbol_name)',
  '- REQ-002: NOT FOUND',
  'or ALL COVERED or N/A',
  '',
  '### Verdict',
  'CLEAN | FOUND_ISSUES | VETO',
].join('\n');

const JSON_FORMAT = [
  '## Output Format (MANDATORY)',
  'Print exactly one JSON object and nothing else:',
  '{"files_read": ["path/to/exact-file"],',
  ' "findings": [{"file": "path", "line": 12, "symbol": null, "severity": "CRITICAL|HIGH|MEDIUM|LOW|INFO",',
  '               "finding_class": "correctness|preservation|scope|authority|release", "req_id": null, "description": "..."}],',
  ' "req_coverage": null,',
  ' "verdict": "CLEAN|FOUND_ISSUES|VETO"}',
  'No other keys. `line` and `symbol` may be null; `req_id` is "REQ-<digits>" or null; `req_coverage` is null',
  'or {"all_covered": bool, "not_applicable": bool, "entries": [{"req_id", "status": "COVERED|NOT_FOUND|DEFERRED", "location": str|null}]}.',
].join('\n');

export function reviewPassPrompt(ctx: PromptContext, round: number, knownIssues: readonly string[], json: boolean): string {
  return [reviewContext(ctx, round, knownIssues), '', lensSection(ctx), '', json ? JSON_FORMAT : TEXT_FORMAT, ''].join('\n');
}

export function arbiterPrompt(
  ctx: PromptContext,
  finding: { file: string; line: number | null; severity: string; finding_class: string; description: string; supporters: readonly string[]; others: readonly string[] },
  excerpt: string,
): string {
  return [
    '## Arbitration (docs/review-pass-protocol.md#arbiter-decisions)',
    `Stage: ${ctx.stage}`,
    `Finding: ${finding.file}${finding.line === null ? '' : `:${finding.line}`} [${finding.severity}] [${finding.finding_class}] — ${finding.description}`,
    `Reported by: ${finding.supporters.join(', ')}`,
    `Not reported by: ${finding.others.length > 0 ? finding.others.join(', ') : 'nobody else'}`,
    '',
    'Code (± 20 lines around the finding):',
    '```',
    excerpt,
    '```',
    '',
    READ_ONLY,
    '',
    '## Output Format (MANDATORY)',
    'First line: CONFIRMED or DISMISSED. Then one short paragraph of rationale.',
    '',
  ].join('\n');
}

const TWO_PASS_FINDING = [
  'Finding { id: sequential number starting from 1, severity: "P0"|"P1"|"P2"|"P3", title, body, file: path or null,',
  '  line_start: number or null, line_end: number or null, confidence: 0.0-1.0, criterion: what was violated (required for P0/P1),',
  '  verdict: "confirmed"|"demoted"|"rejected"|null, validated_by: "reviewer"|"verifier"|"machine"|null, evidence: string or null }',
  'ReviewOutput { schema_version: "v1", findings: Finding[], checks_run: string[] }',
  'Severity: P0 must fix (breaks functionality, security breach, data loss, violates criteria); P1 fix before shipping;',
  'P2 should fix (quality, not blocking); P3 nice to have.',
].join('\n');

export function twoPassReviewerPrompt(ctx: PromptContext): string {
  return [
    '## Two-pass review — Pass 1 (Review)',
    `Artifact: the files below, in the repository at ${SANDBOX_REPO}`,
    fileList(ctx),
    `Criteria: the ${ctx.stage} lenses — ${ctx.lenses.map((l) => `${l}: ${LENS_CHECKS[l] ?? ''}`).join('; ')}`,
    'Scope: the files above.',
    '',
    READ_ONLY,
    '',
    '## Output (MANDATORY)',
    'Print exactly one ReviewOutput JSON object and nothing else. Set every finding\'s validated_by to "reviewer",',
    'leave verdict and evidence null, and list every evaluated criterion and file path in checks_run.',
    TWO_PASS_FINDING,
    '',
  ].join('\n');
}

export function twoPassVerifierPrompt(ctx: PromptContext, pass1Findings: unknown): string {
  return [
    '## Two-pass review — Pass 2 (Verify)',
    `Artifact: the same files, in the repository at ${SANDBOX_REPO}`,
    fileList(ctx),
    `Criteria: the ${ctx.stage} lenses — ${ctx.lenses.join(', ')}`,
    'Findings to verify (the reviewer\'s full Finding array):',
    JSON.stringify(pass1Findings),
    '',
    READ_ONLY,
    '',
    '## Output (MANDATORY)',
    'Print exactly one ReviewOutput JSON object with the FULL findings array and populated checks_run.',
    'Set every finding to confirmed, demoted or rejected and give evidence. Adjust severity up only under confirmed,',
    'down only under demoted. Set every validated_by to "verifier". Verify only these findings; do not add findings;',
    'do not change a finding\'s id, title, file, lines or criterion.',
    TWO_PASS_FINDING,
    '',
  ].join('\n');
}

/** weave-review.txt Phase 3 "Prompt Preparation": one lens per lane, the same context packet. */
export const WEAVE_ROLES: ReadonlyArray<{ readonly role: string; readonly preamble: string }> = [
  {
    role: 'Maintainer',
    preamble:
      'You are the Maintainer. Prioritize correctness, convention adherence, and minimal scope. Challenge any change that is not strictly necessary. Enforce all project conventions.',
  },
  {
    role: 'Skeptic',
    preamble:
      'You are the Skeptic. Challenge every assumption. Find edge cases, failure modes, and unstated requirements. Prioritize what could go wrong.',
  },
  {
    role: 'Builder',
    preamble:
      'You are the Builder. Prioritize practical, shippable solutions. Favor simplicity over abstraction. Call out over-engineering.',
  },
];

export function weavePrompt(ctx: PromptContext, laneIndex: number): string {
  const role = WEAVE_ROLES[laneIndex % WEAVE_ROLES.length] as (typeof WEAVE_ROLES)[number];
  return [
    role.preamble,
    '',
    '## Context packet',
    `Stage: ${ctx.stage}`,
    `Repository: ${SANDBOX_REPO} (read-only)`,
    'Files:',
    fileList(ctx),
    '',
    'Review for: bugs and logic errors; security issues; project convention violations; code quality; test coverage gaps.',
    READ_ONLY,
    '',
    '## Output (MANDATORY)',
    'Print exactly one JSON object and nothing else:',
    '{"findings": [{"file": "path or null", "line": 12, "severity": "Critical|Important|Suggestion",',
    '               "description": "what the issue is", "recommendation": "how to fix it"}]}',
    'Report only issues with confidence >= 70. No other keys.',
    '',
  ].join('\n');
}

const SIMPLE_CONTRACT = [
  'Finding contract — every finding includes:',
  '- a stable finding_id starting with your finding_id_prefix (e.g. PREFIX-001), unique, never changed later;',
  '- file and line, and a source snippet of at most 6 lines;',
  '- a verification method (search | focused_test | command | reasoning) with its detail;',
  '- severity (CRITICAL | HIGH | MEDIUM | LOW | INFO) and a 1-2 line fix direction, not a patch;',
  '- claim_kind (race | lifecycle | architecture | security | performance | multi_step_plan | other) and, for all',
  '  but other, a concrete trigger or state sequence and visible consequence;',
  '- decision_impact: routine | major.',
].join('\n');

export function simpleReviewPrompt(
  ctx: PromptContext,
  p: { invocation_id: string; pair: readonly string[]; prefix: string },
): string {
  return [
    '## Simple review — independent review',
    `invocation_id: ${p.invocation_id}`,
    'output_mode: full_review',
    `reviewer pair: ${p.pair.join(', ')}`,
    'review_type: code',
    `finding_id_prefix: ${p.prefix}`,
    'baseline: working-tree',
    'Scope (absolute paths; read every file):',
    ctx.files.map((f) => `- ${SANDBOX_REPO}/${f}`).join('\n') || '- (no files)',
    `Focus: the ${ctx.stage} stage — correctness, regression risk, edge cases, concurrency/lifecycle/security/performance risk, key regression coverage.`,
    '',
    READ_ONLY,
    '',
    SIMPLE_CONTRACT,
    '',
    '## Output (MANDATORY)',
    'Print exactly one JSON object and nothing else:',
    '{"coverage": "COMPLETE|INCOMPLETE", "reviewed_paths": ["repository-relative path"], "unreadable_paths": [],',
    ' "restricted_steps": [], "findings": [{"finding_id", "title", "file", "line", "snippet", "verification": {"method", "detail"},',
    '   "severity", "fix_direction", "claim_kind", "trigger", "decision_impact"}]}',
    '',
  ].join('\n');
}

export function simpleRebuttalPrompt(
  p: { invocation_id: string; pair: readonly string[]; files: readonly string[] },
  challenged: ReadonlyArray<{ finding_id: string; title: string; file: string | null; line: number | null; severity: string }>,
): string {
  return [
    '## Simple review — rebuttal',
    `invocation_id: ${p.invocation_id}`,
    'output_mode: rebuttal',
    `reviewer pair: ${p.pair.join(', ')}`,
    'Scope (absolute paths):',
    p.files.map((f) => `- ${SANDBOX_REPO}/${f}`).join('\n') || '- (no files)',
    '',
    'Challenge ONLY these findings of the other reviewer; give one independent verdict per finding_id:',
    ...challenged.map((c) => `- ${c.finding_id} [${c.severity}] ${c.file ?? '(no file)'}${c.line === null ? '' : `:${c.line}`} — ${c.title}`),
    '',
    READ_ONLY,
    '',
    '## Output (MANDATORY)',
    'Print exactly one JSON object and nothing else:',
    '{"verdicts": [{"finding_id": "...", "verdict": "agree|disagree|uncertain", "evidence": "..."}]}',
    'Never one aggregate verdict for several findings.',
    '',
  ].join('\n');
}
