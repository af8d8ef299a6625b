// Error and reason codes owned by the sandbox domain (docs/commands.md#exit-codes, docs/runner.md#the-run-step-by-step steps 4–6; docs/sandbox.md).
// Every refusal happens before a reviewer process can run; the IDs name the check, never a value.
import { def, type ErrorDef } from './def.js';

export const SANDBOX_ERRORS = {
  // --- 1 internal -------------------------------------------------------------------------
  seccomp_blob_mismatch: def(1, 'The assembled seccomp filter differs from the pinned blob digest; this build is not the reviewed filter.'),
  sandbox_fd_scan_failed: def(1, 'The inherited file descriptors could not be enumerated and closed; nothing was run.'),
  sandbox_state_invalid: def(1, 'A prepared sandbox was released or aborted twice.'),

  // --- 2 usage / configuration -------------------------------------------------------------
  sandbox_arch_unsupported: def(2, 'The reviewer sandbox supports only x86_64 Linux.'),
  bwrap_path_invalid: def(2, 'The bubblewrap path must be absolute and normalized and name a regular file (not a symlink).'),
  bwrap_missing: def(2, 'bubblewrap was not found at the configured path; reviewers never run unsandboxed.'),
  bwrap_not_executable: def(2, 'The bubblewrap file is not executable.'),
  bwrap_too_old: def(2, 'bubblewrap is older than 0.8.0 (needed for --disable-userns and sized tmpfs).'),
  bwrap_unusable: def(2, 'bubblewrap --version failed or printed an unrecognised version.'),
  sandbox_helper_missing: def(2, 'A helper the sandbox runs from /usr (env, prlimit) is missing or not a root-owned executable.'),
  sandbox_argument_invalid: def(2, 'A sandbox input is invalid (environment name or value, limit, uid, interpreter or reviewer size).'),
  sandbox_setup_failed: def(2, 'bubblewrap could not set up the sandbox (namespaces, mounts); no reviewer ran.'),

  // --- 4 verification ----------------------------------------------------------------------
  bwrap_changed: def(4, 'The bubblewrap file changed between hashing and running it.'),
  sandbox_not_isolated: def(4, 'The sandboxed process shares a namespace with the runner.'),
  sandbox_identity_mismatch: def(4, 'The sandboxed process identity read from /proc disagrees with bubblewrap\'s status.'),
  sandbox_uid_mismatch: def(4, 'The sandboxed process does not run as the expected unprivileged uid/gid.'),

  // --- 6 untrusted -------------------------------------------------------------------------
  bwrap_setuid: def(6, 'The bubblewrap file is setuid or setgid; governed never relies on a setuid bwrap.'),
  bwrap_insecure_mode: def(6, 'The bubblewrap file is writable by group or others.'),
  bwrap_not_allowlisted: def(6, 'The bubblewrap sha256 is not on the policy allowlist; nothing was run.'),
  sandbox_profile_not_allowlisted: def(6, 'The static sandbox profile digest is not on the policy allowlist; nothing was run.'),
  seccomp_not_allowlisted: def(6, 'The seccomp blob digest is not on the policy allowlist; nothing was run.'),
  reviewer_not_allowlisted: def(6, 'The streamed reviewer bytes do not match the allowlisted sha256; the reviewer was never released.'),
  sandbox_interpreter_invalid: def(6, 'The interpreter is not a root-owned, non-writable, non-setuid executable under /usr.'),
} as const satisfies Record<string, ErrorDef>;

export const SANDBOX_REASONS = {} as const satisfies Record<string, string>;
