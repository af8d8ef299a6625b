// known_issues suppression and invalidation (docs/review-pass-protocol.md#known-issues Anti-Anchoring).
//
// docs/review-pass-protocol.md#suppression: a dismissed finding becomes a known issue with
//   range = [max(1, line - 10) : line + 10];  suppress_hash = sha256(lines in range)
// and, without a line number, the hash of the entire file (untracked files: the working-tree
// content — the orchestrator passes whatever bytes are on disk).
// docs/review-pass-protocol.md#invalidation: before each round, every known issue is re-hashed; a deleted file or an invalid range removes
// it ("file changed fundamentally"), a different hash removes it ("code changed — allow re-detection").
// So an edit inside ±10 lines invalidates the suppression, an edit outside does not.
//
// Pure: the orchestrator reads the files and passes their text (null = deleted/unreadable).
// Opaque governed findings have no file to hash; they never become known issues (docs/decision.md#the-rules-in-short: in
// governed mode only a signed `dismiss` authority lifts a DIRTY verdict).
import { lineRangeDigest, wholeTextDigest } from '../shared/stable-hash.js';
import { matchRule } from './match-findings.js';
import { severityRank, type AdjudicableFinding } from './finding.js';

export const SUPPRESS_WINDOW = 10; // docs/review-pass-protocol.md#suppression "line - 10 : line + 10"

export interface KnownIssue {
  readonly file: string;
  /** [start, end], 1-based inclusive; null = whole file. */
  readonly range: readonly [number, number] | null;
  readonly suppress_hash: string;
  /** The dismissed finding, used to recognise its re-reports (docs/review-pass-protocol.md#matching-rules rules). */
  readonly finding: AdjudicableFinding;
  readonly dismissed_in_round: number;
}

export type InvalidationReason = 'file_missing' | 'range_invalid' | 'hash_changed';

/** docs/review-pass-protocol.md#suppression range for a line. */
export function suppressRange(line: number): [number, number] {
  return [Math.max(1, line - SUPPRESS_WINDOW), line + SUPPRESS_WINDOW];
}

/** docs/review-pass-protocol.md#suppression suppress_hash of a range (or the whole file); null when the range is invalid for the text. */
export function suppressHash(text: string, range: readonly [number, number] | null): string | null {
  if (range === null) return wholeTextDigest(text);
  return lineRangeDigest(text, range[0], range[1]);
}

/** Make a known issue from a dismissed finding; null when it cannot be hashed (then it is not suppressed). */
export function makeKnownIssue(
  finding: AdjudicableFinding,
  fileText: string | null | undefined,
  round: number,
): KnownIssue | null {
  if (finding.match_key !== null || fileText === null || fileText === undefined) return null;
  const range = finding.line === null ? null : suppressRange(finding.line);
  const hash = suppressHash(fileText, range);
  if (hash === null) return null;
  return { file: finding.file, range, suppress_hash: hash, finding, dismissed_in_round: round };
}

export interface Invalidation {
  readonly kept: readonly KnownIssue[];
  readonly removed: ReadonlyArray<{ readonly issue: KnownIssue; readonly reason: InvalidationReason }>;
}

/** docs/review-pass-protocol.md#invalidation: re-check every known issue against the current file texts. */
export function invalidateKnownIssues(
  issues: readonly KnownIssue[],
  files: Readonly<Record<string, string | null>>,
): Invalidation {
  const kept: KnownIssue[] = [];
  const removed: Array<{ issue: KnownIssue; reason: InvalidationReason }> = [];
  for (const issue of issues) {
    const text = Object.prototype.hasOwnProperty.call(files, issue.file) ? files[issue.file] : null;
    if (text === null || text === undefined) {
      removed.push({ issue, reason: 'file_missing' });
      continue;
    }
    const current = suppressHash(text, issue.range);
    if (current === null) removed.push({ issue, reason: 'range_invalid' });
    else if (current !== issue.suppress_hash) removed.push({ issue, reason: 'hash_changed' });
    else kept.push(issue);
  }
  return { kept, removed };
}

/**
 * True when a new finding is a re-report of a known issue: same file, matched by the docs/review-pass-protocol.md#matching-rules rules, and
 * not more severe than what was dismissed. Veto-shaped findings are never suppressed (docs/review-pass-protocol.md#classification "never
 * AUTO-DISMISS"; a known issue must not become a back door for dismissing a veto).
 */
export function isSuppressed(finding: AdjudicableFinding, issues: readonly KnownIssue[]): boolean {
  if (finding.veto) return false;
  return issues.some((k) => {
    if (severityRank(finding.severity) < severityRank(k.finding.severity)) return false;
    // matchRule refuses same-reviewer pairs (docs/review-pass-protocol.md#grouping); a re-report by the same reviewer is still the
    // same issue, so compare against the known finding under a neutral reviewer name.
    return matchRule({ ...k.finding, reviewer: '\u0000known' }, finding) !== null;
  });
}
