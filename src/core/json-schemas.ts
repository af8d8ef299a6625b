// The published JSON Schemas (draft 2020-12) of governed's formats, generated from the one
// definition of each (zod's toJSONSchema) into docs/schemas/*.schema.json by `npm run schemas:doc`
// (test/schemas-doc.test.ts fails when a file is stale). What a JSON Schema cannot say — a real
// calendar instant, an own `__proto__` key refused in maps, canonical RFC 8785 bytes, the cross-field
// rules — is checked by governed and named in each schema's `description`. Pure.
import * as z from 'zod/mini';
import { exportManifestSchema } from './audit/export-schema.js';
import { authorityPredicateSchema } from './authority/predicate.js';
import { bundleSchema } from './bundle/schema.js';
import { checkpointPredicateSchema } from './checkpoint-schema.js';
import { contractSchema } from './contract/schema.js';
import { envelopeSchema } from './dsse-schema.js';
import { policySchema } from './policy-schema.js';
import { reviewReceiptPredicateSchema } from './receipt-predicate-schema.js';
import { runnerdProgressFrameSchema, runnerdRequestSchema, runnerdResponseSchema } from './runnerd-protocol.js';
import { trustRootSchema } from './trust-root-schema.js';
import { vsaPredicateSchema } from './vsa-schema.js';
import { preservationContractSchema } from './preservation/schema.js';
import { adapterRequestSchema, inventoryOutputSchema, probeBatchOutputSchema, probePredicateSchema } from './preservation/probe-schema.js';
import { auditVerifySchema, commandErrorSchema, gateDecisionSchema, reviewChallengeSchema, reviewRunSchema, statusSchema, verifySchema } from './command-output.js';
import { deployRecordManifestSchema } from './deploy-record.js';
import { reviewOutputSchema } from './review-output.js';
import { consistencyProofSchema, inclusionProofSchema } from './tlog-proof.js';
import { witnessStateSchema } from './witness-state.js';
import { reviewPassResultSchema } from './review-pass-result.js';
import { RECORD_OUTPUTS } from './command-output-records.js';
import { AREA_OUTPUTS } from './command-output-areas.js';
import { printedSchema } from './json-style-schema.js';

const COMMON_RULES =
  'Every time is UTC seconds naming a real calendar instant (src/core/iso-time.ts); map keys named __proto__ are refused (src/core/closed-record.ts).';

interface Entry {
  readonly schema: z.ZodMiniType;
  readonly title: string;
  readonly rules: string;
  /** An object governed writes and never reads (a `--json` output): only the time rule applies. */
  readonly output?: true;
  /** False for an output not printed through src/cli/output.ts (runnerd serve's log lines): no schema_version or exit added. */
  readonly printed?: false;
}

const OUTPUT_RULES = 'Every time is UTC seconds naming a real calendar instant.';

const ENTRIES: Readonly<Record<string, Entry>> = {
  'runnerd-request': {
    schema: runnerdRequestSchema,
    title: 'governed runnerd socket request v1',
    rules: 'One JSON object on one line (duplicate keys refused), at most RUNNERD_MAX_REQUEST_BYTES, arriving whole within RUNNERD_REQUEST_TIMEOUT_MS (src/core/runnerd-protocol.ts). content.bundle_b64 is canonical base64 of a git pack containing content.commit and every object it reaches. docs/runnerd.md.',
  },
  'runnerd-response': {
    schema: runnerdResponseSchema,
    title: 'governed runnerd socket response v1',
    rules: 'One JSON object on one line: the result co-located mode would print (exit, json, human) or its coded error. docs/runnerd.md.',
  },
  'runnerd-progress-frame': {
    schema: runnerdProgressFrameSchema,
    title: 'governed runnerd socket progress frame v1',
    rules: 'Zero or more lines before the response, only for a review-run or review-challenge request with progress: true: a phase id of that command in src/core/progress.ts and an optional count. The client prints the phase from its own table; an unknown id makes the response malformed. docs/runnerd.md.',
  },
  policy: {
    schema: policySchema,
    title: 'governed policy v1',
    rules: 'Beyond this schema (src/core/policy-rules.ts): planning/integration slots are exactly the four roles, every slot names a listed reviewer, integration needs planning, reviewer env names that steer a loader or interpreter are refused, credentials use distinct keys, sandbox sizes and times within the sandbox bounds (src/core/sandbox-bounds.ts). docs/formats.md.',
  },
  'trust-root': {
    schema: trustRootSchema,
    title: 'governed trust root v1',
    rules: 'Beyond this schema (src/core/trust-root-keys.ts): every public_key is an Ed25519 SPKI PEM whose sha256 is its key_id, key ids unique, roles unique per key, not_before < not_after. docs/formats.md.',
  },
  'request-contract': {
    schema: contractSchema,
    title: 'governed request contract v1',
    rules: 'Beyond this schema (src/core/contract/validate.ts): ID syntax and uniqueness, spans inside their source, every reference resolves, tombstone disposals exact. docs/formats.md.',
  },
  'receipt-predicate': {
    schema: reviewReceiptPredicateSchema,
    title: 'governed review-receipt predicate v1 (https://governed.dev/review-receipt/v1)',
    rules: 'Beyond this schema (src/core/receipt-predicate.ts predicateRuleViolation): CLEAN iff no findings, findings sorted and unique in RFC 8785 order, refs sorted, vetoes exactly the veto findings, issued_at <= started_at <= finished_at; trust_mode separated iff separation is present, and then separation.client_uid is neither 0 nor any governed uid (daemon, attestors, sandbox). The statement payload is exactly its RFC 8785 bytes.',
  },
  'authority-predicate': {
    schema: authorityPredicateSchema,
    title: 'governed authority record predicate v1 (https://governed.dev/authority/v1)',
    rules: 'Beyond this schema (src/core/authority/predicate.ts authorityPredicateViolation): ids sorted and unique, the operation decides which of unit/state_before/state_after are null, expires_at after issued_at within the TTL bounds. docs/authority.md.',
  },
  vsa: {
    schema: vsaPredicateSchema,
    title: 'governed decision: SLSA verification summary v1 predicate',
    rules: 'Beyond this schema (src/core/vsa.ts vsaRuleViolation): PASSED iff RELEASE_ELIGIBLE iff no reason iff the one release level, resourceUri names governed.subject.commit, the policy digest agrees, inputAttestations sorted and unique, a receipt input named by its own digest. docs/gate.md.',
  },
  'preservation-contract': {
    schema: preservationContractSchema,
    title: 'governed preservation contract v1',
    rules: 'Beyond this schema (src/core/preservation/validate.ts): id syntax and one namespace for surfaces, vendor sources and evidence ids; paths normalized inside the product roots; kind other needs na_reason; a supported kind names its probe entry; destructive dispositions need authority_id and expected_diff_digest, the others must not; a vendor source needs origin commit and tree_digest. docs/preservation.md.',
  },
  'probe-predicate': {
    schema: probePredicateSchema,
    title: 'governed probe receipt predicate v1 (https://governed.dev/probe-receipt/v1)',
    rules: 'Beyond this schema (src/core/preservation/probe.ts probeRuleViolation): results sorted by surface and unique, capabilities sorted and unique; trust_mode separated iff separation is present, and then separation.client_uid is neither 0 nor the daemon or an attestor uid; absent trust_mode means co-located; the subject is snapshot:<phase> with the snapshot digest. docs/preservation.md#probes, docs/runnerd.md#probes-through-the-daemon.',
  },
  'adapter-request': {
    schema: adapterRequestSchema,
    title: 'governed preservation adapter request v1',
    rules: 'Delivered at $GOVERNED_BUNDLE inside the check sandbox. docs/preservation.md#adapter-protocol.',
  },
  'adapter-inventory': {
    schema: inventoryOutputSchema,
    title: 'governed preservation adapter output: surface inventory v1',
    rules: 'One closed JSON object on stdout. docs/preservation.md#adapter-protocol.',
  },
  'adapter-probe-results': {
    schema: probeBatchOutputSchema,
    title: 'governed preservation adapter output: probe results v1',
    rules: 'One closed JSON object on stdout; one result per requested entry, in request order. docs/preservation.md#adapter-protocol.',
  },
  checkpoint: {
    schema: checkpointPredicateSchema,
    title: 'governed log checkpoint predicate v1 (https://governed.dev/log-checkpoint/v1)',
    rules: 'Its statement has exactly one subject, governed-log, digested by log_head. docs/audit.md.',
  },
  'dsse-envelope': {
    schema: envelopeSchema,
    title: 'DSSE v1 envelope as governed reads it',
    rules: 'payload and every sig are canonical padded base64; duplicate JSON keys are refused.',
  },
  'export-manifest': {
    schema: exportManifestSchema,
    title: 'governed audit export manifest v1 (manifest.json)',
    rules: 'files sorted by path and unique; the manifest is its own RFC 8785 bytes plus a newline. docs/audit.md.',
  },
  'reviewer-output': {
    schema: reviewOutputSchema,
    title: 'governed reviewer output v1 (a reviewer\'s stdout)',
    rules: 'Beyond this schema (src/core/review-output.ts): exactly the RFC 8785 bytes of the object, one trailing newline allowed; coverage equal to the bundle\'s coverage object, each list sorted by UTF-8 bytes and unique; every ref an ID the view shows, refs sorted and unique; findings sorted and unique by their canonical bytes; CLEAN iff no findings. docs/reviewers.md#reviewer-output.',
  },
  'deploy-record-manifest': {
    schema: deployRecordManifestSchema,
    title: 'governed deploy record manifest v1 (gate --export DIR: manifest.json)',
    rules: 'files sorted by path and unique, each the sha256 of that file of DIR; the manifest is its own RFC 8785 bytes and its sha256 is the decision\'s export.manifestDigest. Each camelCase field carries its snake_case twin with the same value; the camelCase names are deprecated (removed in 0.3.0, docs/commands.md#the-json-style). docs/gate.md.',
  },
  'tlog-inclusion-proof': {
    schema: inclusionProofSchema,
    title: 'governed transparency-log inclusion proof v1 (audit prove --entry | --receipt)',
    rules: 'Beyond this schema (src/core/tlog-proof.ts): entry.seq = leaf_index + 1; each hash is canonical base64 of 32 bytes; duplicate JSON keys are refused; the root is informative (a verifier checks the path against a signed checkpoint\'s root). docs/audit.md#proof-files.',
  },
  'tlog-consistency-proof': {
    schema: consistencyProofSchema,
    title: 'governed transparency-log consistency proof v1 (audit prove --from --to)',
    rules: 'Beyond this schema (src/core/tlog-proof.ts): each hash is canonical base64 of 32 bytes; duplicate JSON keys are refused; the roots are informative (checked against two signed checkpoints). docs/audit.md#proof-files.',
  },
  'witness-state': {
    schema: witnessStateSchema,
    title: 'governed witness state v1 (audit cosign --state F)',
    rules: 'Duplicate JSON keys are refused; origin and log_key must equal the log\'s origin and the --log-key of the next run; the next checkpoint must extend size and root (a consistency proof when it grew). docs/audit.md#witnesses.',
  },
  'review-pass-result': {
    schema: reviewPassResultSchema,
    title: 'governed review-pass result v1 (review-pass --json-out)',
    rules: 'Advisory: delivery_state is always REVIEW_ONLY (only governed gate decides eligibility); written as RFC 8785 canonical text. docs/review-pass.md#review-protocols.',
  },
  'gate-decision': {
    output: true,
    schema: gateDecisionSchema,
    title: 'governed gate --json: the decision object v1',
    rules: 'decision is ALLOW iff exit is 0 iff state is RELEASE_ELIGIBLE and error is null; a refusal before any decision keeps every unknown field null. docs/gate.md.',
  },
  status: {
    output: true,
    schema: statusSchema,
    title: 'governed status --json v1',
    rules: 'Identifiers, digests and codes only. docs/gate.md.',
  },
  verify: {
    output: true,
    schema: verifySchema,
    title: 'governed verify --json v1',
    rules: 'ok iff exit is 0; a valid receipt names receipt_id, unit, stage, slot, verdict, trust_mode and signed_by, an invalid one names only its error. A refusal before any receipt is read prints the command-error object. docs/commands.md#what-each-command-guarantees.',
  },
  'review-run': {
    output: true,
    schema: reviewRunSchema,
    title: 'governed review-run --json v1',
    rules: 'A finished run prints its verdict, run id and receipt id (exit 0 for CLEAN, 9 for DIRTY); a run recorded ABORTED prints ok false and its error; a refusal before the claim prints the command-error object. docs/runner.md#the-run-step-by-step.',
  },
  'review-challenge': {
    output: true,
    schema: reviewChallengeSchema,
    title: 'governed review-challenge --json v1',
    rules: 'Only these four fields (besides ok, schema_version and exit): the bundle, its digests and the reviewer stay in the store. docs/commands.md#what-each-command-guarantees.',
  },
  'audit-verify': {
    output: true,
    schema: auditVerifySchema,
    title: 'governed audit verify --json v1',
    rules: 'ok iff exit is 0; export is present only with --export; caveat is present when a co-located receipt was audited; with --inclusion-proof or --consistency-proof the second shape (mode "proofs", no log read). docs/audit.md.',
  },
  'command-error': {
    output: true,
    schema: commandErrorSchema,
    title: 'governed --json on a coded error (every command)',
    rules: 'code is one of docs/errors.md and exit is that code\'s exit (never 0); ids are identifiers, never a rejected value. gate prints its decision object instead (error set). docs/commands.md#common-behaviour.',
  },
  // The --json objects of the commands that set up and feed a store (./command-output-records.ts)
  // and of review-pass, preservation *, runnerd * and run reap (./command-output-areas.ts).
  ...Object.fromEntries(
    Object.entries({ ...RECORD_OUTPUTS, ...AREA_OUTPUTS }).map(([stem, o]): [string, Entry] => [
      stem,
      { output: true, ...('printed' in o ? { printed: o.printed } : {}), schema: o.schema, title: o.title, rules: `${'rules' in o ? o.rules : 'Printed on success only (ok is true); a failure prints the command-error object.'} ${o.doc}.` },
    ]),
  ),
};

/** What is published for an entry: a `--json` output as printed, with schema_version and exit (./json-style-schema.ts). */
const published = (e: Entry): z.ZodMiniType => (e.output === true && e.printed !== false ? printedSchema(e.schema) : e.schema);

/** The one definition behind a published schema (not the bundle's, which has its own generator), by file stem. */
export function publishedDefinition(stem: string): z.ZodMiniType | undefined {
  const e = Object.prototype.hasOwnProperty.call(ENTRIES, stem) ? ENTRIES[stem] : undefined;
  return e === undefined ? undefined : published(e);
}

/**
 * The published JSON Schema (draft 2020-12) of the review bundle: docs/schemas/bundle.schema.json, from
 * the one definition (./bundle/schema.ts). Generated here, not beside the schema, so the pinned
 * coverage reviewer that bundles ./bundle/schema.ts never carries zod's generator.
 */
export function bundleJsonSchema(): Record<string, unknown> {
  return {
    $id: 'https://governed.dev/schemas/review-bundle/v1.json',
    title: 'governed review bundle v1',
    ...(z.toJSONSchema(bundleSchema, { target: 'draft-2020-12', unrepresentable: 'any' }) as Record<string, unknown>),
  };
}

/** Every published schema by file stem (docs/schemas/<stem>.schema.json), in a stable order. */
export function publishedJsonSchemas(): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [stem, e] of Object.entries(ENTRIES)) {
    const generated = z.toJSONSchema(published(e), { target: 'draft-2020-12', io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
    out[stem] = {
      $id: `https://governed.dev/schemas/${stem}/v1.json`,
      title: e.title,
      description: `${e.rules} ${e.output === true ? OUTPUT_RULES : COMMON_RULES}`,
      ...generated,
    };
  }
  out.bundle = { ...bundleJsonSchema(), description: `Beyond this schema (docs/bundle.md): the bundle is its own RFC 8785 bytes, base64 fields hash to the digests beside them, view and sections agree, coverage lists sorted and unique. ${COMMON_RULES}` };
  return out;
}
