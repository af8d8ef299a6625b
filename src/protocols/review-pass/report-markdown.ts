// Markdown report in the shape of docs/review-pass-protocol.md#final-report "Final Report Format". Deviations, all required
// by docs/review-pass.md#review-protocols: the CONFIRMED line says the findings were *not* auto-fixed (the orchestrator never edits
// code), the report states that auto-fix is out of scope, and the delivery state is REVIEW_ONLY with
// its reasons because the protocol result is advisory.
import { PROTOCOLS_REVIEW_PASS_REASONS } from '../../core/error-codes/protocols-review-pass.js';
import type { GroupSummary } from './review-state.js';
import type { ReviewPassResult } from './review-result.js';

/** Whole seconds as "Xm Ys" (durations are recorded in ms; the report shows seconds). */
export function formatDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}m ${s % 60}s`;
}

/** One line of reviewer-provided text: no line breaks, no table breaks. */
function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').replace(/\|/g, '\\|');
}

function location(g: GroupSummary): string {
  if (g.line !== null) return `${g.file}:${g.line}`;
  if (g.symbol !== null) return `${g.file}:${g.symbol}`;
  return g.file;
}

function findingLine(g: GroupSummary, i: number): string {
  const req = g.req_id === null ? '' : ` ${g.req_id}`;
  const flags: string[] = [`reviewers: ${g.supporters.join(', ')}`];
  if (g.class_missing) flags.push('class tag missing: downgraded, never auto-dismissed');
  if (g.low_confidence) flags.push('lower confidence: low-health reviewers only');
  if (g.resolution !== null) flags.push(`resolved ${g.resolution.decision} by ${g.resolution.by}`);
  return `${i + 1}. \`${oneLine(location(g))}\` [${g.severity}] [${g.finding_class}]${req} — ${oneLine(g.description)} (${flags.join('; ')})`;
}

function healthNote(h: ReviewPassResult['health'][number]): string {
  if (h.low) return 'Low — consider different model';
  const missing: string[] = [];
  if (h.signals.files_read === 0) missing.push('no files read');
  if (h.signals.specificity === 0) missing.push('low specificity');
  if (h.signals.req_aligned === 0) missing.push('not REQ-aligned');
  if (h.signals.verdict_ok === 0) missing.push('verdict mismatch');
  return missing.length === 0 ? 'Good' : missing.join('; ');
}

export function renderReviewPassMarkdown(r: ReviewPassResult): string {
  const out: string[] = [];
  out.push('## Review Pass Report', '');
  out.push(`**Stage**: ${r.stage}${r.light ? ' (--light)' : ''}`);
  out.push(`**Mode**: ${r.mode === 'governed' ? 'governed' : 'non-governed'}`);
  out.push(`**Rounds**: ${r.rounds}`);
  out.push(`**Reviewers**: ${r.reviewers.join(', ')} (R=${r.r_actual})`);
  out.push(`**Result**: ${r.result}`);
  out.push(`**Delivery state**: ${r.delivery_state} (${r.delivery_reasons.join(', ')})`);
  if (r.pending_controls !== undefined) {
    out.push(
      `**Controls**: ${r.pending_controls.length === 0 ? 'no pending control is required by the pinned policy' : `pending controls the pinned policy requires: ${r.pending_controls.join(', ')}`}`,
    );
  }
  out.push(`**Duration**: ${formatDuration(r.duration_ms)}`);
  out.push('');
  for (const n of r.notices) out.push(`> ${n}`);
  out.push('');

  out.push('### Summary');
  out.push(`- CONFIRMED findings: ${r.summary.confirmed} (not auto-fixed: auto-fix is out of scope)`);
  const cr = r.summary.contested_resolved;
  out.push(`- CONTESTED resolved: ${cr.total} (${cr.by_arbiter} by arbiter, ${cr.by_user} by user)`);
  out.push(`- Remaining escalations: ${r.summary.escalations}`);
  out.push(`- Blocking vetoes: ${r.summary.vetoes}`);
  out.push(`- Auto-dismissed: ${r.summary.auto_dismissed}; suppressed known issues: ${r.summary.suppressed}`);
  out.push(`- Preservation probes: ${r.summary.preservation_probes.passed}/${r.summary.preservation_probes.total}`);
  out.push(`- Convergence: ${r.convergence.consecutive_clean}/${r.convergence.threshold} consecutive clean rounds`);
  out.push('');

  if (r.reasons.length > 0) {
    out.push('### Why NOT_CLEAN');
    for (const reason of r.reasons) out.push(`- \`${reason}\`: ${PROTOCOLS_REVIEW_PASS_REASONS[reason]}`);
    out.push('');
  }
  if (r.vetoes.length > 0) {
    out.push('### Blocking Vetoes');
    r.vetoes.forEach((g, i) => out.push(findingLine(g, i)));
    out.push('');
  }
  if (r.confirmed.length > 0) {
    out.push('### Confirmed Findings (to fix outside the orchestrator)');
    r.confirmed.forEach((g, i) => out.push(findingLine(g, i)));
    out.push('');
  }
  if (r.req_coverage.length > 0) {
    out.push('### REQ-ID Coverage');
    for (const c of r.req_coverage) {
      if (c.status === 'COVERED') out.push(`- ${c.req_id}: COVERED${c.locations.length > 0 ? ` (${c.locations.map(oneLine).join(', ')})` : ''}`);
      else if (c.status === 'DEFERRED') out.push(`- ${c.req_id}: DEFERRED (intentionally)`);
      else out.push(`- ${c.req_id}: NOT FOUND — needs implementation`);
    }
    out.push('');
  }
  out.push('### Escalation List (unresolved CONTESTED)');
  if (r.escalations.length === 0) out.push('None.');
  else r.escalations.forEach((g, i) => out.push(findingLine(g, i)));
  out.push('');

  out.push('### Review Log');
  out.push('| Round | Lens | Result | Details |');
  out.push('|-------|------|--------|---------|');
  for (const e of r.review_log) out.push(`| ${e.round} | ${e.lens} | ${e.result} | ${e.details} |`);
  if (r.review_log.length === 0) out.push('| — | — | — | no round ran |');
  out.push('');

  out.push('### Reviewer Health Scores');
  out.push('| Reviewer | Health | Notes |');
  out.push('|----------|--------|-------|');
  for (const h of r.health) out.push(`| ${h.reviewer} | ${h.health} | ${healthNote(h)} |`);
  if (r.agreement !== null) out.push('', `Inter-reviewer agreement (R=2): ${r.agreement ? 'AGREE' : 'DISAGREE'}`);
  out.push('');
  if (r.warnings.length > 0) {
    out.push('### Warnings');
    for (const w of r.warnings) out.push(`- ${w}`);
    out.push('');
  }
  return out.join('\n');
}
