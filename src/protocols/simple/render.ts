// JSON and Markdown reports of simple-review (simple-review.txt "User Decision Report"; docs/review-pass.md#review-protocols).
// The report lists scope, per-reviewer coverage, the pair and its sessions/retries/heterogeneity,
// findings by severity with their status and CRITICAL/HIGH support and rebuttal evidence, the lead
// recommendation, the user's next choices, shutdown and cache cleanup, and ends with
// "Final decision: USER_DECISION_REQUIRED".
import { canonicalJson } from '../../core/canonical.js';
import { mdCode, mdText } from '../two-pass/markdown-text.js';
import type { SimpleFindingResult, SimpleResult } from './adjudicate.js';
import { SIMPLE_SEVERITIES, isCriticalOrHigh } from './schema.js';

export const SIMPLE_RESULT_SCHEMA = 'governed.simple-result/v1';
export const SIMPLE_SCOPE_NOTE =
  'Review only: no fixes were applied and no second review round was started; auto-fix is out of scope and nothing in this review edits code.';

export function renderSimpleJson(result: SimpleResult): string {
  return `${canonicalJson({ schema: SIMPLE_RESULT_SCHEMA, ...result, auto_fix: 'out_of_scope', edits_code: false })}\n`;
}

const list = (items: readonly string[], code = true): string =>
  items.length === 0 ? 'none' : items.map((i) => (code ? mdCode(i) : mdText(i))).join(', ');
const yesNo = (b: boolean): string => (b ? 'yes' : 'no');

function findingLines(f: SimpleFindingResult): string[] {
  const loc = f.finding.file === null ? '' : ` (${mdCode(f.finding.line === null ? f.finding.file : `${f.finding.file}:${f.finding.line}`)})`;
  const sev = f.reported_severity === f.final_severity ? '' : ` — reported ${f.reported_severity}`;
  const impact = `impact ${f.decision_impact.final}${f.decision_impact.lead === null ? ' (reviewer)' : ' (lead-validated)'}`;
  const out = [`- ${mdCode(f.finding_id)} ${f.status} — ${mdText(f.finding.title)}${loc} — by ${f.reviewer}${sev} — ${impact}`];
  if (f.status === 'REJECTED_INCOMPLETE') {
    out.push(`  - Incomplete finding contract, missing: ${f.deficiencies.join(', ')}`);
    return out;
  }
  if (f.limited_evidence) out.push(`  - Limited evidence (*unverified*), missing: ${f.deficiencies.join(', ')}`);
  // "Record the supporting evidence, strongest rebuttal, and lead classification."
  const support: string[] = [];
  if (f.same_issue_as !== null) support.push(`also reported as ${mdCode(f.same_issue_as)}`);
  if (f.finding.verification !== null) support.push(`${f.finding.verification.method}: ${mdText(f.finding.verification.detail)}`);
  if (f.lead_check !== null) support.push(`lead ${f.lead_check.method} check ${f.lead_check.outcome}: ${mdText(f.lead_check.evidence)}`);
  if (support.length > 0 || isCriticalOrHigh(f.reported_severity)) out.push(`  - Support: ${support.length === 0 ? 'none' : support.join('; ')}`);
  if (f.rebuttal !== null) out.push(`  - Strongest rebuttal (${f.rebuttal.by}, ${f.rebuttal.verdict}): ${mdText(f.rebuttal.evidence)}`);
  else if (isCriticalOrHigh(f.reported_severity)) out.push('  - Strongest rebuttal: no rebuttal record');
  out.push(`  - Lead classification: ${f.status} (${f.reason ?? 'n/a'})`);
  if (f.finding.fix_direction !== null) out.push(`  - Fix direction: ${mdText(f.finding.fix_direction)}`);
  return out;
}

export function renderSimpleMarkdown(result: SimpleResult): string {
  const out: string[] = ['# Simple review — user decision report', ''];
  out.push('## Scope', `- Invocation: ${mdCode(result.invocation_id)}`, `- Review type: ${result.review_type}`);
  out.push(`- Baseline: ${mdCode(result.baseline)}`, `- Scope paths: ${list(result.scope_paths)}`);

  out.push('', '## Reviewers', `- Pair: ${result.pair.join(', ')}`, `- Heterogeneity intact: ${yesNo(result.heterogeneity_intact)}`);
  for (const r of result.reviewers) {
    out.push(
      `- ${r.slot}: ${r.status}; coverage ${r.coverage.coverage}; sessions ${list(r.session_ids)}; retries ${r.retries}; rebuttal ${r.rebuttal}`,
    );
    out.push(`  - Reviewed paths: ${list(r.reviewed_paths)}`);
    out.push(`  - Unreadable paths: ${list(r.unreadable_paths)}`);
    out.push(`  - Validation restrictions: ${list(r.restricted_steps, false)}`);
    if (r.coverage.gaps.length > 0) {
      const missing = r.coverage.missing_scope_paths.length > 0 ? ` (not reviewed: ${list(r.coverage.missing_scope_paths)})` : '';
      out.push(`  - Coverage gaps: ${r.coverage.gaps.join(', ')}${missing}`);
    }
  }

  out.push('', '## Findings');
  const adjudicated = result.findings.filter((f) => f.status !== 'REJECTED_INCOMPLETE');
  if (adjudicated.length === 0) out.push('', 'None.');
  for (const sev of SIMPLE_SEVERITIES) {
    const inBand = adjudicated.filter((f) => f.final_severity === sev);
    if (inBand.length === 0) continue;
    out.push('', `### ${sev}`);
    for (const f of inBand) out.push(...findingLines(f));
  }
  const rejected = result.findings.filter((f) => f.status === 'REJECTED_INCOMPLETE');
  if (rejected.length > 0) {
    out.push('', '### Rejected (incomplete finding contract)');
    for (const f of rejected) out.push(...findingLines(f));
  }

  out.push('', '## Recommendation', `**${result.recommendation}**${result.recommendation_because.length > 0 ? ` — because of ${list(result.recommendation_because)}` : ''}`);
  out.push('', '## Next choices', '- accept', '- request fixes', '- start deep-review');
  out.push('', '## Cleanup', `- Reviewer shutdown: ${result.reviewers.map((r) => `${r.slot} ${yesNo(r.shutdown)}`).join(', ')}`);
  out.push(`- Cache cleanup: ${result.cache_cleanup}`);
  out.push('', `_${SIMPLE_SCOPE_NOTE}_`, '', `Final decision: ${result.final_decision}`);
  return `${out.join('\n')}\n`;
}
