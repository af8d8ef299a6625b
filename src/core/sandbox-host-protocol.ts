// The line protocol between governed runnerd and its sandbox host (docs/runnerd.md#the-sandbox-host):
// one JSON object per line each way, over the host's stdin/stdout pipes (never a socket). The daemon
// sends one job per run (the exact sandbox request: allowlists, interpreter, environment, limits, the
// policy's uid, the reviewer's and the bundle's bytes); the host answers with what bwrap reported or
// a coded refusal. One definition for both ends. Pure.
import * as z from 'zod/mini';
import { count, hex64, int, str } from './schema-primitives.js';
import { DIGEST_RE } from './ids.js';
import { BWRAP_VERSION_MAX_CHARS, CHECK_DEPENDENCY_ROOT_MAX_CHARS, CODED_ERROR_ID_MAX_CHARS, PROGRAM_PATH_MAX_CHARS } from './limits.js';
import { BASE64_CHARS_RE, BOOT_ID_RE, ERROR_CODE_RE } from './ids.js';
import { EGRESS_SOCKET_PATH_RE } from './sandbox-bounds.js';
import { KERNEL_ID_FIELD_MAX, KERNEL_PID_MAX, KERNEL_UID_MAX } from './limits.js';

const b64 = str({ re: BASE64_CHARS_RE });
const id = int(1, Number.MAX_SAFE_INTEGER);
const uid = int(1, KERNEL_UID_MAX);
/** An absolute path without `.`/`..` segments (a sealed tree the daemon made). */
const sealedPath = str({ re: /^(\/(?!\.{1,2}(\/|$))[A-Za-z0-9._-]{1,255}){1,64}$/ });
const ns = z.strictObject({ cgroup: count, ipc: count, mnt: count, net: count, pid: count, user: count, uts: count });

export const sandboxHostJobSchema = z.strictObject({
  id,
  bwrap_path: str({ re: /^\/[^\0]{0,4095}$/ }),
  allow: z.strictObject({ bwrap: z.array(hex64), profile: z.array(hex64), seccomp: z.array(hex64), reviewer: hex64 }),
  interpreter: str({ max: PROGRAM_PATH_MAX_CHARS }),
  env: z.record(z.string(), z.string()),
  uid,
  gid: uid,
  limits: z.strictObject({ timeoutMs: count, memoryBytes: count, maxOutputBytes: count, nofile: count, nproc: count, fsize: count, tmpfsBytes: count }),
  reviewer_b64: b64,
  bundle_b64: b64,
  /** An egress slot (docs/runnerd.md#model-reviewers-and-the-egress-broker): the broker's socket
   * (in the daemon's egress socket directory) and the wiring's variables; the sandbox layer checks
   * the wiring again before bwrap runs. */
  egress: z.optional(
    z.strictObject({
      socket: str({ re: EGRESS_SOCKET_PATH_RE }),
      env: z.record(z.string(), z.string()),
      relay: z.optional(z.boolean()),
      terminate: z.optional(z.literal(true)),
    }),
  ),
  /** Behind the relay: its pinned bytes and the allowlist they must be on. */
  relay: z.optional(z.strictObject({ bytes_b64: b64, sha256: z.array(hex64) })),
  /** A check slot (docs/runnerd.md#check-slots-on-the-sandbox-host): the sealed trees the daemon made
   * in its sealed directory (the host opens them itself, read-only, for the check profile's
   * descriptors) and the dependency root's path inside the snapshot. */
  check: z.optional(
    z.strictObject({
      snapshot: sealedPath,
      dependencies: z.nullable(sealedPath),
      // Validated again by the sandbox layer (runner/sandbox/argv.ts) before bwrap runs.
      dependency_root: z.nullable(str({ min: 1, max: CHECK_DEPENDENCY_ROOT_MAX_CHARS })),
    }),
  ),
});
export type SandboxHostJob = z.infer<typeof sandboxHostJobSchema>;

export const sandboxHostReplySchema = z.union([
  z.strictObject({ ready: z.literal(true), uid, gid: uid, pid: int(1, KERNEL_PID_MAX) }),
  z.strictObject({ id, ok: z.literal(false), code: str({ re: ERROR_CODE_RE }), ids: z.array(str({ max: CODED_ERROR_ID_MAX_CHARS })).check(z.maxLength(16)) }),
  z.strictObject({
    id,
    ok: z.literal(true),
    started_at: count,
    finished_at: count,
    result: z.strictObject({
      exit_code: z.nullable(int(0, 1024)),
      signal: z.nullable(str({ re: /^SIG[A-Z0-9]{1,10}$/ })),
      timed_out: z.boolean(),
      output_overflow: z.boolean(),
      stdout_b64: b64,
      stderr_bytes: count,
      setup_failed: z.boolean(),
      cleanup_verified: z.boolean(),
      duration_ms: count,
      identity: z.strictObject({ boot_id: str({ re: BOOT_ID_RE }), pid: int(1, KERNEL_PID_MAX), start_time: str({ re: /^[0-9]{1,20}$/ }), namespaces: ns }),
      facts: z.strictObject({
        bwrapPath: str({ max: PROGRAM_PATH_MAX_CHARS }),
        bwrapSha256: hex64,
        bwrapVersion: str({ max: BWRAP_VERSION_MAX_CHARS }),
        profileDigest: str({ re: DIGEST_RE }),
        seccompDigest: str({ re: DIGEST_RE }),
        reviewerSha256: hex64,
        interpreter: str({ max: PROGRAM_PATH_MAX_CHARS }),
        uid: int(0, KERNEL_ID_FIELD_MAX),
        gid: int(0, KERNEL_ID_FIELD_MAX),
        uidSeparated: z.boolean(),
      }),
    }),
  }),
]);
export type SandboxHostReply = z.infer<typeof sandboxHostReplySchema>;
