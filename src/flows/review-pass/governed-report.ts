// The governed-mode result files (SPEC §12): result.json (the GovernedOutcome, canonical JSON) and
// report.md, written 0600 into the 0700 output directory and never overwritten (write-results.ts).
// Both carry run/receipt ids, verdicts, abort codes and the adjudicated {code, refs} groups — the
// opaque, closed-vocabulary data receipts hold — never reviewer text. The report states that the
// result is advisory: the delivery state is decided by `governed status` / `gate` (SPEC §10) alone.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson } from '../../core/canonical.js';
import { fail } from '../../core/errors.js';
import type { GovernedOutcome } from './governed-run.js';
import { RESULT_FILES } from './write-results.js';

export const GOVERNED_RESULT_SCHEMA = 'governed.review-pass-governed-result/v1';
export const ADVISORY_NOTE = 'advisory: the delivery state is decided by governed status / gate (SPEC §10) from the receipts alone';

export function governedResultJson(o: GovernedOutcome): string {
  return `${canonicalJson({ schema: GOVERNED_RESULT_SCHEMA, mode: 'governed', advisory: true, auto_fix: 'out_of_scope', ...o })}\n`;
}

export function governedReportMd(o: GovernedOutcome): string {
  const lines = [
    `# Governed ${o.protocol} review — ${o.stage}`,
    '',
    `- unit: ${o.unit}`,
    `- result: **${o.result}**${o.reasons.length > 0 ? ` (${o.reasons.join(', ')})` : ''}`,
    `- rounds: ${o.rounds} (clean ${o.clean_rounds} of the policy streak ${o.streak})`,
    `- slots (policy): ${o.slots.join(', ')}`,
    `- focus files: ${o.focus_files.length > 0 ? o.focus_files.join(', ') : 'none (the bundle is the scope)'}`,
    `- ${ADVISORY_NOTE}`,
    '- auto-fix is out of scope: the orchestrator never edits code',
    '',
    '## Runs',
    '',
    '| round | slot | verdict | run | receipt | error |',
    '|---|---|---|---|---|---|',
    ...o.runs.map((r) => `| ${r.round} | ${r.slot} | ${r.verdict} | ${r.run_id} | ${r.receipt_id ?? '-'} | ${r.error ?? '-'} |`),
    '',
    '## Findings (matched by code and refs)',
    '',
  ];
  if (o.findings.length === 0) lines.push('None.');
  else {
    lines.push('| round | code | refs | severity | class | supporters | consensus |', '|---|---|---|---|---|---|---|');
    for (const f of o.findings) {
      lines.push(`| ${f.round} | ${f.code} | ${f.refs.join(', ')} | ${f.severity} | ${f.finding_class} | ${f.supporters.join(', ')} | ${f.consensus ?? '-'} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Write result.json and report.md; on any failure remove what was written and refuse. */
export function writeGovernedResults(dir: string, o: GovernedOutcome): { result: string; report: string } {
  const paths = { result: join(dir, RESULT_FILES.result), report: join(dir, RESULT_FILES.report) };
  const written: string[] = [];
  try {
    for (const [p, text] of [
      [paths.result, governedResultJson(o)],
      [paths.report, governedReportMd(o)],
    ] as const) {
      writeFileSync(p, text, { flag: 'wx', mode: 0o600 });
      written.push(p);
    }
  } catch {
    for (const p of written) rmSync(p, { force: true });
    fail('orchestrator_out_invalid', ['write']);
  }
  return paths;
}
