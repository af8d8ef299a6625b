// The strict parser of a reviewer's stdout (docs/reviewers.md#reviewer-output). Pure: bytes and the bundle's coverage object
// in, the opaque verdict out, or one coded error. Nothing of the rejected bytes ever reaches an error:
// the IDs name fixed fields (`coverage.atoms`, `findings[3].refs`), never a value the reviewer chose
// (docs/threat-model.md#rules-that-hold-everywhere "No secrets in output": a reviewer that echoes the bundle must not get it printed).
//
// Rules, each with its own code (docs/runner.md):
//  1. exactly the RFC 8785 bytes of ONE object, one trailing "\n" allowed — no whitespace, no key
//     order and no duplicate-key channel, no second object (`review_output_not_canonical`);
//  2. closed keys `schema`, `verdict`, `coverage`, `findings`, the schema literal, types
//     (`review_output_schema_invalid`);
//  3. closed enums: verdict, finding code, class, severity (`review_output_enum_invalid`);
//  4. coverage: exactly the bundle's kinds, each list sorted by UTF-8 bytes and unique
//     (`review_output_unsorted`) and equal to the bundle's list (`review_output_coverage_mismatch`);
//  5. at most 32 findings (`review_output_too_many_findings`), each `{code, class, severity, refs}`
//     with 1–4 refs that are IDs (`review_output_ref_invalid`: a path, a digest, free text) present in
//     the view (`review_output_ref_unknown`), sorted and unique; the findings themselves sorted and
//     unique by their canonical bytes (`review_output_unsorted`);
//  6. CLEAN ⇔ zero findings (`review_output_verdict_inconsistent`).
import { canonicalJson, isCanonicalJsonText } from './canonical.js';
import { fail } from './errors.js';
import { CONTRACT_ID_RE, compareUtf8 } from './contract/ids.js';
import { FINDING_CLASSES, FINDING_CODES, SEVERITIES, isVeto, type Finding } from './receipt-predicate.js';
import { findingSchema } from './receipt-predicate-schema.js';
import * as z from 'zod/mini';
import { list } from './schema-primitives.js';
import { utf8OrNull } from './utf8.js';

export const REVIEW_OUTPUT_SCHEMA = 'governed.review-output/v1';
import { REVIEW_MAX_FINDINGS as MAX_FINDINGS } from './limits.js';
import { REVIEW_MAX_REFS as MAX_REFS } from './limits.js';

/**
 * The reviewer output document, defined once (published as docs/schemas/reviewer-output.schema.json).
 * The parser below takes its keys and enums from it and checks the same shape field by field, so
 * that each broken rule gets its own code; the rules a schema cannot say (canonical bytes, the
 * coverage equal to the bundle's, refs present in the view, sort orders, CLEAN ⇔ no findings) are
 * the parser's alone.
 */
export const reviewOutputSchema = z.strictObject({
  coverage: z.record(z.string(), z.array(z.string())),
  findings: list(findingSchema, 0, MAX_FINDINGS),
  schema: z.literal(REVIEW_OUTPUT_SCHEMA),
  verdict: z.enum(['CLEAN', 'DIRTY']),
});
export type ReviewOutputDocument = z.infer<typeof reviewOutputSchema>;

const OUTPUT_KEYS = Object.keys(reviewOutputSchema.shape);
const FINDING_KEYS = Object.keys(findingSchema.shape);
const VERDICTS = reviewOutputSchema.shape.verdict.options;

/** The bundle's coverage object (docs/reviewers.md#the-reviewers-world): kind → sorted unique IDs, plus `relations`. */
export type CoverageObject = Readonly<Record<string, readonly string[]>>;

export interface ReviewOutput {
  readonly verdict: ReviewOutputDocument['verdict'];
  /** Sorted, unique, closed: what the receipt stores. */
  readonly findings: readonly Finding[];
  /** Exactly the veto findings (CRITICAL and preservation/scope/authority/release), in order. */
  readonly vetoes: readonly Finding[];
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function hasExactKeys(o: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Object.keys(o);
  return own.length === keys.length && keys.every((k) => Object.prototype.hasOwnProperty.call(o, k));
}

/** Strictly increasing by UTF-8 bytes: sorted and unique in one rule (docs/reviewers.md#reviewer-output). */
function sortedUnique(list: readonly string[]): boolean {
  for (let i = 1; i < list.length; i++) if (compareUtf8(list[i - 1] as string, list[i] as string) >= 0) return false;
  return true;
}

function stringList(v: unknown, field: string): string[] {
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) fail('review_output_schema_invalid', [field]);
  return v as string[];
}

/** Rule 1: the bytes are exactly one canonical JSON object, optionally followed by one newline. */
function decodeCanonical(stdout: Uint8Array): Record<string, unknown> {
  let bytes = stdout;
  if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0a) bytes = bytes.subarray(0, bytes.length - 1);
  if (bytes.length === 0) fail('review_output_not_canonical');
  const text = utf8OrNull(bytes);
  if (text === null) fail('review_output_not_canonical');
  const { canonical, value } = isCanonicalJsonText(text);
  if (!canonical) fail('review_output_not_canonical');
  if (!isPlainObject(value)) fail('review_output_schema_invalid', ['$']);
  return value;
}

/** Rule 4: the echoed coverage equals the bundle's, kind by kind. */
function checkCoverage(value: unknown, expected: CoverageObject): void {
  if (!isPlainObject(value)) fail('review_output_schema_invalid', ['coverage']);
  const kinds = Object.keys(expected).sort(compareUtf8);
  if (!hasExactKeys(value, kinds)) fail('review_output_coverage_mismatch', ['coverage']);
  for (const kind of kinds) {
    const got = stringList(value[kind], `coverage.${kind}`);
    if (!sortedUnique(got)) fail('review_output_unsorted', [`coverage.${kind}`]);
    const want = expected[kind] as readonly string[];
    if (got.length !== want.length || got.some((id, i) => id !== want[i])) fail('review_output_coverage_mismatch', [`coverage.${kind}`]);
  }
}

/** Rule 5 for one finding: closed keys and enums, refs that are IDs the view shows. */
function parseFinding(v: unknown, i: number, visible: ReadonlySet<string>): Finding {
  const at = `findings[${i}]`;
  if (!isPlainObject(v) || !hasExactKeys(v, FINDING_KEYS)) fail('review_output_schema_invalid', [at]);
  for (const k of ['code', 'class', 'severity'] as const) {
    if (typeof v[k] !== 'string') fail('review_output_schema_invalid', [`${at}.${k}`]);
  }
  if (!(FINDING_CODES as readonly string[]).includes(v.code as string)) fail('review_output_enum_invalid', [`${at}.code`]);
  if (!(FINDING_CLASSES as readonly string[]).includes(v.class as string)) fail('review_output_enum_invalid', [`${at}.class`]);
  if (!(SEVERITIES as readonly string[]).includes(v.severity as string)) fail('review_output_enum_invalid', [`${at}.severity`]);
  const refs = stringList(v.refs, `${at}.refs`);
  if (refs.length < 1 || refs.length > MAX_REFS) fail('review_output_schema_invalid', [`${at}.refs`]);
  for (const r of refs) {
    if (!CONTRACT_ID_RE.test(r)) fail('review_output_ref_invalid', [`${at}.refs`]);
    if (!visible.has(r)) fail('review_output_ref_unknown', [`${at}.refs`]);
  }
  if (!sortedUnique(refs)) fail('review_output_unsorted', [`${at}.refs`]);
  return { code: v.code, class: v.class, severity: v.severity, refs } as Finding;
}

/**
 * Parse reviewer stdout against the bundle's coverage object. `coverage` is the bundle's own
 * (digest-bound) object; every ID it lists outside `relations` is "present in the view".
 */
export function parseReviewOutput(stdout: Uint8Array, coverage: CoverageObject): ReviewOutput {
  const o = decodeCanonical(stdout);
  if (!hasExactKeys(o, OUTPUT_KEYS)) fail('review_output_schema_invalid', ['$']);
  if (o.schema !== REVIEW_OUTPUT_SCHEMA) fail('review_output_schema_invalid', ['schema']);
  if (typeof o.verdict !== 'string') fail('review_output_schema_invalid', ['verdict']);
  if (!(VERDICTS as readonly string[]).includes(o.verdict)) fail('review_output_enum_invalid', ['verdict']);
  checkCoverage(o.coverage, coverage);
  if (!Array.isArray(o.findings)) fail('review_output_schema_invalid', ['findings']);
  if (o.findings.length > MAX_FINDINGS) fail('review_output_too_many_findings', ['findings']);
  const visible = new Set<string>();
  for (const [kind, ids] of Object.entries(coverage)) if (kind !== 'relations') for (const id of ids) visible.add(id);
  const findings = o.findings.map((f, i) => parseFinding(f, i, visible));
  // Findings are sorted and unique by their canonical bytes (the order the receipt predicate checks).
  const keys = findings.map((f) => canonicalJson(f));
  if (!sortedUnique(keys)) fail('review_output_unsorted', ['findings']);
  const verdict = o.verdict as ReviewOutputDocument['verdict'];
  if ((verdict === 'CLEAN') !== (findings.length === 0)) fail('review_output_verdict_inconsistent', ['verdict']);
  return { verdict, findings, vetoes: findings.filter(isVeto) };
}
