// What one reviewer said in one round, after parsing (docs/review-pass-protocol.md#reviewer-output-format output format, docs/review-pass-protocol.md#output-parsing-rules
// parsing strategy). Produced by parse-json-output.ts, parse-text-output.ts or
// parse-governed-output.ts; consumed by the health score and the adjudicator.
import type { AdjudicableFinding, ReviewerVerdict } from './finding.js';
import { REPO_PATH_MAX_CHARS } from '../../core/limits.js';

export type ParseStrategy = 'json' | 'text_fallback' | 'governed';

export type ReqCoverageStatus = 'COVERED' | 'NOT_FOUND' | 'DEFERRED';

export interface ReqCoverageEntry {
  readonly req_id: string;
  readonly status: ReqCoverageStatus;
  /** `path/to/file:symbol_name` when COVERED and given. */
  readonly location: string | null;
}

/** docs/review-pass-protocol.md#reviewer-output-format "### REQ-ID Coverage": per-REQ lines, or ALL COVERED, or N/A. */
export interface ReqCoverageReport {
  readonly all_covered: boolean;
  readonly not_applicable: boolean;
  readonly entries: readonly ReqCoverageEntry[];
}

export interface ParsedReviewerOutput {
  readonly reviewer: string;
  readonly strategy: ParseStrategy;
  /** false when no structured data could be extracted (docs/review-pass-protocol.md#output-parsing-rules: health LOW). */
  readonly structured: boolean;
  /** Accepted read evidence: exact repository-relative paths only (docs/review-pass-protocol.md#reviewer-output-format). */
  readonly files_read: readonly string[];
  /** The health score's files_read signal (docs/review-pass-protocol.md#health-score): a non-empty Files Read list, or governed's coverage match. */
  readonly read_evidence: boolean;
  /** Entries refused as read evidence (ranges, globs, directories, "A through B"). */
  readonly files_read_rejected: number;
  readonly findings: readonly AdjudicableFinding[];
  /** Finding lines refused as incomplete (no location, severity or description; unknown tag). */
  readonly rejected_findings: number;
  /** Findings kept but downgraded (class tag missing). */
  readonly downgraded_findings: number;
  readonly req_coverage: ReqCoverageReport | null;
  readonly verdict: ReviewerVerdict | null;
}

const RANGE_WORDS = /\s(?:through|thru|to)\s|…|\.\.\.|\s-\s/i;
const GLOB_CHARS = /[*?[\]{}]/;

/**
 * docs/review-pass-protocol.md#reviewer-output-format: "List every required repository-relative path separately. Ranges, directory
 * shorthand, globs, and 'A through B' do not count as read evidence." Absolute paths and `..`
 * segments are not repository-relative either.
 */
export function isExactReadPath(entry: string): boolean {
  if (entry.length === 0 || entry.length > REPO_PATH_MAX_CHARS) return false;
  if (RANGE_WORDS.test(entry) || GLOB_CHARS.test(entry)) return false;
  if (entry.endsWith('/') || entry.startsWith('/') || entry.includes('\\')) return false;
  if (/\s/.test(entry)) return false;
  const segments = entry.split('/');
  if (segments.some((s) => s === '..' || s === '' )) return false;
  return true;
}
