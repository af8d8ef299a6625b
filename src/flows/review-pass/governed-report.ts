// The governed-mode result files (docs/review-pass.md#review-protocols): the protocol engine's seed-shaped result — exactly what
// non-governed mode writes, rendered by the same engine renderers — PLUS a governed section:
//   result.json  the engine's JSON object with one more key, `governed` (canonical JSON);
//   report.md    the engine's Markdown report, then a "## Governed" section.
// The governed section lists each run (round, slot, policy reviewer, challenge id, run id, receipt
// digest, verdict, abort code) and the findings each receipt binds, states that the result is
// advisory (the delivery state is decided by `governed status` / `gate`, docs/decision.md#the-rules-in-short, from the receipts
// alone) and that auto-fix is out of scope, and names the seed fields receipts have no value for.
// Written 0600 into the 0700 output directory, never overwritten; a failure part-way removes what
// was written (nothing half-recorded). Everything here is closed-vocabulary data from receipts and
// the policy — never reviewer text (receipts hold none).
import { join } from 'node:path';
import { canonicalJson } from '../../core/canonical.js';
import { REASON_CODES, type ReasonCode } from '../../core/errors.js';
import type { GovernedOutcome } from './governed-run.js';
import { RESULT_FILES, writeAllOrNothing } from './write-results.js';

export const GOVERNED_SECTION_SCHEMA = 'governed.review-pass-governed/v1';
export const ADVISORY_STATEMENT =
  'Advisory: this result decides nothing. The delivery state is decided by governed status / governed gate (docs/decision.md#the-rules-in-short) from the signed receipts alone.';
export const NO_AUTO_FIX = 'Auto-fix is out of scope: the orchestrator never edits code.';
export const GOVERNED_RUNS_NOTE =
  'Every reviewer call was a governed review-challenge + review-run (docs/bundle.md#the-review-bundle, docs/runner.md#the-run-step-by-step) of the policy reviewer of its slot: run in the governed runner\'s sandbox, its output bound in a signed receipt.';

/** Seed fields that receipts carry no value for, and what the report shows instead (docs/review-pass.md). */
export const NOT_IN_RECEIPTS: Readonly<Record<'review-pass' | 'weave', readonly string[]>> = {
  'review-pass': [
    'description: a receipt carries a closed finding code, never text; the code stands where the seed shows a description',
    'file and line: a receipt names no path and no line; a finding is located by its refs (IDs in the reviewer\'s view), shown as code:refs',
    'Files Read: a receipt lists no files; the runner\'s coverage match (coverage_matched, docs/reviewers.md#the-reviewers-world) is the health score\'s read signal',
    'REQ-ID coverage: not an input in governed mode (the bundle is the scope floor)',
    'arbiter, user resolutions and known-issue suppression: none in governed mode; only a signed dismiss authority lifts a DIRTY verdict (docs/decision.md#the-rules-in-short)',
    'preservation probes: the engine\'s count is not used (0/0); the probe receipts a review saw are in its bundles\' preservation section and those the release relies on in governed gate\'s reliedOn.probes (docs/preservation.md)',
    'convergence: the engine counts a degraded round (a slot ABORTED) as clean (docs/review-pass-protocol.md#graceful-degradation); governed clean rounds need a CLEAN receipt from every slot (docs/decision.md#the-rules-in-short)',
  ],
  weave: [
    'description and title: a receipt carries a closed finding code, class, severity and refs, never text; they are shown instead',
    'file and line: a receipt names no path and no line (none shown)',
    'recommendation: a receipt carries none (shown as not given)',
    'verification: the orchestrator cannot check an opaque claim, so every finding is plausible-unverified',
    'dissent: none; lanes are independent runs that never see each other (docs/bundle.md#views), so a lane without the finding is silent',
    'the synthesis shown is the last round\'s; every earlier round was clean (the loop stops at the first that is not)',
  ],
};

function reasonText(code: string): string {
  return Object.prototype.hasOwnProperty.call(REASON_CODES, code) ? REASON_CODES[code as ReasonCode] : '';
}

export function governedSectionJson(o: GovernedOutcome): Record<string, unknown> {
  return {
    schema: GOVERNED_SECTION_SCHEMA,
    unit: o.unit,
    stage: o.stage,
    protocol: o.protocol,
    result: o.result,
    reasons: o.reasons,
    governed_reasons: o.governed_reasons,
    advisory: true,
    advisory_statement: ADVISORY_STATEMENT,
    auto_fix: 'out_of_scope',
    orchestrator_edits_code: false,
    slots: o.slots.map((slot) => ({ slot, reviewer: o.slot_reviewers[slot] ?? null })),
    streak: o.streak,
    rounds: o.rounds,
    clean_rounds: o.clean_rounds,
    focus_files: o.focus_files,
    runs: o.runs.map((r) => ({
      round: r.round,
      slot: r.slot,
      reviewer: r.reviewer,
      challenge_id: r.challenge_id,
      run_id: r.run_id,
      receipt_id: r.receipt_id,
      execution_id: r.execution_id,
      verdict: r.verdict,
      error: r.error,
      findings: r.findings,
    })),
    not_in_receipts: NOT_IN_RECEIPTS[o.protocol],
  };
}

export function governedResultJson(o: GovernedOutcome): string {
  const engine = JSON.parse(o.protocol_result.result_json) as Record<string, unknown>;
  return `${canonicalJson({ ...engine, governed: governedSectionJson(o) })}\n`;
}

export function governedSectionMd(o: GovernedOutcome): string {
  const out = [
    '',
    '## Governed',
    '',
    `- Unit: ${o.unit}; stage: ${o.stage}; protocol: ${o.protocol}; result: ${o.result}`,
    `- Slots (policy): ${o.slots.map((s) => `${s} → ${o.slot_reviewers[s] ?? '?'}`).join(', ')}; streak: ${o.streak}; rounds: ${o.rounds}; clean rounds (every slot CLEAN, docs/decision.md#the-rules-in-short): ${o.clean_rounds}`,
    `- Focus files: ${o.focus_files.length > 0 ? o.focus_files.join(', ') : 'none'} (the bundle is the scope; focus never narrows it)`,
    `- ${GOVERNED_RUNS_NOTE}`,
    `- **${ADVISORY_STATEMENT}**`,
    `- ${NO_AUTO_FIX}`,
  ];
  if (o.reasons.length > 0) {
    out.push('', '### Why NOT_CLEAN (all reasons)');
    for (const r of o.reasons) out.push(`- \`${r}\`: ${reasonText(r)}`);
  }
  out.push(
    '',
    '### Runs',
    '| Round | Slot | Reviewer | Challenge | Run | Receipt (sha256 of the signed statement) | Verdict | Abort code |',
    '|-------|------|----------|-----------|-----|------------------------------------------|---------|------------|',
  );
  for (const r of o.runs) {
    out.push(`| ${r.round} | ${r.slot} | ${r.reviewer} | ${r.challenge_id} | ${r.run_id} | ${r.receipt_id ?? '— (no receipt)'} | ${r.verdict} | ${r.error ?? '—'} |`);
  }
  if (o.runs.length === 0) out.push('| — | — | — | — | — | — | no run | — |');
  out.push('', '### Findings per receipt', '| Round | Slot | Code | Class | Severity | Refs |', '|-------|------|------|-------|----------|------|');
  const rows = o.runs.flatMap((r) => r.findings.map((f) => `| ${r.round} | ${r.slot} | ${f.code} | ${f.class} | ${f.severity} | ${f.refs.join(', ')} |`));
  out.push(...(rows.length > 0 ? rows : ['| — | — | — | — | — | none |']));
  out.push('', '### Not in receipts (shown instead)');
  for (const n of NOT_IN_RECEIPTS[o.protocol]) out.push(`- ${n}`);
  return `${out.join('\n')}\n`;
}

export function governedReportMd(o: GovernedOutcome): string {
  return `${o.protocol_result.report_md.replace(/\n+$/, '')}\n${governedSectionMd(o)}`;
}

/** Write result.json and report.md; on any failure remove what was written and refuse. */
export function writeGovernedResults(dir: string, o: GovernedOutcome): { result: string; report: string } {
  const paths = { result: join(dir, RESULT_FILES.result), report: join(dir, RESULT_FILES.report) };
  const contents: Array<[string, string]> = [
    [paths.result, governedResultJson(o)],
    [paths.report, governedReportMd(o)],
  ];
  writeAllOrNothing(contents);
  return paths;
}
