// The reviewer sandbox (docs/runner.md#the-run-step-by-step steps 4–6; docs/sandbox.md). The public surface for `governed
// review-run` and `governed sandbox profile`.
export { prepareSandbox, runSandboxed } from './run.js';
export type { SandboxRequest, SandboxResult, SandboxIdentity, SandboxFacts, SandboxAllowlist, ReviewerSource, PreparedSandbox } from './run.js';
export { sandboxLimitsFromPolicy, DEFAULT_LIMITS, type SandboxLimits } from './limits.js';
export { staticProfile, staticProfileDigest, staticProfileSha256, SANDBOX_PATHS, FIXED_ENV, type StaticProfile } from './profile.js';
export { buildBwrapArgv, FD_NUMBERS } from './argv.js';
export { bwrapInfo, inspectBwrap, DEFAULT_BWRAP_PATH, type BwrapInfo } from './bwrap.js';
export { closeInheritedFds } from './fds.js';
export { namespaceMembers } from './proc.js';
export { seccompBlob, seccompDigest, sandboxArchSupported } from '../seccomp/index.js';
