// Public surface of the pure bundle builder (docs/bundle.md#views, docs/reviewers.md#the-reviewers-world): flows import from here.
export { buildBundle, viewDigestOf, type BundleInput, type BuiltBundle } from './build.js';
export { buildStageSections, evidencePaths, type FileInput, type SectionInputs, type ScopeHistoryInput, type ChangeInput, type ManifestEntryInput } from './sections.js';
export { viewFor, stageSections, ROLE_SECTIONS, COMPLETE_VIEW, type ViewPlan } from './views.js';
export { coverageOf, isEmptySections } from './coverage.js';
export { changeId, scopeVersionId } from './ids.js';
export { sourcesDigest, sortSourceDigests, type SourceDigest } from './sources-digest.js';
export {
  bundleSchema,
  BUNDLE_SCHEMA_ID,
  SECTION_NAMES,
  COVERAGE_KINDS,
  type Bundle,
  type Sections,
  type Coverage,
  type SectionName,
  type CoverageKind,
  type PriorReceipt,
  type FileEntry,
} from './schema.js';
