// The JSON parse strategy (docs/review-pass-protocol.md#output-parsing-rules "Primary: Parse JSON output when tool supports
// --output-format json"). The JSON carries the same four sections as the text format of docs/review-pass-protocol.md#reviewer-output-format, closed:
//   { "files_read": [path...],
//     "findings": [{ "file", "line": int|null, "symbol": str|null, "severity", "finding_class",
//                    "req_id": str|null, "description" }...],
//     "req_coverage": null | { "all_covered": bool, "not_applicable": bool,
//                              "entries": [{ "req_id", "status": COVERED|NOT_FOUND|DEFERRED, "location": str|null }] },
//     "verdict": "CLEAN" | "FOUND_ISSUES" | "VETO" }
// `veto` and `reviewer` are never taken from the reviewer: veto is derived from severity and class
// (docs/review-pass-protocol.md#finding-schema), the reviewer name comes from the orchestrator. Parsing is strict (duplicate keys refused,
// canonical domain) and any schema error is `review_pass_output_invalid` — no partial acceptance.
import * as z from 'zod/mini';
import { int, list, str } from '../../core/schema-primitives.js';
import { fail, isGovernedError } from '../../core/errors.js';
import { parseJsonStrict } from '../../core/strict-parse.js';
import { FindingClassSchema, SeveritySchema, makeFinding, VERDICTS } from './finding.js';
import { isExactReadPath, type ParsedReviewerOutput } from './reviewer-output.js';
import { REPO_PATH_MAX_CHARS, REVIEW_PASS_DESCRIPTION_MAX_CHARS, REVIEW_PASS_MAX_FINDINGS, REVIEW_PASS_SYMBOL_MAX_CHARS } from '../../core/limits.js';

const REQ = str({ re: /^REQ-\d+$/ });
const JsonFindingSchema = z.strictObject({
  file: str({ min: 1, max: REPO_PATH_MAX_CHARS }),
  line: z.nullable(int(1, Number.MAX_SAFE_INTEGER)),
  symbol: z.nullable(str({ min: 1, max: REVIEW_PASS_SYMBOL_MAX_CHARS })),
  severity: SeveritySchema,
  finding_class: FindingClassSchema,
  req_id: z.nullable(REQ),
  description: str({ min: 1, max: REVIEW_PASS_DESCRIPTION_MAX_CHARS }),
});

const JsonCoverageSchema = z.strictObject({
  all_covered: z.boolean(),
  not_applicable: z.boolean(),
  entries: z.array(
    z.strictObject({
      req_id: REQ,
      status: z.enum(['COVERED', 'NOT_FOUND', 'DEFERRED']),
      location: z.nullable(str({ min: 1, max: REPO_PATH_MAX_CHARS })),
    }),
  ),
});

export const JsonReviewerOutputSchema = z.strictObject({
  files_read: z.array(str({ max: REPO_PATH_MAX_CHARS })),
  findings: list(JsonFindingSchema, 0, REVIEW_PASS_MAX_FINDINGS),
  req_coverage: z.nullable(JsonCoverageSchema),
  verdict: z.enum(VERDICTS),
});

export function parseJsonReviewerOutput(reviewer: string, text: string): ParsedReviewerOutput {
  let value: unknown;
  try {
    value = parseJsonStrict(text.replace(/\n$/, ''));
  } catch (e) {
    // The strict parser's own code (json_invalid, json_duplicate_key, ...) is less useful to the
    // orchestrator than one code meaning "this reviewer's JSON output is unusable".
    if (isGovernedError(e)) fail('review_pass_output_invalid', [reviewer]);
    throw e;
  }
  const parsed = JsonReviewerOutputSchema.safeParse(value);
  if (!parsed.success) fail('review_pass_output_invalid', [reviewer]);
  const out = parsed.data;
  const files = out.files_read.filter(isExactReadPath);
  return {
    reviewer,
    strategy: 'json',
    structured: true,
    files_read: files,
    read_evidence: files.length > 0,
    files_read_rejected: out.files_read.length - files.length,
    findings: out.findings.map((f) => makeFinding({ ...f, reviewer })),
    rejected_findings: 0,
    downgraded_findings: 0,
    req_coverage: out.req_coverage,
    verdict: out.verdict,
  };
}
