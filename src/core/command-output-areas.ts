// The `--json` objects of review-pass, preservation *, runnerd * and run reap, each defined once here
// in zod/mini beside ./command-output-records.ts (the commands that set up and feed a store) and
// ./command-output.ts (the objects a pipeline reads to decide). The commands build `z.infer` of these
// (type imports only: no schema is constructed on a command's path), docs/schemas/ publishes their
// JSON Schemas (`npm run schemas:doc`), and test/schemas-command-output-areas.test.ts validates what
// the real CLI printed; test/schemas-command-output-coverage.test.ts fails for a command with a
// --json option whose object has no published schema (COMMAND_JSON_SCHEMAS below). Identifiers,
// digests, counts, codes and the paths the caller gave only. Pure.
import * as z from 'zod/mini';
import { ERROR_CODES, REASON_CODES } from './errors.js';
import { count, digestString, hex64, str } from './schema-primitives.js';
import { DISPOSITIONS } from './preservation/schema.js';
import { CAPABILITY_RE } from './preservation/probe.js';
import { CONTRACT_ID_RE } from './contract/ids.js';
import type { Out } from './command-output-records.js';
import { NAME_RE, RECORD_ID_RE, RUN_ID_RE, UNIT_ID_RE } from './ids.js';

const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as [keyof typeof ERROR_CODES, ...(keyof typeof ERROR_CODES)[]];
const code = z.enum(ERROR_CODE_LIST);
const REASON_CODE_LIST = Object.keys(REASON_CODES) as [keyof typeof REASON_CODES, ...(keyof typeof REASON_CODES)[]];
/** A decision reason (docs/errors.md, reason codes): what preservation check reports. */
const reason = z.enum(REASON_CODE_LIST);
const unitId = str({ re: UNIT_ID_RE });
const runId = str({ re: RUN_ID_RE });
const recordId = str({ re: RECORD_ID_RE });
const contractId = str({ re: CONTRACT_ID_RE });
const slotName = str({ re: NAME_RE });
const tally = z.record(z.string(), count);

/** The three result files review-pass writes (0600 in a 0700 directory): paths only. */
const reviewPassFiles = z.strictObject({ result: z.string(), report: z.string(), executions: z.string() });

/** `governed review-pass --json` without --unit: advisory, non-governed (docs/review-pass.md). */
export const reviewPassOutputSchema = z.strictObject({
  ok: z.boolean(),
  protocol: z.string(),
  stage: z.string(),
  mode: z.literal('non-governed'),
  result: z.enum(['CLEAN', 'NOT_CLEAN']),
  reasons: z.array(z.string()),
  rounds: count,
  counts: tally,
  /** One entry per reviewer call: its status and exit class, never its output or stderr. */
  reviewers: z.array(
    z.strictObject({
      round: count,
      purpose: z.string(),
      reviewer: z.string(),
      status: z.enum(['ok', 'timeout', 'failed']),
      failure: z.nullable(z.string()),
      attempts: count,
      exit_code: z.nullable(z.number()),
      exit_class: z.string(),
      network: z.union([z.boolean(), z.literal('broker')]),
    }),
  ),
  config: z.nullable(z.string()),
  scope_files: count,
  out_dir: z.string(),
  files: reviewPassFiles,
  auto_fix: z.literal('out_of_scope'),
});

/** `governed review-pass --unit U --json`: every reviewer a real review-challenge + review-run; advisory (the gate decides). */
export const reviewPassGovernedOutputSchema = z.strictObject({
  ok: z.boolean(),
  protocol: z.string(),
  stage: z.string(),
  mode: z.literal('governed'),
  unit: unitId,
  result: z.enum(['CLEAN', 'NOT_CLEAN']),
  reasons: z.array(z.string()),
  advisory: z.literal(true),
  delivery_state: z.string(),
  streak: count,
  slots: z.array(slotName),
  rounds: count,
  clean_rounds: count,
  runs: z.array(
    z.strictObject({
      round: count,
      slot: slotName,
      verdict: z.enum(['CLEAN', 'DIRTY', 'ABORTED']),
      run_id: z.nullable(runId),
      receipt_id: z.nullable(digestString),
      error: z.nullable(z.string()),
    }),
  ),
  finding_groups: count,
  counts: tally,
  severities: tally,
  focus_files: count,
  out_dir: z.string(),
  files: z.strictObject({ result: z.string(), report: z.string() }),
  auto_fix: z.literal('out_of_scope'),
});

/** `governed run reap --json` (docs/runner.md): the runs recorded ABORTED and the challenge bundles removed. */
export const runReapOutputSchema = z.strictObject({ ok: z.literal(true), unit: unitId, aborted: z.array(runId), bundles_removed: count });

/** `governed preservation set --json` (docs/preservation.md#binding-a-contract). */
export const preservationSetOutputSchema = z.strictObject({
  ok: z.literal(true),
  unit: unitId,
  version: count,
  contract_digest: digestString,
  incident_history: digestString,
  additions: z.array(contractId),
  narrowing: z.array(contractId),
  authorities: z.array(recordId),
});

/** `governed preservation correct --json` (docs/preservation.md#incident-history). */
export const preservationCorrectOutputSchema = z.strictObject({ ok: z.literal(true), unit: unitId, correction: digestString, version: count, incident_history: digestString });

/** `governed preservation probe --json` (docs/preservation.md#probes): one signed, recorded receipt per surface. */
export const preservationProbeOutputSchema = z.strictObject({
  ok: z.literal(true),
  unit: unitId,
  phase: z.enum(['baseline', 'current']),
  snapshot_digest: digestString,
  /** Surfaces the adapter discovered (baseline only); null for the current phase. */
  inventory: z.nullable(count),
  probes: z.array(z.strictObject({ surface: contractId, receipt: digestString, exit_code: z.number(), capabilities: z.array(str({ re: CAPABILITY_RE })) })),
});

/** `governed preservation vendor-attest --json`. */
export const preservationVendorAttestOutputSchema = z.strictObject({ ok: z.literal(true), unit: unitId, vendors: z.array(contractId) });

/** `governed preservation check --json` (docs/preservation.md#rules): ok iff no reason (exit 0), else exit 3. */
export const preservationCheckOutputSchema = z.strictObject({
  ok: z.boolean(),
  unit: unitId,
  required: z.boolean(),
  /** The policy's waiver reason when preservation is waived, else null. */
  waiver: z.nullable(z.string()),
  binding: z.nullable(z.strictObject({ version: count, contract_digest: digestString, incident_history: digestString })),
  surfaces: z.array(
    z.strictObject({
      id: contractId,
      disposition: z.enum(DISPOSITIONS),
      diff_digest: digestString,
      baseline_probe: z.nullable(digestString),
      current_probe: z.nullable(digestString),
      violations: z.array(reason),
    }),
  ),
  reasons: z.array(z.strictObject({ code: reason, ids: z.array(z.string()) })),
});

const credentialPins = z.strictObject({ key_id: hex64, attestor_sha256: hex64, attestor_config_sha256: hex64 });
/** `governed runnerd setup --json` (docs/runnerd.md#layout): what this run did, the uids, and the digests a policy must pin. */
export const runnerdSetupOutputSchema = z.strictObject({
  ok: z.literal(true),
  actions: z.array(z.string()),
  uids: z.record(z.string(), count),
  credentials: z.strictObject({ reviewer: credentialPins, runner: credentialPins, log: credentialPins, probe: credentialPins }),
  reviewers: z.record(z.string(), hex64),
  home: z.string(),
  socket: z.string(),
});

/** `governed runnerd doctor --json` with nothing to report; findings print the command-error object (runnerd_state_unsafe, exit 4, one id `<path>:<problem>` each). */
export const runnerdDoctorOutputSchema = z.strictObject({ ok: z.literal(true), findings: z.array(z.never()).check(z.maxLength(0)) });

/** The daemon's identity as `runnerd hello` reports it and `runnerd serve` prints when ready. */
const daemonIdentity = {
  boot_id: z.string(),
  daemon_pid: count,
  daemon_start_time: str({ re: /^[0-9]{1,20}$/ }),
  daemon_uid: count,
  attestor_uids: z.strictObject({ reviewer: count, runner: count, probe: count, log: count }),
};

/** `governed runnerd hello --json` (docs/runnerd.md): who the daemon is and who it says the caller is (uid and pid from the kernel). */
export const runnerdHelloOutputSchema = z.strictObject({
  ok: z.literal(true),
  trust_mode: z.literal('separated'),
  daemon: z.strictObject(daemonIdentity),
  client: z.strictObject({ uid: count, pid: count }),
});

/** `governed runnerd serve` (no --json: always JSON log lines on stderr): the line printed once ready, and the one printed after a drain. */
export const runnerdServeLineSchema = z.union([
  z.strictObject({
    ready: z.literal(true),
    pid: count,
    socket: z.string(),
    ...daemonIdentity,
    /** The policy's sandbox uid the daemon's sandbox host runs reviewers as; null without a pinned policy. */
    sandbox_uid: z.nullable(count),
    sandbox_host_pid: z.nullable(count),
    reaped: z.array(runId),
    /** The automatic checkpoint written at start (docs/audit.md "Automatic checkpoints"), or the code that stopped it. */
    checkpoint: z.strictObject({ written: z.array(z.record(z.string(), z.unknown())), error: z.nullable(code) }),
  }),
  z.strictObject({ stopped: z.literal(true) }),
]);


export type ReviewPassOutput = Out<z.infer<typeof reviewPassOutputSchema>>;
export type ReviewPassGovernedOutput = Out<z.infer<typeof reviewPassGovernedOutputSchema>>;
export type RunReapOutput = Out<z.infer<typeof runReapOutputSchema>>;
export type PreservationSetOutput = Out<z.infer<typeof preservationSetOutputSchema>>;
export type PreservationCorrectOutput = Out<z.infer<typeof preservationCorrectOutputSchema>>;
export type PreservationProbeOutput = Out<z.infer<typeof preservationProbeOutputSchema>>;
export type PreservationVendorAttestOutput = Out<z.infer<typeof preservationVendorAttestOutputSchema>>;
export type PreservationCheckOutput = Out<z.infer<typeof preservationCheckOutputSchema>>;
export type RunnerdSetupOutput = Out<z.infer<typeof runnerdSetupOutputSchema>>;
export type RunnerdDoctorOutput = Out<z.infer<typeof runnerdDoctorOutputSchema>>;
export type RunnerdHelloOutput = Out<z.infer<typeof runnerdHelloOutputSchema>>;
export type RunnerdServeLine = Out<z.infer<typeof runnerdServeLineSchema>>;

const NOT_CLEAN_RULE = 'ok is true iff the result is CLEAN (exit 0); NOT_CLEAN prints ok false with its reasons; a failure prints the command-error object. Advisory: only governed gate decides eligibility.';

/** Each schema with its published file stem and title (registered in ./json-schemas.ts). */
export const AREA_OUTPUTS = {
  'review-pass': { schema: reviewPassOutputSchema, title: 'governed review-pass --json v1 (non-governed)', rules: NOT_CLEAN_RULE, doc: 'docs/review-pass.md' },
  'review-pass-governed': { schema: reviewPassGovernedOutputSchema, title: 'governed review-pass --unit --json v1 (governed mode)', rules: NOT_CLEAN_RULE, doc: 'docs/review-pass.md' },
  'run-reap': { schema: runReapOutputSchema, title: 'governed run reap --json v1', doc: 'docs/runner.md' },
  'preservation-set': { schema: preservationSetOutputSchema, title: 'governed preservation set --json v1', doc: 'docs/preservation.md#binding-a-contract' },
  'preservation-correct': { schema: preservationCorrectOutputSchema, title: 'governed preservation correct --json v1', doc: 'docs/preservation.md#incident-history' },
  'preservation-probe': { schema: preservationProbeOutputSchema, title: 'governed preservation probe --json v1', doc: 'docs/preservation.md#probes' },
  'preservation-vendor-attest': { schema: preservationVendorAttestOutputSchema, title: 'governed preservation vendor-attest --json v1', doc: 'docs/preservation.md' },
  'preservation-check': { schema: preservationCheckOutputSchema, title: 'governed preservation check --json v1', rules: 'ok is true iff no reason (exit 0); not satisfied is ok false with its reasons (exit 3); a failure prints the command-error object.', doc: 'docs/preservation.md#rules' },
  'runnerd-setup': { schema: runnerdSetupOutputSchema, title: 'governed runnerd setup --json v1', doc: 'docs/runnerd.md#layout' },
  'runnerd-doctor': { schema: runnerdDoctorOutputSchema, title: 'governed runnerd doctor --json v1', rules: 'Printed when every owner and mode is right (exit 0); findings and missing users print the command-error object (runnerd_state_unsafe, exit 4).', doc: 'docs/runnerd.md' },
  'runnerd-hello': { schema: runnerdHelloOutputSchema, title: 'governed runnerd hello --json v1', doc: 'docs/runnerd.md' },
  // Not a --json output: serve's log lines (on stderr) carry neither schema_version nor exit.
  'runnerd-serve-line': { schema: runnerdServeLineSchema, printed: false, title: 'governed runnerd serve: its JSON log lines on stderr v1', rules: 'One JSON object per line on stderr, always (serve has no --json): the ready line, and the stopped line after a drain; a failure to start prints the command-error object.', doc: 'docs/runnerd.md' },
} as const;

/**
 * Every command with a --json option → the published schema stems of what it prints on success
 * (every failure prints command-error, gate its decision object). A command added with --json and
 * no entry here fails test/schemas-command-output-coverage.test.ts.
 */
export const COMMAND_JSON_SCHEMAS: Readonly<Record<string, readonly string[]>> = {
  keygen: ['keygen'],
  verify: ['verify'],
  init: ['init'],
  'unit create': ['unit-create'],
  'unit bind': ['unit-bind'],
  'unit dismiss': ['unit-dismiss'],
  'unit dismiss-veto': ['unit-dismiss'],
  'writer register': ['writer-register'],
  'lease acquire': ['lease-acquire'],
  'lease release': ['lease-release'],
  'lease list': ['lease-list'],
  'authority request': ['authority-request'],
  'authority sign': ['authority-sign'],
  'authority record': ['authority-record'],
  'policy update': ['pin-update'],
  'trust update': ['pin-update'],
  'review-challenge': ['review-challenge'],
  'review-run': ['review-run'],
  'run reap': ['run-reap'],
  'receipt show': ['receipt-show'],
  'sandbox profile': ['sandbox-profile'],
  status: ['status'],
  gate: ['gate-decision'],
  'audit verify': ['audit-verify'],
  'audit checkpoint': ['audit-checkpoint'],
  'audit prove': ['audit-prove'],
  'audit cosign': ['audit-cosign'],
  'audit export': ['audit-export'],
  'review-pass': ['review-pass', 'review-pass-governed'],
  'preservation set': ['preservation-set'],
  'preservation correct': ['preservation-correct'],
  'preservation probe': ['preservation-probe'],
  'preservation vendor-attest': ['preservation-vendor-attest'],
  'preservation check': ['preservation-check'],
  'runnerd setup': ['runnerd-setup'],
  'runnerd serve': ['runnerd-serve-line'],
  'runnerd doctor': ['runnerd-doctor'],
  'runnerd hello': ['runnerd-hello'],
  setup: ['setup'],
  doctor: ['doctor'],
  'contract init': ['contract-init'],
  'completion bash': ['completion'],
  'completion zsh': ['completion'],
};
