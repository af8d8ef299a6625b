// One reviewer run of a round → its parsed output (docs/review-pass-protocol.md#reviewer-invocation adapter `parse(raw, strategy)`,
// docs/review-pass-protocol.md#output-parsing-rules parsing strategy).
//   json           → the JSON strategy; when the output is not valid review JSON the seed's fallback
//                    applies: extract what the text_fallback parser can (docs/review-pass-protocol.md#output-parsing-rules "Fallback").
//   text_fallback  → the text parser.
//   governed       → the opaque-output adapter; no fallback (docs/reviewers.md#reviewer-output output is exact or refused).
import { isGovernedError } from '../../core/errors.js';
import { parseGovernedReviewerOutput } from './parse-governed-output.js';
import { parseJsonReviewerOutput } from './parse-json-output.js';
import { parseTextReviewerOutput } from './parse-text-output.js';
import type { ParsedReviewerOutput } from './reviewer-output.js';

export type ReviewerRunOutput =
  | { readonly strategy: 'json' | 'text_fallback'; readonly text: string }
  | { readonly strategy: 'governed'; readonly value: unknown };

export function parseReviewerRunOutput(reviewer: string, output: ReviewerRunOutput): ParsedReviewerOutput {
  if (output.strategy === 'governed') return parseGovernedReviewerOutput(reviewer, output.value);
  if (output.strategy === 'text_fallback') return failClosed(parseTextReviewerOutput(reviewer, output.text));
  try {
    return failClosed(parseJsonReviewerOutput(reviewer, output.text));
  } catch (e) {
    if (isGovernedError(e) && e.code === 'review_pass_output_invalid') {
      return failClosed(parseTextReviewerOutput(reviewer, output.text));
    }
    throw e;
  }
}

/**
 * A reviewer that declares FOUND_ISSUES or VETO (docs/review-pass-protocol.md#reviewer-output-format) but of whose findings none
 * could be read (every line rejected: a bad location, an unknown severity or class) has reported
 * issues that cannot be adjudicated. Counting it as a reviewer with zero findings would turn its
 * VETO into a CLEAN vote; docs/threat-model.md#rules-that-hold-everywhere "fail closed" — so its output is not usable structured data
 * (docs/threat-model.md#rules-that-hold-everywhere), and the round degrades (docs/bundle.md#the-review-bundle) exactly as for an unparseable answer: it never counts as a
 * clean review. (The governed strategy needs no such rule: docs/reviewers.md#reviewer-output CLEAN ⇔ zero findings.)
 */
function failClosed(out: ParsedReviewerOutput): ParsedReviewerOutput {
  const reportsIssues = out.verdict === 'FOUND_ISSUES' || out.verdict === 'VETO';
  return reportsIssues && out.findings.length === 0 ? { ...out, structured: false } : out;
}
