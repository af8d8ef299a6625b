// The review bundle's names (docs/bundle.md): its schema id, its sections and its coverage kinds.
// zod-free, so that the pinned reviewers, which read the bundle through its compiled form
// (docs/architecture.md#compiled-formats), carry no zod. Pure.

export const BUNDLE_SCHEMA_ID = 'governed.review-bundle/v1';

/** Every section name, in the order views list them. */
export const SECTION_NAMES = [
  'sources',
  'source_map',
  'contract',
  'authorities',
  'tombstones',
  'scope_history',
  'changes',
  'current_files',
  'baseline_files',
  'preservation',
  'prior_receipts',
] as const;
export type SectionName = (typeof SECTION_NAMES)[number];

export const COVERAGE_KINDS = [
  'sources',
  'atoms',
  'directives',
  'targets',
  'criteria',
  'implementations',
  'evidence',
  'authorities',
  'tombstones',
  'changes',
  'scope_versions',
  'surfaces',
] as const;
export type CoverageKind = (typeof COVERAGE_KINDS)[number];
