// The review-pass finding model (docs/review-pass-protocol.md#finding-schema) and the internal form the adjudication engine
// works on. Every finding source — JSON output, text_fallback output, governed opaque output —
// becomes an `AdjudicableFinding`, so one matcher and one classifier serve all modes.
import * as z from 'zod/mini';
import { int, str } from '../../core/schema-primitives.js';

export const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFO'] as const;
export const FINDING_CLASSES = ['correctness', 'preservation', 'scope', 'authority', 'release'] as const;
export const VERDICTS = ['CLEAN', 'FOUND_ISSUES', 'VETO'] as const;

export type Severity = (typeof SEVERITIES)[number];
export type FindingClass = (typeof FINDING_CLASSES)[number];
export type ReviewerVerdict = (typeof VERDICTS)[number];

export const SeveritySchema = z.enum(SEVERITIES);
export const FindingClassSchema = z.enum(FINDING_CLASSES);

/** Lower rank = more severe. */
export function severityRank(s: Severity): number {
  return SEVERITIES.indexOf(s);
}

/** The more severe of two severities. */
export function maxSeverity(a: Severity, b: Severity): Severity {
  return severityRank(a) <= severityRank(b) ? a : b;
}

/** Classes whose CRITICAL findings are vetoes (docs/review-pass-protocol.md#classification "VETO classes"; docs/reviewers.md#reviewer-output). */
export const VETO_CLASSES: ReadonlySet<FindingClass> = new Set(['preservation', 'scope', 'authority', 'release']);

/** docs/review-pass-protocol.md#classification: severity CRITICAL and class in [preservation, scope, authority, release]. */
export function isVetoShape(severity: Severity, findingClass: FindingClass): boolean {
  return severity === 'CRITICAL' && VETO_CLASSES.has(findingClass);
}

/** The seed's Finding (docs/review-pass-protocol.md#finding-schema), closed. `veto` is derived, never taken from a reviewer. */
export const FindingSchema = z.strictObject({
  file: str({ min: 1 }),
  line: z.nullable(int(1, Number.MAX_SAFE_INTEGER)),
  symbol: z.nullable(str({ min: 1 })),
  severity: SeveritySchema,
  finding_class: FindingClassSchema,
  veto: z.boolean(),
  req_id: z.nullable(str({ min: 1 })),
  description: str({ min: 1 }),
  reviewer: str({ min: 1 }),
});
export type Finding = z.infer<typeof FindingSchema>;

/**
 * A finding as the engine adjudicates it.
 * - `match_key`: governed mode (docs/review-pass.md#review-protocols "matching by code and refs"): `code|ref1,ref2` with refs
 *   sorted; when set, findings match only on equal keys (no line/keyword heuristics on opaque data).
 * - `class_missing`: text_fallback downgrade (parse-text-output.ts): the reviewer omitted the class
 *   tag, so the finding was recorded as `correctness`; it is never AUTO_DISMISSED because nothing
 *   proves it is not a veto class.
 */
export interface AdjudicableFinding extends Finding {
  readonly match_key: string | null;
  readonly class_missing: boolean;
}

/** Build a finding with its derived veto bit (docs/review-pass-protocol.md#finding-schema `veto`). */
export function makeFinding(
  fields: Omit<Finding, 'veto'> & { match_key?: string | null; class_missing?: boolean },
): AdjudicableFinding {
  return {
    file: normalizeFindingPath(fields.file),
    line: fields.line,
    symbol: fields.symbol,
    severity: fields.severity,
    finding_class: fields.finding_class,
    veto: isVetoShape(fields.severity, fields.finding_class),
    req_id: fields.req_id,
    description: fields.description,
    reviewer: fields.reviewer,
    match_key: fields.match_key ?? null,
    class_missing: fields.class_missing ?? false,
  };
}

/**
 * Group key normalisation (docs/review-pass-protocol.md#grouping "Group all findings by file path"): `./src/a.ts` and
 * `src/a.ts` are one file. Nothing else is rewritten: case and separators are significant on Linux.
 */
export function normalizeFindingPath(path: string): string {
  let p = path;
  while (p.startsWith('./')) p = p.slice(2);
  return p;
}

/** Canonical identity fields of a finding (used for stable ids). */
export function findingIdentity(f: AdjudicableFinding): Record<string, string | number | boolean | null> {
  return {
    reviewer: f.reviewer,
    file: f.file,
    line: f.line,
    symbol: f.symbol,
    severity: f.severity,
    finding_class: f.finding_class,
    req_id: f.req_id,
    description: f.description,
    match_key: f.match_key,
    class_missing: f.class_missing,
  };
}
