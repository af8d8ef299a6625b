// Public surface of the workspace adapter (docs/contract.md#workspace-digest): flows import from here.
export { computeWorkspaceManifest, manifestOf, type Manifest, type ManifestEntry, type ScopeOptions } from './manifest.js';
export type { HashPoolOptions, HashPoolStats } from './hash-pool.js';
export { computeCommitManifest, readCommitFiles, resolveBaseline, type Baseline, type BlobLimit } from './commit.js';
export { changedPaths, diffManifests, type ChangedPath } from './changes.js';
export { workspaceStatus, type WorkspaceStatus, type WorkspaceStatusOptions } from './status.js';
export type { GitMode } from './hash-file.js';
