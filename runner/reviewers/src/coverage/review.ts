// The coverage reviewer's pure core: bundle bytes in, review-output text out (docs/reviewers.md#reviewer-output).
//   {"coverage": <the bundle's coverage, echoed exactly>, "findings": [...],
//    "schema": "governed.review-output/v1", "verdict": "CLEAN" | "DIRTY"}
// as RFC 8785 text, CLEAN exactly when there are no findings. The checks run on whichever sections
// the view includes (docs/bundle.md#views: each role sees different sections); a view none of whose sections a
// check needs echoes the coverage and is CLEAN. docs/reviewers.md lists what is checked per view.
import { readBundle, COVERAGE_KINDS } from './bundle.js';
import { canonicalJson } from './canonical.js';
import { contractFindings } from './checks/contract.js';
import { historyFindings } from './checks/history.js';
import { preservationFindings } from './checks/preservation.js';
import { sourceFindings } from './checks/sources.js';
import { finalizeFindings } from './findings.js';

export const OUTPUT_SCHEMA_ID = 'governed.review-output/v1';

/** Throws `Malformed` (bundle not trustworthy) or `InvalidFinding` (a bug of this reviewer). */
export function reviewBundleBytes(bytes: Uint8Array): string {
  const bundle = readBundle(bytes);
  const visible = new Set(COVERAGE_KINDS.flatMap((k) => bundle.coverage[k]));
  const findings = finalizeFindings(
    [...sourceFindings(bundle.sections), ...contractFindings(bundle.sections), ...historyFindings(bundle.sections), ...preservationFindings(bundle.sections)],
    visible,
  );
  return canonicalJson({
    coverage: bundle.coverage,
    findings,
    schema: OUTPUT_SCHEMA_ID,
    verdict: findings.length === 0 ? 'CLEAN' : 'DIRTY',
  });
}
