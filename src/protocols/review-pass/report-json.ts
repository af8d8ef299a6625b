// JSON report of a review-pass result (docs/review-pass.md#review-protocols "a JSON result"): RFC 8785 canonical text, so key
// order is stable and two runs over the same inputs produce byte-identical reports.
import { canonicalJson } from '../../core/canonical.js';
import type { ReviewPassResult } from './review-result.js';

export function renderReviewPassJson(result: ReviewPassResult): string {
  return `${canonicalJson(result)}\n`;
}
