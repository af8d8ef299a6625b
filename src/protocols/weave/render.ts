// JSON and Markdown reports of a weave synthesis (weave-review.txt "Present the report", "Reveal
// After Scoring", Rules: "Never modify project code"; docs/review-pass.md#review-protocols).
import { canonicalJson } from '../../core/canonical.js';
import { mdCode, mdText } from '../two-pass/markdown-text.js';
import type { WeaveFinding, WeaveResult } from './adjudicate.js';
import { WEAVE_SEVERITIES } from './schema.js';

export const WEAVE_RESULT_SCHEMA = 'governed.weave-result/v1';
export const WEAVE_SCOPE_NOTE =
  'Project-read-only review: auto-fix is out of scope and nothing in this review edits code.';

export function renderWeaveJson(result: WeaveResult): string {
  return `${canonicalJson({ schema: WEAVE_RESULT_SCHEMA, ...result, auto_fix: 'out_of_scope', edits_code: false })}\n`;
}

function where(f: WeaveFinding): string {
  if (f.file === null) return '';
  return ` (${mdCode(f.line === null ? f.file : `${f.file}:${f.line}`)})`;
}

function headline(f: WeaveFinding): string {
  const promo = f.promoted ? ` — promoted from ${f.reported_severity} by consensus` : '';
  const dissent = f.dissent.length > 0 ? `; dissent: ${f.dissent.map((d) => d.label).join(', ')}` : '';
  return `${mdCode(f.issue_id)} ${mdText(f.title)}${where(f)} — ${f.tag} — ${f.verification}${promo} — found by ${f.agree
    .map((a) => a.label)
    .join(', ')}${dissent}`;
}

export function renderWeaveMarkdown(result: WeaveResult): string {
  const out: string[] = ['# Weave review', ''];
  out.push(`Lanes: ${result.lanes} (${Object.keys(result.label_map).join(', ')})`);
  out.push(
    `Unavailable: ${result.unavailable.length === 0 ? 'none' : result.unavailable.map((u) => `${mdText(u.participant)} (${u.failure})`).join(', ')}`,
  );

  out.push('', '## Findings');
  if (result.findings.length === 0) out.push('', 'None.');
  for (const band of WEAVE_SEVERITIES) {
    const inBand = result.findings.filter((f) => f.final_severity === band);
    if (inBand.length === 0) continue;
    out.push('', `### ${band}`);
    for (const f of inBand) {
      out.push(`- ${headline(f)}`);
      for (const a of f.agree) out.push(`  - ${a.label} (${a.severity}): ${mdText(a.description)} — fix: ${mdText(a.recommendation)}`);
    }
  }

  // Seed: split findings "MUST appear under Reviewer Disagreements with both positions".
  out.push('', '## Reviewer Disagreements');
  const disagreements = [...result.findings, ...result.refuted].filter((f) => f.in_disagreements);
  if (disagreements.length === 0) out.push('', 'None.');
  for (const f of disagreements) {
    out.push(`- ${headline(f)}`);
    for (const a of f.agree) out.push(`  - Issue (${a.label}): ${mdText(a.description)}`);
    for (const d of f.dissent) out.push(`  - Not an issue / incompatible (${d.label}): ${mdText(d.reason)}`);
    if (f.silent.length > 0) out.push(`  - Silent: ${f.silent.join(', ')}`);
    out.push(`  - Verification: ${f.verification} — ${mdText(f.verification_note)}`);
  }

  out.push('', '## Refuted by verification');
  if (result.refuted.length === 0) out.push('', 'None.');
  for (const f of result.refuted) out.push(`- ${headline(f)} — ${mdText(f.verification_note)}`);

  // Seed "Step 3: Reveal After Scoring": identities only here, with the recorded label map.
  out.push('', '## Attribution', '', '| Label | Reviewer |', '|---|---|');
  for (const [label, participant] of Object.entries(result.label_map)) out.push(`| ${label} | ${mdText(participant)} |`);

  out.push('', `_${WEAVE_SCOPE_NOTE}_`);
  return `${out.join('\n')}\n`;
}
