// The result of a two-pass or weave run that the protocol engine could not adjudicate: the reviewer
// it needs was unavailable, or its output broke the protocol's contract. There is no seed shape for
// "no result", so governed writes this small closed document instead — NOT_CLEAN, the reason codes
// and the engine's refusal code (never the rejected output: docs/threat-model.md#rules-that-hold-everywhere "No secrets in output").
import { canonicalJson } from '../../core/canonical.js';
import { REASON_CODES, type ReasonCode } from '../../core/errors.js';
import type { Protocol } from './flow-types.js';

export const INCOMPLETE_SCHEMA = 'governed.review-pass-incomplete/v1';

export interface IncompleteInput {
  readonly protocol: Protocol;
  readonly stage: string;
  readonly reasons: readonly ReasonCode[];
  /** Engine error codes that refused an output (identifiers only). */
  readonly detail_codes: readonly string[];
  /** The reviewers whose output was missing or refused. */
  readonly reviewers: readonly string[];
}

export function incompleteJson(i: IncompleteInput): string {
  return `${canonicalJson({
    schema: INCOMPLETE_SCHEMA,
    protocol: i.protocol,
    stage: i.stage,
    result: 'NOT_CLEAN',
    reasons: [...i.reasons].sort(),
    detail_codes: [...i.detail_codes].sort(),
    reviewers: [...i.reviewers].sort(),
    auto_fix: 'out_of_scope',
    edits_code: false,
  })}\n`;
}

export function incompleteMarkdown(i: IncompleteInput): string {
  const out = [`# ${i.protocol} review — incomplete`, '', `**Stage**: ${i.stage}`, '**Result**: NOT_CLEAN', '', '## Why'];
  for (const r of [...i.reasons].sort()) out.push(`- \`${r}\`: ${REASON_CODES[r]}`);
  if (i.detail_codes.length > 0) out.push(`- refused by: ${[...i.detail_codes].sort().map((c) => `\`${c}\``).join(', ')}`);
  if (i.reviewers.length > 0) out.push(`- reviewers concerned: ${[...i.reviewers].sort().join(', ')}`);
  out.push('', '_Review only: auto-fix is out of scope and nothing in this review edits code._');
  return `${out.join('\n')}\n`;
}
