// The two-pass protocol's wire formats, exactly as two-pass-review.txt "Output Schema" defines
// them: `Finding` and its `ReviewOutput` envelope (schema_version "v1"). Closed objects (docs/threat-model.md#rules-that-hold-everywhere):
// an unknown key is an error. Cross-field rules that need the protocol's context (sequential ids,
// reviewer form, criterion for P0/P1) are checked by pass1.ts / verify.ts with their own codes.
import * as z from 'zod/mini';
import { list, str } from '../../core/schema-primitives.js';

export const SEVERITIES = ['P0', 'P1', 'P2', 'P3'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const VERDICTS = ['confirmed', 'demoted', 'rejected'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Bounds that keep one reviewer's output from flooding the report (not in the seed; a safe cap). */
import { REVIEW_PROTOCOL_MAX_FINDINGS as MAX_FINDINGS } from '../../core/limits.js';
import { TWO_PASS_MAX_CHECKS as MAX_CHECKS } from '../../core/limits.js';
import { REVIEW_PROTOCOL_MAX_TEXT as MAX_TEXT } from '../../core/limits.js';

const text = str({ max: MAX_TEXT });
const text1 = str({ min: 1, max: MAX_TEXT });
const line = z.int().check(z.gte(1));

export const FindingSchema = z
  .strictObject({
    // Seed: "id: sequential number starting from 1" (sequence checked in pass1.ts).
    id: z.int().check(z.gte(1)),
    severity: z.enum(SEVERITIES),
    title: text1,
    body: text,
    // Seed: "file path or null for global issues".
    file: z.nullable(text1),
    line_start: z.nullable(line),
    line_end: z.nullable(line),
    // Seed: "confidence: 0.0-1.0".
    confidence: z.number().check(z.gte(0), z.lte(1)),
    criterion: text,
    verdict: z.nullable(z.enum(VERDICTS)),
    // Seed field note: "Missing or null means unverified", so the key may be absent.
    validated_by: z._default(z.nullable(z.enum(['reviewer', 'verifier', 'machine'])), null),
    evidence: z.nullable(text),
  })
  .check(
    z.superRefine((f, ctx) => {
    // A global issue (file null) has no lines; a range ends at or after its start.
    if (f.file === null && (f.line_start !== null || f.line_end !== null)) {
      ctx.addIssue({ code: 'custom', path: ['line_start'], message: 'lines without a file' });
    }
    if (f.line_end !== null && (f.line_start === null || f.line_end < f.line_start)) {
      ctx.addIssue({ code: 'custom', path: ['line_end'], message: 'line range invalid' });
    }
    }),
  );

export type TwoPassFinding = z.output<typeof FindingSchema>;

export const ReviewOutputSchema = z.strictObject({
  schema_version: z.literal('v1'),
  findings: list(FindingSchema, 0, MAX_FINDINGS),
  checks_run: list(text1, 0, MAX_CHECKS),
});

export type ReviewOutput = z.output<typeof ReviewOutputSchema>;

/** Rank for comparisons: P0 is the most severe (rank 0). */
export function severityRank(s: Severity): number {
  return SEVERITIES.indexOf(s);
}

/** Seed "Auto-progression": P0 and P1 are the findings that trigger and survive verification. */
export function isP0P1(s: Severity): boolean {
  return s === 'P0' || s === 'P1';
}
