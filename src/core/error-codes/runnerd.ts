// Error codes of separated mode (docs/runnerd.md): the daemon `governed runnerd`, its socket
// protocol, its setup and the writer-side client (`--runner SOCKET`). Add entries here only.
import { def, type ErrorDef } from './def.js';

export const RUNNERD_ERRORS = {
  // --- 1 internal -----------------------------------------------------------------------------
  runnerd_attestor_unavailable: def(1, 'A warm attestor of the daemon is not running (crashed and not yet restarted, or it never became ready): a run is recorded as ABORTED; a checkpoint is not written (the next append writes it).'),
  runnerd_draining: def(1, 'The daemon is shutting down (SIGTERM) and takes no new work; retry against the restarted daemon.'),
  runnerd_sandbox_unavailable: def(1, 'The daemon\'s sandbox host (the process that runs reviewers under the policy\'s sandbox uid) is not running; nothing was claimed, or a run in flight was recorded as ABORTED. Restart the daemon.'),
  runnerd_answer_invalid: def(1, 'The request was sent, but the daemon\'s answer did not arrive whole in time, was larger than the cap, or is not one strict response (a progress frame the client did not ask for or does not know makes it malformed). The daemon may have acted on the request: check with status before retrying.'),
  runnerd_busy: def(1, 'The daemon refused the connection: this client uid holds too many open connections, or all connections together hold too many request bytes not yet read whole (src/core/limits.ts); nothing was done; retry when earlier requests have finished.'),

  // --- 2 usage / configuration ----------------------------------------------------------------
  runnerd_request_invalid: def(2, 'The socket message is not one strict JSON request of the runnerd protocol (unknown operation or field, wrong type, or not one line); nothing was done.'),
  runnerd_request_too_large: def(2, 'The socket message is larger than the protocol cap; the connection was closed and nothing was done.'),
  runnerd_request_timeout: def(2, 'The socket message did not arrive whole within the protocol timeout; the connection was closed and nothing was done.'),
  runnerd_unreachable: def(2, 'The runner socket could not be reached (absent, permission denied, or the connection was refused); nothing was sent.'),
  runnerd_option_not_remote: def(2, 'This option names a file or directory of the runner machine; with --runner the daemon uses its own configuration and the option is refused.'),
  runnerd_not_root: def(2, 'governed runnerd and runnerd setup must be started as root (they switch to the governed and attestor users themselves).'),
  runnerd_user_missing: def(2, 'A system user or group runnerd needs does not exist (run governed runnerd setup first).'),
  runnerd_peercred_unavailable: def(2, 'The peer-credential addon (build/peercred.node) is missing or failed to load; rebuild with npm run build. The daemon does not start without it.'),
  runnerd_store_copy_too_large: def(2, 'The daemon\'s store is larger than the store-copy cap of gate --runner (src/core/limits.ts); nothing was sent and no decision was made.'),
  runnerd_sandbox_uid_changed: def(2, 'The policy pinned now names a sandbox uid other than the one the daemon\'s sandbox host was started under (at daemon start, from the policy pinned then); nothing was claimed. Restart the daemon as root.'),
  runnerd_sandbox_uid_unsafe: def(2, 'The policy\'s sandbox uid is root, the governed user or an attestor\'s uid; the daemon does not start (a reviewer must run under a uid of its own).'),
  runnerd_path_unsupported: def(2, 'A file the writer-side client must send has a newline or a double quote in its repository path, which the client cannot name safely; nothing was sent. Rename the file.'),
  runnerd_worktree_snapshot_failed: def(2, 'The writer-side client could not snapshot the working tree as a commit (not a git repository, or git failed); nothing was sent.'),

  // --- 4 verification ---------------------------------------------------------------------------
  runnerd_content_invalid: def(4, 'The git bundle sent as the reviewed content did not verify, or its commit is not the one the request names; nothing was imported or recorded.'),
  runnerd_attestor_pin_mismatch: def(4, 'A warm attestor runs program or configuration bytes the current policy no longer allowlists (or that changed since it was pinned); it signs nothing and the run was recorded as ABORTED.'),
  runnerd_store_copy_invalid: def(4, 'The store copy the daemon sent for gate --runner does not inflate within its cap (or is not gzip); no decision was made.'),
  runnerd_store_copy_stale: def(4, 'The store copy gate --runner received is older than a checkpoint of the daemon\'s log (the one sent with it, or one given with --runner-checkpoint): its log has fewer entries than the signed tree size. No decision was made.'),
  runnerd_state_unsafe: def(4, 'A runnerd directory or file has the wrong owner or mode (governed runnerd doctor names it); the daemon does not start and setup refuses to use it.'),

  // --- 6 untrusted ------------------------------------------------------------------------------
  runnerd_client_uid_forbidden: def(6, 'The client uid (from the kernel) is one of the daemon\'s own uids (governed, an attestor, the sandbox): a writer must run as a different user. Nothing was done.'),
  runnerd_not_owner: def(6, 'The request names a unit, writer session, lease, challenge, receipt, authority request or authority record that belongs to another client uid (or was made before the daemon); nothing was done.'),
  runnerd_pid_not_client: def(6, 'The writer pid named is not a live process of the calling uid (from the kernel); nothing was recorded.'),
} as const satisfies Record<string, ErrorDef>;

export const RUNNERD_REASONS = {} as const satisfies Record<string, string>;
