// The review-receipt predicate (docs/formats.md#receipt): everything a receipt binds. Closed at every level.
// Times are whole seconds in UTC (`YYYY-MM-DDTHH:MM:SSZ`), runner clock (docs/reviewers.md#reviewer-output, docs/formats.md#receipt).
import * as z from 'zod/mini';
import { count, digestString, gitId, hex64, int, isoSeconds, list, str } from './schema-primitives.js';
import { egressReceiptSchema } from './egress-schema.js';
import { transcriptViolation } from './egress-rules.js';
import { STAGES, FINDING_CODES, FINDING_CLASSES, SEVERITIES, VETO_CLASSES } from './review-vocabulary.js';
import { CHALLENGE_ID_RE, CONTRACT_ID_RE, EXECUTION_ID_RE, NAME_RE, RUN_ID_RE, UNIT_ID_RE, WRITER_SESSION_RE } from './ids.js';
import { CHECK_COMMAND_ARG_MAX_CHARS, CHECK_COMMAND_MAX_ARGS, CHECK_DEPENDENCY_ROOT_MAX_CHARS } from './limits.js';
import { BOOT_ID_RE } from './ids.js';
import { INTERPRETER_PATH_RE } from './sandbox-bounds.js';
import { KERNEL_PID_MAX, KERNEL_UID_MAX } from './limits.js';

export const REVIEW_RECEIPT_PREDICATE_TYPE = 'https://governed.dev/review-receipt/v1';

export { digestString, hex64, isoSeconds };
const id = str({ re: CONTRACT_ID_RE });

export { STAGES, FINDING_CODES, FINDING_CLASSES, SEVERITIES, VETO_CLASSES };

/** One opaque finding (docs/reviewers.md#reviewer-output): closed codes and IDs only, never text. */
export const findingSchema = z.strictObject({
  code: z.enum(FINDING_CODES),
  class: z.enum(FINDING_CLASSES),
  severity: z.enum(SEVERITIES),
  refs: list(id, 1, 4),
});
export type Finding = z.infer<typeof findingSchema>;

/** A finding is a veto when CRITICAL and of class preservation/scope/authority/release (docs/reviewers.md#reviewer-output). */
export function isVeto(f: Finding): boolean {
  return f.severity === 'CRITICAL' && VETO_CLASSES.has(f.class);
}

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

/** The uids a separated receipt names as governed — root, the daemon's, every attestor's — none of
 * which may be the client's (docs/runnerd.md "Processes and users"). */
export function separationGovernedUids(s: Separation): number[] {
  const a = s.attestor_uids;
  return [0, s.daemon_uid, a.reviewer, a.runner, ...(a.probe === undefined ? [] : [a.probe]), ...(a.log === undefined ? [] : [a.log])];
}

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

/**
 * Cross-field rules the schema cannot express: CLEAN ⇔ zero findings; vetoes are exactly the
 * veto findings; findings sorted and unique by canonical order (docs/reviewers.md#reviewer-output). Returns the first
 * broken rule's field name, or null.
 */
export function predicateRuleViolation(p: ReviewReceiptPredicate, canonical: (v: unknown) => string): string | null {
  if ((p.verdict === 'CLEAN') !== (p.findings.length === 0)) return 'verdict';
  const keys = p.findings.map((f) => canonical(f));
  for (let i = 1; i < keys.length; i++) if (!((keys[i - 1] as string) < (keys[i] as string))) return 'findings';
  for (const f of p.findings) {
    for (let i = 1; i < f.refs.length; i++) if (!((f.refs[i - 1] as string) < (f.refs[i] as string))) return 'findings.refs';
  }
  const expectedVetoes = p.findings.filter(isVeto).map((f) => canonical(f));
  const vetoes = p.vetoes.map((f) => canonical(f));
  if (expectedVetoes.length !== vetoes.length || expectedVetoes.some((v, i) => v !== vetoes[i])) return 'vetoes';
  // Separated ⇔ the daemon identity is present, and the writer's uid is none of the governed uids.
  if ((p.trust_mode === 'separated') !== (p.separation !== undefined)) return 'separation';
  if (p.separation !== undefined) {
    const s = p.separation;
    if (separationGovernedUids(s).includes(s.client_uid) || s.client_uid === p.sandbox.uid) return 'separation.client_uid';
  }
  const t = p.times;
  if (!(t.issued_at <= t.started_at && t.started_at <= t.finished_at)) return 'times';
  // A check reviewer has no egress; its adapter is the reviewer and it ran on the reviewed snapshot.
  if (p.check !== undefined && (p.egress !== undefined || p.check.snapshot_digest !== p.inputs.workspace_digest || p.check.adapter_sha256 !== p.reviewer.sha256)) return 'check';
  // The egress transcript: the chain re-derived from the records equals the signed head, the
  // totals are their sums, and every record was forwarded (docs/egress.md "Transcript").
  if (p.egress !== undefined) return transcriptViolation(p.egress.transcript);
  return null;
}
