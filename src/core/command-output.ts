// The `--json` objects of the commands a pipeline reads (docs/commands.md#common-behaviour: one
// JSON object on stdout, also on failure), each defined once here in zod/mini: the TypeScript type
// the command builds is `z.infer` of it, and docs/schemas/ publishes its JSON Schema (`npm run
// schemas:doc`). The producers import the TYPES only (a type import is erased): the cold gate and
// review-run never construct these schemas at start-up (test/gate-cold-imports.test.ts); the tests
// parse what the real CLI printed (test/schemas-doc.test.ts). Identifiers, digests and codes only:
// none of these objects carries a source text, a file content or a rejected value. Pure.
import * as z from 'zod/mini';
import { ERROR_CODES, REASON_CODES } from './errors.js';
import { count, digestString, gitId, isoSeconds, str } from './schema-primitives.js';
import { findingSchema } from './receipt-predicate-schema.js';
import { STAGES } from './review-vocabulary.js';
import type { WithSnakeTwins } from './json-style.js';
import { snakeTwinsSchema } from './json-style-schema.js';
import { CHALLENGE_ID_RE, CONTRACT_ID_RE, HEX64_RE, NAME_RE, RECORD_ID_RE, RUN_ID_RE, UNIT_ID_RE } from './ids.js';

const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as [keyof typeof ERROR_CODES, ...(keyof typeof ERROR_CODES)[]];
const REASON_CODE_LIST = Object.keys(REASON_CODES) as [keyof typeof REASON_CODES, ...(keyof typeof REASON_CODES)[]];

/** Any exit code of docs/commands.md#exit-codes. */
const anyExit = z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3), z.literal(4), z.literal(5), z.literal(6), z.literal(7), z.literal(8), z.literal(9)]);
/** The exit code of a coded error: the one its code has in docs/errors.md (never 0 there). */
const failureExit = anyExit;

const trustMode = z.enum(['co-located', 'separated']);
const unitId = str({ re: UNIT_ID_RE });
const runId = str({ re: RUN_ID_RE });
const challengeId = str({ re: CHALLENGE_ID_RE });
const receiptId = digestString;
const authorityRecordId = str({ re: RECORD_ID_RE });
const slotName = str({ re: NAME_RE });
/** IDs an error or a reason names (unit, directive, receipt, key ids, field paths): never a value. */
const ids = z.array(z.string());

/** The error part of every failure object: the stable code, its exit, its fixed summary, IDs. */
export const errorObjectSchema = z.strictObject({
  code: z.enum(ERROR_CODE_LIST),
  exit: failureExit,
  message: z.string(),
  ids,
});
export type ErrorObject = z.infer<typeof errorObjectSchema>;

/** What every command prints with --json when it fails with a coded error (src/cli/output.ts). */
export const commandErrorSchema = z.strictObject({ ok: z.literal(false), error: errorObjectSchema });
export type CommandErrorJson = z.infer<typeof commandErrorSchema>;

const reasonSchema = z.strictObject({ code: z.enum(REASON_CODE_LIST), ids });
/** `probes`: the probe receipts the preservation check counted, when the policy requires preservation (docs/preservation.md#delivery-state). */
const reliedOnSchema = z.strictObject({ receipts: z.array(receiptId), authorities: z.array(authorityRecordId), probes: z.array(receiptId) });

/** The deploy record a `gate --export DIR` wrote: `path` as given, the sha256 of its manifest.json. */
export const deployRecordRefSchema = z.strictObject({ path: z.string(), manifestDigest: digestString });
export type DeployRecordRef = z.infer<typeof deployRecordRefSchema>;

/** The decision object of `governed gate --json` (docs/gate.md): every field in every decision (camelCase; the printed object adds the snake_case twins). */
const gateDecisionCamelSchema = z.strictObject({
  /** Whether the command succeeded: true iff exit is 0 (ALLOW), as in every command's object. */
  ok: z.boolean(),
  schemaVersion: z.literal(1),
  command: z.literal('gate'),
  decision: z.enum(['ALLOW', 'DENY']),
  exit: anyExit,
  state: z.nullable(z.enum(['RELEASE_ELIGIBLE', 'REVIEW_ONLY'])),
  unit: z.nullable(unitId),
  trustMode,
  subject: z.strictObject({ commit: z.nullable(gitId), manifestDigest: z.nullable(digestString) }),
  /** The pinned policy's digest, equal to the expected `--policy-digest` when known. */
  policyDigest: z.nullable(digestString),
  /** The pinned trust root in force (bound into every receipt that counts). */
  trustDigest: z.nullable(digestString),
  /** The deploy-side trust root (`--trust`) every relied-on record was re-verified under. */
  gateTrustDigest: z.nullable(digestString),
  evaluatedAt: isoSeconds,
  reasons: z.array(reasonSchema),
  preservationWaiver: z.nullable(z.string()),
  current: z.nullable(z.strictObject({ planningStateDigest: digestString, contentDigest: digestString, workStateDigest: digestString })),
  reliedOn: z.nullable(reliedOnSchema),
  attestation: z.nullable(z.strictObject({ path: z.string(), payloadDigest: digestString })),
  export: z.nullable(deployRecordRefSchema),
  error: z.nullable(errorObjectSchema),
});
/** The decision object as printed and recorded: each camelCase field with its snake_case twin (./json-style.ts, deprecation period). */
export const gateDecisionSchema = snakeTwinsSchema(gateDecisionCamelSchema) as unknown as z.ZodMiniType<WithSnakeTwins<z.infer<typeof gateDecisionCamelSchema>>>;
export type GateResultJson = z.infer<typeof gateDecisionSchema>;
/** What the gate builds before the twins are added (src/flows/decide/gate.ts). */
export type GateCamelJson = z.infer<typeof gateDecisionCamelSchema>;
/** The decision without its `export` field: what decision.json of a deploy record holds. */
export type GateDecisionJson = Omit<GateResultJson, 'export'>;

/** `governed status --json` (docs/gate.md "status"), camelCase; the printed object adds the snake_case twins. */
const statusCamelSchema = z.strictObject({
  ok: z.literal(true),
  schemaVersion: z.literal(1),
  command: z.literal('status'),
  unit: unitId,
  state: z.enum(['RELEASE_ELIGIBLE', 'REVIEW_ONLY']),
  reasons: z.array(reasonSchema),
  evaluatedAt: isoSeconds,
  trustMode,
  policyDigest: digestString,
  trustDigest: digestString,
  current: z.strictObject({
    planningStateDigest: digestString,
    contentDigest: digestString,
    workStateDigest: digestString,
    workspaceDigest: digestString,
    workRevision: count,
    scopeVersion: count,
    scopeEpoch: count,
  }),
  planningSealed: z.boolean(),
  /** Changed paths of the live workspace that no live directive covers (writer-side, repository-relative; docs/contract-init.md). */
  uncoveredChanges: z.array(z.string()),
  preservation: z.strictObject({
    required: z.boolean(),
    waiver: z.nullable(z.string()),
    contract: z.boolean(),
    incidentHistory: z.boolean(),
    unsatisfiedSurfaces: z.array(z.string()),
  }),
  stages: z.array(
    z.strictObject({
      stage: z.enum(STAGES),
      required: z.boolean(),
      gating: z.boolean(),
      floor: count,
      rounds: count,
      streak: count,
      missingRounds: count,
      complete: z.boolean(),
      slots: z.array(z.strictObject({ slot: slotName, current: count, counted: count, missing: count, blockedBy: z.array(z.string()) })),
      proof: z.array(z.string()),
    }),
  ),
  vetoes: z.array(z.strictObject({ receipt: receiptId, stage: z.enum(STAGES), slot: slotName, findings: z.array(findingSchema) })),
  leases: z.array(z.strictObject({ lease: z.string(), writerSession: z.string(), acquiredAt: isoSeconds, expiresAt: isoSeconds, expired: z.boolean() })),
  abortedRuns: z.array(z.strictObject({ run: runId, stage: z.enum(STAGES), slot: slotName })),
  receipts: z.strictObject({ total: count, loaded: count }),
  reliedOn: reliedOnSchema,
});
export const statusSchema = snakeTwinsSchema(statusCamelSchema) as unknown as z.ZodMiniType<WithSnakeTwins<z.infer<typeof statusCamelSchema>>>;
export type StatusJson = z.infer<typeof statusSchema>;
/** What status builds before the twins are added (src/flows/decide/status.ts). */
export type StatusCamelJson = z.infer<typeof statusCamelSchema>;

/** One receipt file's verdict in `governed verify --json`. */
export const receiptVerdictSchema = z.strictObject({
  file: z.string(),
  valid: z.boolean(),
  receipt_id: z.optional(receiptId),
  unit: z.optional(unitId),
  stage: z.optional(z.enum(STAGES)),
  slot: z.optional(slotName),
  verdict: z.optional(z.enum(['CLEAN', 'DIRTY'])),
  trust_mode: z.optional(trustMode),
  /** Which kind of receipt the file verified as (docs/preservation.md#verifying-a-probe-receipt-offline); absent on failure. */
  kind: z.optional(z.enum(['review', 'probe'])),
  /** Probe receipts: the phase, the sealed snapshot it ran on, the adapter, the surfaces it probed. */
  phase: z.optional(z.enum(['baseline', 'current'])),
  snapshot_digest: z.optional(digestString),
  adapter_sha256: z.optional(str({ re: HEX64_RE })),
  surfaces: z.optional(z.array(str({ re: CONTRACT_ID_RE }))),
  /** With --contract: the digest of the preservation contract every result is bound to. */
  contract_digest: z.optional(digestString),
  signed_by: z.optional(z.array(z.strictObject({ role: z.string(), key_id: str({ re: HEX64_RE }) }))),
  error: z.optional(z.strictObject({ code: z.enum(ERROR_CODE_LIST), exit: failureExit, ids })),
});
export type ReceiptVerdict = z.infer<typeof receiptVerdictSchema>;

/** `--inclusion-proof P --checkpoint F`: the proved entry and the checkpoint it is in (docs/audit.md "Proofs"). */
export const inclusionResultSchema = z.strictObject({
  proof: z.string(),
  checkpoint: z.string(),
  origin: z.string(),
  tree_size: count,
  seq: count,
  receipt: z.nullable(receiptId),
});
export type InclusionResult = z.infer<typeof inclusionResultSchema>;

/** `governed verify --json` (docs/commands.md#what-each-command-guarantees); a usage or trust-root refusal prints the common error object instead. */
export const verifySchema = z.strictObject({
  ok: z.boolean(),
  exit: anyExit,
  trust_digest: digestString,
  evaluated_at: isoSeconds,
  receipts: z.array(receiptVerdictSchema),
  inclusion: z.optional(inclusionResultSchema),
});
export type VerifyJson = z.infer<typeof verifySchema>;

/** `governed review-run --json` (docs/runner.md#the-run-step-by-step): a finished run, or one recorded ABORTED. */
export const reviewRunSchema = z.union([
  /** ok is true iff the verdict is CLEAN (exit 0); a DIRTY receipt exits 9 with ok false. */
  z.strictObject({ ok: z.boolean(), verdict: z.enum(['CLEAN', 'DIRTY']), run_id: runId, receipt_id: receiptId }),
  z.strictObject({ ok: z.literal(false), verdict: z.literal('ABORTED'), run_id: runId, receipt_id: z.null(), error: errorObjectSchema }),
]);
export type ReviewRunJson = z.infer<typeof reviewRunSchema>;

/** `governed review-challenge --json`: ok and ONLY these four fields, plus the schema_version and exit every printed object carries (docs/commands.md#the-json-style). */
export const reviewChallengeSchema = z.strictObject({ ok: z.literal(true), challenge_id: challengeId, stage: z.enum(STAGES), slot: slotName, expires_at: isoSeconds });
export type ReviewChallengeJson = z.infer<typeof reviewChallengeSchema>;

const auditFailureSchema = z.strictObject({ code: z.enum(ERROR_CODE_LIST), exit: failureExit, ids });
export type AuditFailure = z.infer<typeof auditFailureSchema>;

const auditReportShape = {
  exit: anyExit,
  log: z.nullable(z.strictObject({ entries: count, head: digestString })),
  /** state_digest: of the tables the log replays to (on a mismatch, not the stored ones); null when an entry did not apply (the replay stopped there). */
  replay: z.nullable(z.strictObject({ state_digest: z.nullable(digestString), matches: z.boolean() })),
  unit: z.nullable(unitId),
  trust: z.enum(['pinned-at-position', 'given']),
  /** workers: the worker threads that ran the receipt checks (0: the audit's own thread; docs/audit.md "Cost and memory"). */
  receipts: z.strictObject({ checked: count, failed: count, workers: z.optional(count) }),
  authority_records: z.strictObject({ checked: count, failed: count }),
  challenges: z.strictObject({ issued: count, claimed: count, answered: count, aborted: count }),
  trust_modes: z.array(trustMode),
  /** Each `--checkpoint` given: the position it covers and whether this log extends it. */
  checkpoints: z.array(z.strictObject({ file: z.string(), log_entries: z.nullable(count), matches: z.boolean() })),
  failures: z.array(auditFailureSchema),
  /**
   * With `--state DIR` (docs/audit.md#incremental-audit): the size the audit resumed from (null: a
   * full audit) and the size of the state it saved (null: nothing was saved, the audit was not clean).
   */
  state: z.optional(z.strictObject({ resumed_from: z.nullable(count), saved: z.nullable(count) })),
};
const auditReportSchema = z.strictObject(auditReportShape);
export type AuditReport = z.infer<typeof auditReportSchema>;

/** What the export part of `audit verify --export DIR` says (docs/audit.md). */
export const exportCheckSchema = z.strictObject({
  files: count,
  manifest: z.enum(['matches', 'differs']),
  contents: z.enum(['matches', 'differs', 'not-checked']),
  unit: z.nullable(unitId),
  made_at: isoSeconds,
});
export type ExportCheck = z.infer<typeof exportCheckSchema>;

/** `governed audit verify [--export DIR] --json` (docs/audit.md): the report, `ok`, and the co-located caveat when it applies. */
export const auditVerifyStoreSchema = z.strictObject({
  ok: z.boolean(),
  ...auditReportShape,
  export: z.optional(exportCheckSchema),
  caveat: z.optional(z.string()),
});

/**
 * `governed audit verify --checkpoint F... --inclusion-proof P... [--consistency-proof C...] --json`
 * (docs/audit.md#checking-proofs-without-the-log): no log is read; each file with what it was
 * checked against (null where it could not be read that far) and whether it verified.
 */
export const auditVerifyProofsSchema = z.strictObject({
  ok: z.boolean(),
  exit: anyExit,
  mode: z.literal('proofs'),
  trust_digest: digestString,
  evaluated_at: isoSeconds,
  checkpoints: z.array(z.strictObject({ file: z.string(), origin: z.nullable(z.string()), tree_size: z.nullable(count), verified: z.boolean() })),
  inclusion: z.array(
    z.strictObject({ proof: z.string(), checkpoint: z.nullable(z.string()), tree_size: z.nullable(count), seq: z.nullable(count), receipt: z.nullable(receiptId), verified: z.boolean() }),
  ),
  consistency: z.array(
    z.strictObject({ proof: z.string(), from: z.nullable(z.string()), to: z.nullable(z.string()), old_size: z.nullable(count), new_size: z.nullable(count), verified: z.boolean() }),
  ),
  failures: z.array(auditFailureSchema),
});
export type AuditProofsReport = z.infer<typeof auditVerifyProofsSchema>;

/** `governed audit verify --json`: the store (or export) audit, or the proofs-only check. */
export const auditVerifySchema = z.union([auditVerifyStoreSchema, auditVerifyProofsSchema]);
export type AuditVerifyJson = z.infer<typeof auditVerifySchema>;
