// The policy's one definition (docs/policy.md#policy-and-trust-root): strict, closed. Read at run
// time through its compiled form (./policy.ts, docs/architecture.md#compiled-formats).
import * as z from 'zod/mini';
import { VSA_HTTPS_URI_RE, VSA_REPOSITORY_URI_RE } from './vsa-uris.js';
import { closedRecord } from './closed-record.js';
import { DURATION_RE, SIZE_RE } from './duration.js';
import { CHECK_REPORTS, KNOWN_CONTROLS } from './review-vocabulary.js';
import { hex64, int, list, str } from './schema-primitives.js';
import { egressPolicySchema } from './egress-schema.js';
import { REFINEMENTS } from './format/refinements.js';
import { CHECK_COMMAND_ARG_MAX_CHARS, CHECK_COMMAND_MAX_ARGS, CHECK_DEPENDENCY_ROOT_MAX_CHARS } from './limits.js';
import { NAME_RE } from './ids.js';
import { POLICY_MAX_EXCLUDES, POLICY_PATH_MAX_CHARS, PRESERVATION_WAIVER_MAX_CHARS, REVIEWER_ENV_VALUE_MAX } from './limits.js';
import { INTERPRETER_PATH_RE, SANDBOX_ENV_NAME_RE } from './sandbox-bounds.js';
import { KERNEL_UID_MAX } from './limits.js';

const name = str({ re: NAME_RE });
const duration = str({ re: DURATION_RE });
const size = str({ re: SIZE_RE });
const relPath = str({ min: 1, max: POLICY_PATH_MAX_CHARS }).check(
  z.refine(REFINEMENTS.relativePath, {
    message: 'path',
  }),
  z.meta({ description: "'.' or a relative path with no empty, '.' or '..' segment" }),
);
const hexList = list(hex64, 1, 16);



const checkSchema = z.strictObject({
  /** The pinned adapter program (`<reviewers dir>/<adapter>.mjs`; default: the reviewer's own name),
   * so that several check reviewers can share one adapter with different commands. */
  adapter: z.optional(name),
  command: list(str({ min: 1, max: CHECK_COMMAND_ARG_MAX_CHARS }), 1, CHECK_COMMAND_MAX_ARGS).check(
    z.meta({ description: "argv; argv[0] an absolute program path under /usr (e.g. /usr/bin/node), run with cwd /snapshot" }),
  ),
  dependency_root: z.optional(
    str({ min: 1, max: CHECK_DEPENDENCY_ROOT_MAX_CHARS }).check(
      z.refine(REFINEMENTS.dependencyRootAllowed, { message: 'path' }),
      z.meta({ description: 'a relative directory of the repository (e.g. node_modules), outside the workspace manifest' }),
    ),
  ),
  report: z.optional(z.enum(CHECK_REPORTS)),
});
export type CheckConfig = z.infer<typeof checkSchema>;

const stageSchema = z.strictObject({
  required: z.boolean(),
  streak: int(2, 100),
  slots: closedRecord(name, name),
});

const credentialSchema = z.strictObject({
  key_id: hex64,
  attestor_sha256: hexList,
  attestor_config_sha256: hexList,
});

/** Write a checkpoint once the log has grown by `every_entries`, or by entries `every` later than the newest one covered. */
const tlogCheckpointsSchema = z
  .strictObject({
    every_entries: z.optional(int(1, 1_000_000)),
    every: z.optional(duration),
  })
  .check(
    z.refine(REFINEMENTS.checkpointTrigger, { message: 'tlog_checkpoints' }),
    z.meta({ description: 'at least one of every_entries, every' }),
  );

export const policySchema = z.strictObject({
  kind: z.literal('governed/policy'),
  version: z.literal(1),
  // The mode this deployment runs in (docs/security.md). What a gate accepts is the receipts' own
  // mode: separated always, co-located only with accept_co_located (core/decision/delivery.ts).
  trust_mode: z.enum(['co-located', 'separated']),
  accept_co_located: z.boolean(),
  challenge_ttl: duration,
  max_runs_per_content: int(1, 1000),
  reuse_window: z.optional(duration),
  product_roots: list(relPath, 1, 64),
  exclude: list(relPath, 0, POLICY_MAX_EXCLUDES),
  preservation: z.union([z.literal('required'), z.strictObject({ waived: str({ min: 1, max: PRESERVATION_WAIVER_MAX_CHARS }) })]),
  stages: z
    .strictObject({
      planning: z.optional(stageSchema),
      development: z.optional(stageSchema),
      test: z.optional(stageSchema),
      integration: z.optional(stageSchema),
    })
    .check(z.refine(REFINEMENTS.atLeastOneKey, { message: 'stages' }), z.meta({ description: 'at least one stage' })),
  reviewers: closedRecord(
    name,
    z.strictObject({
      sha256: hex64,
      interpreter: str({ re: INTERPRETER_PATH_RE }).check(
        z.refine(REFINEMENTS.noDotDotSegment, { message: 'path' }),
        z.meta({ description: "an absolute path under /usr with no '..' segment" }),
      ),
      env: closedRecord(str({ re: SANDBOX_ENV_NAME_RE }), str({ max: REVIEWER_ENV_VALUE_MAX })),
      /** The one model endpoint this reviewer may reach through the egress broker (docs/egress.md). */
      egress: z.optional(egressPolicySchema),
      /** A check reviewer (docs/reviewers.md#check-reviewers): the command its pinned adapter runs
       * on the sealed snapshot, the dependency root bound beside it, the report format. */
      check: z.optional(checkSchema),
    }),
  ),
  sandbox: z.strictObject({
    bwrap_sha256: hexList,
    profile_sha256: hexList,
    seccomp_sha256: hexList,
    uid: int(1000, KERNEL_UID_MAX),
    timeout: duration,
    memory: size,
    max_output: size,
    max_bundle: size,
  }),
  credentials: z.strictObject({
    reviewer: credentialSchema,
    runner: credentialSchema,
    gate: credentialSchema,
    log: credentialSchema,
    probe: z.optional(credentialSchema),
  }),
  controls: list(z.enum(KNOWN_CONTROLS), 0, KNOWN_CONTROLS.length),
  // The allowlisted project/probe adapters of preservation (docs/preservation.md#adapter-protocol):
  // the sha256 of each adapter program that may run, its interpreter, and the dependency root
  // (e.g. node_modules) sealed and bound read-only under the snapshot while it runs.
  preservation_adapters: z.optional(
    z.strictObject({
      sha256: hexList,
      interpreter: str({ re: INTERPRETER_PATH_RE }).check(
        z.refine(REFINEMENTS.noDotDotSegment, { message: 'path' }),
        z.meta({ description: "an absolute path under /usr with no '..' segment" }),
      ),
      dependency_root: z.optional(relPath),
    }),
  ),
  // Automatic C2SP checkpoints (docs/audit.md "Automatic checkpoints"; the rule: src/core/tlog-auto.ts).
  tlog_checkpoints: z.optional(tlogCheckpointsSchema),
  // The signed decision's deployment identity (docs/gate.md#3-the-signed-decision---attest-file): `verifier.id` of every VSA this
  // deployment's gate signs, and the repository its `resourceUri` names (`<repository_uri>@<commit>`).
  vsa: z.optional(
    z.strictObject({
      verifier_id: z.optional(str({ re: VSA_HTTPS_URI_RE })),
      repository_uri: z.optional(str({ re: VSA_REPOSITORY_URI_RE })),
    }),
  ),
});

export type PolicyDocument = z.infer<typeof policySchema>;
