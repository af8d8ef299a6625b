// The review-receipt predicate's one definition (docs/formats.md#receipt): everything a receipt binds.
// Closed at every level. Read at run time through its compiled form (./receipt-predicate.ts,
// docs/architecture.md#compiled-formats).
// Times are whole seconds in UTC (`YYYY-MM-DDTHH:MM:SSZ`), runner clock (docs/reviewers.md#reviewer-output, docs/formats.md#receipt).
import * as z from 'zod/mini';
import { count, digestString, gitId, hex64, int, isoSeconds, list, str } from './schema-primitives.js';
import { egressReceiptSchema } from './egress-schema.js';
import { STAGES, FINDING_CODES, FINDING_CLASSES, SEVERITIES } from './review-vocabulary.js';
import { statementSchema } from './intoto-schema.js';
import { CHALLENGE_ID_RE, CONTRACT_ID_RE, EXECUTION_ID_RE, NAME_RE, RUN_ID_RE, UNIT_ID_RE, WRITER_SESSION_RE } from './ids.js';
import { CHECK_COMMAND_ARG_MAX_CHARS, CHECK_COMMAND_MAX_ARGS, CHECK_DEPENDENCY_ROOT_MAX_CHARS } from './limits.js';
import { BOOT_ID_RE } from './ids.js';
import { INTERPRETER_PATH_RE } from './sandbox-bounds.js';
import { KERNEL_PID_MAX, KERNEL_UID_MAX } from './limits.js';

export { digestString, hex64, isoSeconds };
const id = str({ re: CONTRACT_ID_RE });

/** One opaque finding (docs/reviewers.md#reviewer-output): closed codes and IDs only, never text. */
export const findingSchema = z.strictObject({
  code: z.enum(FINDING_CODES),
  class: z.enum(FINDING_CLASSES),
  severity: z.enum(SEVERITIES),
  refs: list(id, 1, 4),
});
export type Finding = z.infer<typeof findingSchema>;


const processIdentityShape = {
  boot_id: str({ re: BOOT_ID_RE }),
  pid: int(1, KERNEL_PID_MAX),
  start_time: str({ re: /^\d{1,20}$/ }), // clock ticks since boot (/proc/<pid>/stat field 22)
};
export const processIdentitySchema = z.strictObject(processIdentityShape);

/**
 * Separated mode only (docs/security.md#trust-modes): who ran the run, every uid
 * read by the daemon itself and the client's uid and pid as the kernel reported them for the socket
 * connection (SO_PEERCRED), never as the client said.
 */
export const separationSchema = z.strictObject({
  boot_id: str({ re: BOOT_ID_RE }),
  daemon_pid: int(1, KERNEL_PID_MAX),
  daemon_start_time: str({ re: /^\d{1,20}$/ }),
  daemon_uid: int(1, KERNEL_UID_MAX),
  /** `probe`, `log`: the warm probe and log attestors' uids (docs/runnerd.md "Processes and users");
   * absent in receipts of daemons that signed probes, or checkpoints, under their own uid. */
  attestor_uids: z.strictObject({
    reviewer: int(1, KERNEL_UID_MAX),
    runner: int(1, KERNEL_UID_MAX),
    probe: z.optional(int(1, KERNEL_UID_MAX)),
    log: z.optional(int(1, KERNEL_UID_MAX)),
  }),
  client_uid: int(0, KERNEL_UID_MAX),
  client_pid: int(1, KERNEL_PID_MAX),
});
export type Separation = z.infer<typeof separationSchema>;

export const reviewReceiptPredicateSchema = z.strictObject({
  trust_mode: z.enum(['co-located', 'separated']),
  unit: str({ re: UNIT_ID_RE }),
  stage: z.enum(STAGES),
  slot: str({ re: NAME_RE }),
  challenge_id: str({ re: CHALLENGE_ID_RE }),
  run_id: str({ re: RUN_ID_RE }),
  execution_id: str({ re: EXECUTION_ID_RE }),
  verdict: z.enum(['CLEAN', 'DIRTY']),
  findings: list(findingSchema, 0, 32),
  vetoes: list(findingSchema, 0, 32),
  coverage_matched: z.literal(true),
  bundle_digest: digestString,
  view_digest: digestString,
  planning_state_digest: digestString,
  content_digest: digestString,
  work_state_digest: digestString,
  inputs: z.strictObject({
    contract_digest: digestString,
    sources_digest: digestString,
    workspace_digest: digestString,
    baseline: z.strictObject({ commit: gitId, tree: gitId }),
    policy_digest: digestString,
    trust_digest: digestString,
    scope_epoch: count,
    work_revision: count,
  }),
  reviewer: z.strictObject({
    name: str({ re: NAME_RE }),
    sha256: hex64,
    interpreter: str({ re: INTERPRETER_PATH_RE }),
  }),
  sandbox: z.strictObject({
    bwrap_sha256: hex64,
    profile_digest: digestString,
    seccomp_digest: digestString,
    uid: int(0, KERNEL_UID_MAX),
    uid_separated: z.boolean(),
  }),
  attestors: z.strictObject({
    reviewer_sha256: hex64,
    runner_sha256: hex64,
  }),
  reviewer_process: z.strictObject({
    ...processIdentityShape,
    namespaces: z.strictObject({
      cgroup: count,
      ipc: count,
      mnt: count,
      net: count,
      pid: count,
      user: count,
      uts: count,
    }),
  }),
  writers: list(z.strictObject({ ...processIdentityShape, writer_session: str({ re: WRITER_SESSION_RE }) }), 0, 64),
  times: z.strictObject({ issued_at: isoSeconds, started_at: isoSeconds, finished_at: isoSeconds }),
  /** Present only when the reviewer reached a model endpoint through the egress broker (docs/egress.md). */
  egress: z.optional(egressReceiptSchema),
  /** Check reviewers only (docs/reviewers.md#check-reviewers): the pinned adapter, the command the
   * policy fixed, the sealed snapshot's digest (= inputs.workspace_digest) and the dependency root
   * sealed beside it (null when the policy declares none). */
  check: z.optional(
    z.strictObject({
      adapter_sha256: hex64,
      command: list(str({ min: 1, max: CHECK_COMMAND_ARG_MAX_CHARS }), 1, CHECK_COMMAND_MAX_ARGS),
      snapshot_digest: digestString,
      dependency_root: z.nullable(z.strictObject({ path: str({ min: 1, max: CHECK_DEPENDENCY_ROOT_MAX_CHARS }), digest: digestString })),
    }),
  ),
  separation: z.optional(separationSchema),
});

export type ReviewReceiptPredicate = z.infer<typeof reviewReceiptPredicateSchema>;

// One schema pass over statement and predicate together (the hot path of bulk verification).
export const receiptStatementSchema = z.extend(statementSchema, { predicate: reviewReceiptPredicateSchema });
export type ReceiptStatement = z.infer<typeof receiptStatementSchema>;
