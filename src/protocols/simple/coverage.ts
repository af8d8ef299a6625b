// simple-review.txt "Track Coverage: COMPLETE | INCOMPLETE separately for each reviewer.
// Incomplete coverage is not evidence that the unreadable surface has no findings". The lead does
// not take a reviewer's COMPLETE on trust: a reviewer that failed, reported unreadable paths, or
// did not review every scope path ("Round 1 still requires reading every target file") is
// INCOMPLETE. A scope path counts as reviewed when it, or a path under it, is in reviewed_paths.
import type { ReviewerRound } from './schema.js';

export type CoverageGap = 'reviewer_failed' | 'reported_incomplete' | 'unreadable_paths' | 'scope_path_not_reviewed';

export interface ReviewerCoverage {
  readonly slot: string;
  readonly coverage: 'COMPLETE' | 'INCOMPLETE';
  readonly gaps: readonly CoverageGap[];
  readonly missing_scope_paths: readonly string[];
}

function covers(reviewed: readonly string[], scopePath: string): boolean {
  const dir = scopePath.endsWith('/') ? scopePath : `${scopePath}/`;
  return reviewed.some((p) => p === scopePath || p.startsWith(dir));
}

export function reviewerCoverage(r: ReviewerRound, scopePaths: readonly string[]): ReviewerCoverage {
  const gaps: CoverageGap[] = [];
  if (r.status === 'failed') gaps.push('reviewer_failed');
  if (r.coverage === 'INCOMPLETE') gaps.push('reported_incomplete');
  if (r.unreadable_paths.length > 0) gaps.push('unreadable_paths');
  const missing = scopePaths.filter((p) => !covers(r.reviewed_paths, p));
  if (missing.length > 0) gaps.push('scope_path_not_reviewed');
  return { slot: r.slot, coverage: gaps.length === 0 ? 'COMPLETE' : 'INCOMPLETE', gaps, missing_scope_paths: missing };
}
