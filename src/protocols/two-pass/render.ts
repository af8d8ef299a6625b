// JSON and Markdown reports of a two-pass result (two-pass-review.txt "Present to user"; docs/review-pass.md#review-protocols:
// "Each produces a JSON result and a Markdown report in the seeds' shapes", and "auto-fix is out of
// scope and the report says so").
import { jcs } from '../../core/canonical.js';
import { mdCode, mdText } from './markdown-text.js';
import type { TwoPassEntry, TwoPassResult } from './adjudicate.js';

export const TWO_PASS_RESULT_SCHEMA = 'governed.two-pass-result/v1';
export const SCOPE_NOTE = 'Review only: auto-fix is out of scope and nothing in this review edits code.';

/**
 * RFC 8785 text of the result plus one newline. `jcs` rather than `canonicalJson`: the seed's
 * confidence is a 0.0-1.0 float, which RFC 8785 serializes deterministically but governed's
 * digest domain (safe integers only) refuses; this report is never digested.
 */
export function renderTwoPassJson(result: TwoPassResult): string {
  return `${jcs({ schema: TWO_PASS_RESULT_SCHEMA, ...result, auto_fix: 'out_of_scope', edits_code: false })}\n`;
}

function location(e: TwoPassEntry): string {
  if (e.file === null) return '';
  const lines = e.line_start === null ? '' : e.line_end !== null && e.line_end !== e.line_start ? `:${e.line_start}-${e.line_end}` : `:${e.line_start}`;
  return ` (${mdCode(`${e.file}${lines}`)})`;
}

/** Seed list item: "id: title — confirmed | demoted Px→Py | promoted Px→Py — evidence". */
function verdictLabel(e: TwoPassEntry): string {
  if (e.verdict === null) return 'unverified';
  if (e.verdict === 'rejected') return `rejected (${e.original_severity})`;
  if (e.severity_change === 'none') return e.verdict;
  return `${e.severity_change} ${e.original_severity}→${e.final_severity}`;
}

function item(e: TwoPassEntry, withEvidence: boolean): string {
  const head = `  - ${e.id}: ${mdText(e.title)}${location(e)} — ${verdictLabel(e)}`;
  return withEvidence && e.evidence !== null ? `${head} — ${mdText(e.evidence)}` : head;
}

export function renderTwoPassMarkdown(result: TwoPassResult): string {
  const byId = new Map(result.findings.map((f) => [f.id, f]));
  const pick = (ids: readonly number[]): TwoPassEntry[] =>
    ids.map((id) => byId.get(id)).filter((e): e is TwoPassEntry => e !== undefined);
  const out: string[] = [];

  if (result.outcome === 'clean') {
    // Seed clean shape: "Review result — clean:", checks one per line, "P0/P1 findings: none".
    out.push('**Review result — clean:**', '- Checks run:');
    for (const c of result.checks_run.pass1) out.push(`  - ${mdText(c)}`);
    out.push('- P0/P1 findings: none');
    const fyi = pick(result.fyi_ids).filter((e) => e.visible);
    if (fyi.length > 0) {
      out.push('- P2/P3 (FYI):');
      for (const e of fyi) out.push(item(e, false));
    }
  } else {
    const s = result.summary;
    out.push('**Two-pass review results:**');
    const listed = pick(result.p0p1_ids);
    // Seed "Empty result: Write None — zero P0/P1 findings after both passes".
    if (listed.length === 0) out.push('- P0/P1 findings: None — zero P0/P1 findings after both passes');
    else {
      out.push('- P0/P1 findings:');
      for (const e of listed) out.push(item(e, true));
    }
    if (s !== null) out.push(`- Summary: ${s.confirmed} of ${s.p0p1_total} P0/P1 confirmed, ${s.demoted} demoted, ${s.rejected} rejected`);
    const fyi = pick(result.fyi_ids).filter((e) => e.visible);
    if (fyi.length === 0) out.push('- P2/P3 (FYI): none');
    else {
      out.push('- P2/P3 (FYI):');
      for (const e of fyi) out.push(item(e, false));
    }
    const rejected = pick(result.rejected_ids);
    if (result.disagreement === 'none') out.push('- Disagreement: none');
    else if (rejected.every((e) => e.visible)) {
      out.push('- Disagreement: reviewer/verifier split — rejected findings and verifier reasoning:');
      for (const e of rejected) out.push(item(e, true));
    } else {
      // Seed "Visibility": rejected findings stay hidden outside the all-rejected case.
      const n = rejected.length;
      out.push(`- Disagreement: reviewer/verifier split — ${n} rejected finding${n === 1 ? '' : 's'} hidden (ask to show)`);
    }
    if (result.outcome === 'all_rejected') {
      out.push('', 'All P0/P1 findings were rejected: zero confirmed P0/P1 findings. Stopped; no further automatic review.');
    }
  }
  out.push('', `_${SCOPE_NOTE}_`);
  return `${out.join('\n')}\n`;
}
