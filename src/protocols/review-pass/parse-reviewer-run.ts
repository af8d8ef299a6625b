// One reviewer run of a round → its parsed output (review-pass-v3 §2.3 adapter `parse(raw, strategy)`,
// §3.3 parsing strategy).
//   json           → the JSON strategy; when the output is not valid review JSON the seed's fallback
//                    applies: extract what the text_fallback parser can (§3.3 "Fallback").
//   text_fallback  → the text parser.
//   governed       → the opaque-output adapter; no fallback (SPEC §7.2 output is exact or refused).
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
  if (output.strategy === 'text_fallback') return parseTextReviewerOutput(reviewer, output.text);
  try {
    return parseJsonReviewerOutput(reviewer, output.text);
  } catch (e) {
    if (isGovernedError(e) && e.code === 'review_pass_output_invalid') {
      return parseTextReviewerOutput(reviewer, output.text);
    }
    throw e;
  }
}
