// The deploy record's manifest.json (`governed gate --export DIR`, docs/gate.md "`--export DIR`: the
// deploy record"): format, the decision's unit/state/subject/evaluatedAt, its policy and deploy-side
// trust digests, and the sha256 of every other file of DIR. Written by src/flows/decide/export.ts as
// RFC 8785 canonical JSON (its sha256 is the decision's `export.manifestDigest`), which imports this
// TYPE only (the exporter adds no chunk to the gate); published as
// docs/schemas/deploy-record-manifest.schema.json. Pure.
//
// Its fields were camelCase in version 1, as the gate decision's were: every camelCase field is kept
// for the deprecation period (removed in CAMEL_CASE_REMOVED_IN) and carries its snake_case twin
// beside it with the same value, by the one rule of ./json-style.ts (docs/commands.md#the-json-style).
import * as z from 'zod/mini';
import type { WithSnakeTwins } from './json-style.js';
import { snakeTwinsSchema } from './json-style-schema.js';
import { digestString, gitId, hex64, isoSeconds, str } from './schema-primitives.js';
import { UNIT_ID_RE } from './ids.js';

/**
 * Every path a deploy record can hold, made of IDs only: the decision, the relied-on envelopes (receipts, probe receipts, authority records), the
 * --trust bytes, the VSA, and — when the store has a stored checkpoint — `checkpoint.note` and the
 * inclusion proof `proofs/<hex>.json` of each relied-on receipt that checkpoint covers; beside each
 * envelope (a receipt or the VSA) its standard containers `intoto/<name>.intoto.jsonl` and one
 * `sigstore/<name>.<i>.sigstore.json` per signature (docs/formats.md).
 */
export const DEPLOY_RECORD_FILE_PATH = /^(?:decision\.json|vsa\.json|trust\.(?:json|yaml)|receipts\/[0-9a-f]{64}\.json|probes\/[0-9a-f]{64}\.json|authority\/REC-[0-9a-f]{24}\.json|checkpoint\.note|proofs\/[0-9a-f]{64}\.json|intoto\/(?:vsa|[0-9a-f]{64})\.intoto\.jsonl|sigstore\/(?:vsa|[0-9a-f]{64})\.[0-9]+\.sigstore\.json)$/;

/** The version 1 fields (camelCase), without their snake_case twins. */
export const deployRecordManifestCamelSchema = z.strictObject({
  format: z.literal('governed/gate-record'),
  version: z.literal(1),
  unit: z.nullable(str({ re: UNIT_ID_RE })),
  state: z.nullable(z.enum(['RELEASE_ELIGIBLE', 'REVIEW_ONLY'])),
  subject: z.strictObject({ commit: z.nullable(gitId), manifestDigest: z.nullable(digestString) }),
  evaluatedAt: isoSeconds,
  policyDigest: z.nullable(digestString),
  gateTrustDigest: z.nullable(digestString),
  files: z.array(z.strictObject({ path: str({ re: DEPLOY_RECORD_FILE_PATH }), sha256: hex64 })),
});
export type DeployRecordManifestCamel = z.infer<typeof deployRecordManifestCamelSchema>;
/** What manifest.json holds: the camelCase fields and their snake_case twins. */
export const deployRecordManifestSchema = snakeTwinsSchema(deployRecordManifestCamelSchema) as unknown as z.ZodMiniType<WithSnakeTwins<DeployRecordManifestCamel>>;
export type DeployRecordManifest = WithSnakeTwins<DeployRecordManifestCamel>;
