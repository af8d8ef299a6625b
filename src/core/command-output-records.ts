// The `--json` objects of the commands that set up and feed a store — setup, doctor, init, keygen,
// contract init, unit *, writer register, lease *, authority *, policy/trust update, sandbox
// profile, audit checkpoint / export / prove / cosign, receipt show, completion — each defined once here in zod/mini beside
// ./command-output.ts (the objects a pipeline reads to decide). The commands build `z.infer` of
// these (type imports only: no schema is constructed on a command's path), docs/schemas/
// publishes their JSON Schemas (`npm run schemas:doc`), and test/schemas-command-output.test.ts
// validates what the real CLI printed. Every object has `ok` (true: these print only on success —
// doctor's report aside, whose ok is false when it found a problem; a failure prints the
// command-error object of ./command-output.ts). Identifiers, digests, paths
// the caller gave and counts only: no source text, key material or rejected value. Pure.
import * as z from 'zod/mini';
import { ERROR_CODES } from './errors.js';
import { authorityPredicateSchema } from './authority/predicate.js';
import { count, digestString, gitId, hex64, isoSeconds, str } from './schema-primitives.js';
import { consistencyProofSchema, inclusionProofSchema } from './tlog-proof.js';
import { STAGES } from './review-vocabulary.js';
import { printedSchema } from './json-style-schema.js';
import { LEASE_ID_RE, NAME_RE, RECORD_ID_RE, RUN_ID_RE, UNIT_ID_RE } from './ids.js';
import { BASE64_RE, HASH32_BASE64_RE } from './ids.js';

const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as [keyof typeof ERROR_CODES, ...(keyof typeof ERROR_CODES)[]];
const unitId = str({ re: UNIT_ID_RE });
const runId = str({ re: RUN_ID_RE });
const leaseId = str({ re: LEASE_ID_RE });
const recordId = str({ re: RECORD_ID_RE });
const slotName = str({ re: NAME_RE });
const trustMode = z.enum(['co-located', 'separated']);
const exitCode = z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3), z.literal(4), z.literal(5), z.literal(6), z.literal(7), z.literal(8), z.literal(9)]);
const p = authorityPredicateSchema.shape;

/**
 * Added by every command that appended to a store when the policy's automatic checkpoint was due
 * (src/cli/run-action.ts, docs/audit.md "Automatic checkpoints"): the files written, and the coded
 * error that stopped one (the command's own entries stay recorded).
 */
export const tlogCheckpointFieldSchema = z.strictObject({
  written: z.array(z.strictObject({ file: z.string(), tree_size: count })),
  error: z.optional(z.strictObject({ code: z.enum(ERROR_CODE_LIST), exit: exitCode, message: z.string(), ids: z.array(z.string()) })),
});
const appended = { tlog_checkpoint: z.optional(tlogCheckpointFieldSchema) };

/** `governed init --json` (docs/state.md#init). */
export const initOutputSchema = z.strictObject({
  ok: z.literal(true),
  home: z.string(),
  policy_digest: digestString,
  trust_digest: digestString,
  trust_mode: trustMode,
  accept_co_located: z.boolean(),
  /** Warning codes: home_not_git_ignored (the state directory would be committed by `git add -A`). */
  warnings: z.array(z.enum(['home_not_git_ignored'])),
  ...appended,
});

/** `governed keygen --json` (docs/security.md#keys): the paths written and the key id. */
export const keygenOutputSchema = z.strictObject({
  ok: z.literal(true),
  credential: str({ re: NAME_RE }),
  key_id: hex64,
  private_key: z.string(),
  public_key: z.string(),
});

/** `governed unit create --json` (docs/state.md#commands). */
export const unitCreateOutputSchema = z.strictObject({
  ok: z.literal(true),
  unit: unitId,
  baseline: z.strictObject({ commit: gitId, tree: gitId }),
  scope_version: count,
  scope_epoch: count,
  work_revision: count,
  contract_digest: digestString,
  sources_digest: digestString,
  ...appended,
});

/** `governed unit bind [--dry-run] --json` (docs/contract.md#scope-history): `validation` and `uncovered_changes` only with --dry-run. */
export const unitBindOutputSchema = z.strictObject({
  ok: z.literal(true),
  dry_run: z.boolean(),
  unit: unitId,
  scope_version: count,
  scope_epoch: count,
  work_revision: count,
  scope_changed: z.boolean(),
  additions: z.array(z.string()),
  narrowing: z.array(z.string()),
  progress: z.array(z.string()),
  authorities: z.array(recordId),
  contract_digest: digestString,
  state_before: digestString,
  state_after: digestString,
  validation: z.optional(z.union([z.strictObject({ ok: z.literal(true) }), z.strictObject({ ok: z.literal(false), code: z.enum(ERROR_CODE_LIST), ids: z.array(z.string()) })])),
  /** Writer-side: repository-relative changed paths no live directive covers (docs/contract-init.md). */
  uncovered_changes: z.optional(z.array(z.string())),
  ...appended,
});

/** `governed unit dismiss | dismiss-veto [--dry-run] --json` (docs/decision.md#the-rules-in-short). */
export const unitDismissOutputSchema = z.strictObject({
  ok: z.literal(true),
  dry_run: z.boolean(),
  operation: z.enum(['dismiss', 'dismiss_veto']),
  unit: unitId,
  /** The record consumed; null with --dry-run. */
  record_id: z.nullable(recordId),
  ids: p.ids,
  state_before: digestString,
  state_after: z.null(),
  /** The log position the record was consumed at; null with --dry-run. */
  consumed_seq: z.nullable(count),
  ...appended,
});

/** `governed writer register --json` (docs/state.md#writers-and-leases): the session and its host process identity. */
export const writerRegisterOutputSchema = z.strictObject({
  ok: z.literal(true),
  unit: unitId,
  writer_session: z.string(),
  boot_id: z.string(),
  pid: count,
  start_time: count,
  ...appended,
});

/** `governed lease acquire --json`. */
export const leaseAcquireOutputSchema = z.strictObject({
  ok: z.literal(true),
  lease: leaseId,
  unit: unitId,
  writer_session: z.string(),
  expires_at: isoSeconds,
  ...appended,
});

/** `governed lease release --json`. */
export const leaseReleaseOutputSchema = z.strictObject({ ok: z.literal(true), lease: leaseId, unit: unitId, work_revision: count, ...appended });

/** `governed lease list --json`: every lease (of --unit), each active, released or expired as of now. */
export const leaseListOutputSchema = z.strictObject({
  ok: z.literal(true),
  leases: z.array(
    z.strictObject({
      lease: leaseId,
      unit: unitId,
      writer_session: z.string(),
      state: z.enum(['active', 'expired', 'released']),
      acquired_at: isoSeconds,
      expires_at: isoSeconds,
      ended_at: z.nullable(isoSeconds),
    }),
  ),
});

/** `governed authority request --json` (docs/authority.md#the-flow): the request and where its presentation was written. */
export const authorityRequestOutputSchema = z.strictObject({
  ok: z.literal(true),
  request_id: p.request_id,
  /** The id the signed record will have once recorded. */
  record_id: recordId,
  operation: p.operation,
  unit: p.unit,
  ids: p.ids,
  state_before: p.state_before,
  state_after: p.state_after,
  issued_at: isoSeconds,
  expires_at: isoSeconds,
  payload_digest: digestString,
  seq: count,
  out: z.string(),
  ...appended,
});

/** `governed authority sign --json`: where the signed record was written, by which key. */
export const authoritySignOutputSchema = z.strictObject({
  ok: z.literal(true),
  record_id: recordId,
  request_id: p.request_id,
  key_id: hex64,
  payload_digest: digestString,
  out: z.string(),
});

/** `governed authority record --json`. */
export const authorityRecordOutputSchema = z.strictObject({
  ok: z.literal(true),
  record_id: recordId,
  request_id: p.request_id,
  operation: p.operation,
  unit: p.unit,
  ids: p.ids,
  state_before: p.state_before,
  state_after: p.state_after,
  key_id: hex64,
  expires_at: isoSeconds,
  seq: count,
  ...appended,
});

/** `governed policy update | trust update --json` (docs/authority.md#policy-and-trust-updates). */
export const pinUpdateOutputSchema = z.strictObject({
  ok: z.literal(true),
  kind: z.enum(['policy', 'trust']),
  seq: count,
  digest_before: digestString,
  digest: digestString,
  record: recordId,
  ...appended,
});

const hexList = z.array(hex64);

/** `governed sandbox profile --json` (docs/sandbox.md): what a policy's sandbox section pins. */
export const sandboxProfileOutputSchema = z.strictObject({
  ok: z.literal(true),
  bwrap: z.strictObject({ path: z.string(), sha256: hex64, version: z.string() }),
  /** The static reviewer profile (runner/sandbox/profile.ts); its digest is profile_digest. */
  profile: z.strictObject({
    kind: z.literal('governed/sandbox-profile'),
    version: z.literal(1),
    arch: z.literal('x86_64'),
    bwrap_min_version: z.string(),
    spawn: z.strictObject({
      env: z.strictObject({}),
      cwd: z.literal('/'),
      stdio: z.array(z.string()),
      extra_fds: z.array(z.string()),
      inherited_fds: z.literal('closed'),
      uid: z.string(),
    }),
    /** bwrap's arguments: a fixed string, or a placeholder object ({fd}, {env}, {limit}, {interpreter}, {egress}, {bind}) filled per run. */
    argv: z.array(
      z.union([
        z.string(),
        z.strictObject({ fd: z.string() }),
        z.strictObject({ env: z.string() }),
        z.strictObject({ limit: z.string() }),
        z.strictObject({ interpreter: z.string() }),
        z.strictObject({ egress: z.string() }),
        z.strictObject({ bind: z.string() }),
      ]),
    ),
  }),
  profile_digest: digestString,
  egress_profile_digest: digestString,
  check_profile_digest: digestString,
  /** The relay profile's digest and its seccomp filter's (docs/egress.md#the-in-sandbox-relay). */
  relay_profile_digest: digestString,
  seccomp_digest: digestString,
  relay_seccomp_digest: digestString,
  policy: z.strictObject({ bwrap_sha256: hexList, profile_sha256: hexList, seccomp_sha256: hexList }),
});

/** `governed audit checkpoint --json` (docs/audit.md): a C2SP checkpoint (tlog-checkpoint attestor) or a DSSE checkpoint statement. */
export const auditCheckpointOutputSchema = z.union([
  z.strictObject({
    ok: z.literal(true),
    path: z.string(),
    format: z.literal('c2sp-tlog-checkpoint'),
    origin: z.string(),
    tree_size: count,
    /** Base64 of the 32-byte RFC 6962 root. */
    root_hash: str({ re: HASH32_BASE64_RE }),
    log_entries: count,
    log_head: digestString,
    state_digest: digestString,
    /** The log key in Go's note verifier-key format. */
    verifier_key: z.string(),
  }),
  z.strictObject({ ok: z.literal(true), path: z.string(), log_entries: count, log_head: digestString, state_digest: digestString, payload_digest: digestString }),
]);

/** `governed audit export --json` (docs/audit.md). */
export const auditExportOutputSchema = z.strictObject({
  ok: z.literal(true),
  path: z.string(),
  log_entries: count,
  log_head: digestString,
  receipts: count,
  authority_records: count,
  keys: count,
  /** The tree size of the newest stored checkpoint exported; null when the store has none. */
  checkpoint_size: z.nullable(count),
  proofs: count,
});

/** `governed audit prove --json` (docs/audit.md#proof-files): the proof itself, or with --out the path it was written to. */
export const auditProveOutputSchema = z.union([
  z.strictObject({ ok: z.literal(true), kind: z.literal('inclusion'), seq: count, tree_size: count, path: z.string() }),
  z.strictObject({ ok: z.literal(true), kind: z.literal('inclusion'), seq: count, tree_size: count, proof: inclusionProofSchema }),
  z.strictObject({ ok: z.literal(true), kind: z.literal('consistency'), old_size: count, new_size: count, path: z.string() }),
  z.strictObject({ ok: z.literal(true), kind: z.literal('consistency'), old_size: count, new_size: count, proof: consistencyProofSchema }),
]);

/** `governed audit cosign --json` (docs/audit.md "Witnesses"). */
export const auditCosignOutputSchema = z.strictObject({
  ok: z.literal(true),
  out: z.string(),
  origin: z.string(),
  size: count,
  previous_size: z.nullable(count),
  witness_key: z.string(),
});

/** `governed receipt show --json` (docs/formats.md#receipt): the receipt's identity and its exact stored envelope bytes in base64. */
export const receiptShowOutputSchema = z.strictObject({
  ok: z.literal(true),
  receipt_id: digestString,
  run_id: runId,
  unit: unitId,
  stage: z.enum(STAGES),
  slot: slotName,
  verdict: z.enum(['CLEAN', 'DIRTY']),
  envelope_b64: str({ re: BASE64_RE }),
});

const problemSchema = { code: z.enum(ERROR_CODE_LIST), ids: z.array(z.string()), exit: exitCode };

/** `governed setup --json` (docs/setup.md): every file of the layout and what this run did with it, the digests and the two command lines. */
export const setupOutputSchema = z.strictObject({
  ok: z.literal(true),
  command: z.literal('setup'),
  dir: z.string(),
  home: z.string(),
  changed: z.boolean(),
  files: z.array(z.strictObject({ path: z.string(), action: z.enum(['created', 'kept']) })),
  init: z.enum(['created', 'kept', 'skipped']),
  /** The key id of each key setup made (a credential added to setup fails test/schemas-command-output.test.ts until it is listed here). */
  key_ids: z.strictObject({ reviewer: hex64, runner: hex64, gate: hex64, log: hex64, authority: hex64, probe: hex64 }),
  policy_digest: digestString,
  trust_digest: digestString,
  trust_expires: isoSeconds,
  policy: z.string(),
  trust: z.string(),
  attestors: z.string(),
  gate_attestor_config: z.string(),
  gate_line: z.string(),
  review_line: z.string(),
  ...appended,
});

/** `governed doctor --json` (docs/setup.md): a report; ok is false (and exit that of the most severe problem) when any check found one. */
export const doctorOutputSchema = z.strictObject({
  ok: z.boolean(),
  command: z.literal('doctor'),
  exit: exitCode,
  /** The setup directory judged; null when only a runnerd layout was (--runnerd without --dir). */
  dir: z.nullable(z.string()),
  checks: z.array(z.strictObject({ id: z.string(), ok: z.boolean(), problems: z.array(z.strictObject(problemSchema)) })),
  problems: z.array(z.strictObject({ check: z.string(), ...problemSchema })),
});

/** `governed contract init --json` (docs/contract-init.md): the skeleton itself in `contract` when no --out was given. */
export const contractInitOutputSchema = z.strictObject({
  ok: z.literal(true),
  command: z.literal('contract init'),
  out: z.nullable(z.string()),
  sources: count,
  atoms: count,
  directives: count,
  /** Field paths of every placeholder left to fill. */
  placeholders: z.array(z.string()),
  contract: z.optional(z.string()),
});

/** `governed completion bash|zsh --json` (docs/commands.md#shell-completion). */
export const completionOutputSchema = z.strictObject({ ok: z.literal(true), shell: z.enum(['bash', 'zsh']), script: z.string() });

/** What a command builds: the inferred type, read-only all the way down (the flows return read-only arrays). */
export type Out<T> = T extends readonly (infer U)[] ? readonly Out<U>[] : T extends object ? { readonly [K in keyof T]: Out<T[K]> } : T;

export type InitOutput = Out<z.infer<typeof initOutputSchema>>;
export type KeygenOutput = Out<z.infer<typeof keygenOutputSchema>>;
export type UnitCreateOutput = Out<z.infer<typeof unitCreateOutputSchema>>;
export type UnitBindOutput = Out<z.infer<typeof unitBindOutputSchema>>;
export type UnitDismissOutput = Out<z.infer<typeof unitDismissOutputSchema>>;
export type WriterRegisterOutput = Out<z.infer<typeof writerRegisterOutputSchema>>;
export type LeaseAcquireOutput = Out<z.infer<typeof leaseAcquireOutputSchema>>;
export type LeaseReleaseOutput = Out<z.infer<typeof leaseReleaseOutputSchema>>;
export type LeaseListOutput = Out<z.infer<typeof leaseListOutputSchema>>;
export type AuthorityRequestOutput = Out<z.infer<typeof authorityRequestOutputSchema>>;
export type AuthoritySignOutput = Out<z.infer<typeof authoritySignOutputSchema>>;
export type AuthorityRecordOutput = Out<z.infer<typeof authorityRecordOutputSchema>>;
export type PinUpdateOutput = Out<z.infer<typeof pinUpdateOutputSchema>>;
export type SandboxProfileOutput = Out<z.infer<typeof sandboxProfileOutputSchema>>;
export type AuditCheckpointOutput = Out<z.infer<typeof auditCheckpointOutputSchema>>;
export type AuditExportOutput = Out<z.infer<typeof auditExportOutputSchema>>;
export type AuditProveOutput = Out<z.infer<typeof auditProveOutputSchema>>;
export type AuditCosignOutput = Out<z.infer<typeof auditCosignOutputSchema>>;
export type ReceiptShowOutput = Out<z.infer<typeof receiptShowOutputSchema>>;
export type CompletionOutput = Out<z.infer<typeof completionOutputSchema>>;
export type SetupOutput = Out<z.infer<typeof setupOutputSchema>>;
export type DoctorOutput = Out<z.infer<typeof doctorOutputSchema>>;
export type ContractInitOutput = Out<z.infer<typeof contractInitOutputSchema>>;

/** Each schema with its published file stem and title (registered in ./json-schemas.ts). */
const RECORD_OUTPUT_DEFS = {
  init: { schema: initOutputSchema, title: 'governed init --json v1', doc: 'docs/state.md#init' },
  keygen: { schema: keygenOutputSchema, title: 'governed keygen --json v1', doc: 'docs/security.md#keys' },
  'unit-create': { schema: unitCreateOutputSchema, title: 'governed unit create --json v1', doc: 'docs/state.md#commands' },
  'unit-bind': { schema: unitBindOutputSchema, title: 'governed unit bind --json v1', doc: 'docs/contract.md#scope-history' },
  'unit-dismiss': { schema: unitDismissOutputSchema, title: 'governed unit dismiss | dismiss-veto --json v1', doc: 'docs/decision.md#the-rules-in-short' },
  'writer-register': { schema: writerRegisterOutputSchema, title: 'governed writer register --json v1', doc: 'docs/state.md#writers-and-leases' },
  'lease-acquire': { schema: leaseAcquireOutputSchema, title: 'governed lease acquire --json v1', doc: 'docs/state.md#writers-and-leases' },
  'lease-release': { schema: leaseReleaseOutputSchema, title: 'governed lease release --json v1', doc: 'docs/state.md#writers-and-leases' },
  'lease-list': { schema: leaseListOutputSchema, title: 'governed lease list --json v1', doc: 'docs/state.md#writers-and-leases' },
  'authority-request': { schema: authorityRequestOutputSchema, title: 'governed authority request --json v1', doc: 'docs/authority.md#the-flow' },
  'authority-sign': { schema: authoritySignOutputSchema, title: 'governed authority sign --json v1', doc: 'docs/authority.md#the-flow' },
  'authority-record': { schema: authorityRecordOutputSchema, title: 'governed authority record --json v1', doc: 'docs/authority.md#the-flow' },
  'pin-update': { schema: pinUpdateOutputSchema, title: 'governed policy update | trust update --json v1', doc: 'docs/authority.md#policy-and-trust-updates' },
  'sandbox-profile': { schema: sandboxProfileOutputSchema, title: 'governed sandbox profile --json v1', doc: 'docs/sandbox.md' },
  'audit-checkpoint': { schema: auditCheckpointOutputSchema, title: 'governed audit checkpoint --json v1', doc: 'docs/audit.md' },
  'audit-export': { schema: auditExportOutputSchema, title: 'governed audit export --json v1', doc: 'docs/audit.md' },
  'audit-prove': { schema: auditProveOutputSchema, title: 'governed audit prove --json v1', doc: 'docs/audit.md#proof-files' },
  'audit-cosign': { schema: auditCosignOutputSchema, title: 'governed audit cosign --json v1', doc: 'docs/audit.md' },
  'receipt-show': { schema: receiptShowOutputSchema, title: 'governed receipt show --json v1', doc: 'docs/formats.md#receipt' },
  setup: { schema: setupOutputSchema, title: 'governed setup --json v1', doc: 'docs/setup.md' },
  doctor: { schema: doctorOutputSchema, title: 'governed doctor --json v1', doc: 'docs/setup.md' },
  'contract-init': { schema: contractInitOutputSchema, title: 'governed contract init --json v1', doc: 'docs/contract-init.md' },
  completion: { schema: completionOutputSchema, title: 'governed completion bash | zsh --json v1', doc: 'docs/commands.md#shell-completion' },
} as const;

/** Each record output as printed: with schema_version and exit (src/core/json-style-schema.ts). */
export const RECORD_OUTPUTS = Object.fromEntries(
  Object.entries(RECORD_OUTPUT_DEFS).map(([stem, o]) => [stem, { ...o, schema: printedSchema(o.schema) }]),
) as { readonly [K in keyof typeof RECORD_OUTPUT_DEFS]: Omit<(typeof RECORD_OUTPUT_DEFS)[K], 'schema'> & { readonly schema: z.ZodMiniType } };
