// The published JSON Schemas (draft 2020-12) of governed's formats, generated from the one
// definition of each (zod's toJSONSchema) into docs/schemas/*.schema.json by `npm run schemas:doc`
// (test/schemas-doc.test.ts fails when a file is stale). What a JSON Schema cannot say — a real
// calendar instant, an own `__proto__` key refused in maps, canonical RFC 8785 bytes, the cross-field
// rules — is checked by governed and named in each schema's `description`. Pure.
import * as z from 'zod/mini';
import { exportManifestSchema } from './audit/export-schema.js';
import { authorityPredicateSchema } from './authority/predicate.js';
import { bundleJsonSchema } from './bundle/schema.js';
import { checkpointPredicateSchema } from './checkpoint.js';
import { contractSchema } from './contract/schema.js';
import { envelopeSchema } from './dsse.js';
import { policySchema } from './policy.js';
import { reviewReceiptPredicateSchema } from './receipt-predicate.js';
import { runnerdRequestSchema, runnerdResponseSchema } from './runnerd-protocol.js';
import { trustRootSchema } from './trust-root.js';
import { vsaPredicateSchema } from './vsa.js';

const COMMON_RULES =
  'Every time is UTC seconds naming a real calendar instant (src/core/iso-time.ts); map keys named __proto__ are refused (src/core/closed-record.ts).';

interface Entry {
  readonly schema: z.ZodMiniType;
  readonly title: string;
  readonly rules: string;
}

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
};

/** Every published schema by file stem (docs/schemas/<stem>.schema.json), in a stable order. */
export function publishedJsonSchemas(): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [stem, e] of Object.entries(ENTRIES)) {
    const generated = z.toJSONSchema(e.schema, { target: 'draft-2020-12', io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
    out[stem] = {
      $id: `https://governed.dev/schemas/${stem}/v1.json`,
      title: e.title,
      description: `${e.rules} ${COMMON_RULES}`,
      ...generated,
    };
  }
  out.bundle = { ...bundleJsonSchema(), description: `Beyond this schema (docs/bundle.md): the bundle is its own RFC 8785 bytes, base64 fields hash to the digests beside them, view and sections agree, coverage lists sorted and unique. ${COMMON_RULES}` };
  return out;
}
