// The gate's deploy record manifest (docs/gate.md "`--export DIR`: the deploy record";
// docs/audit.md "Export and deploy record"): `manifest.json` exactly as src/flows/decide/export.ts
// writes it. Published as docs/schemas/gate-record-manifest.schema.json. The gate writes it without
// loading zod (its cold path stays lean); test/tlog-gate-record.test.ts checks a real record against
// this schema. Pure.
import * as z from 'zod/mini';
import { digestString as digest, hex64, isoSeconds, str } from './schema-primitives.js';

/**
 * Every path a deploy record can hold: the decision, the relied-on envelopes, the --trust bytes,
 * the VSA, and — when the store has a stored checkpoint — `checkpoint.note` and the inclusion
 * proof `proofs/<hex>.json` of each relied-on receipt that checkpoint covers.
 */
export const GATE_RECORD_FILE_PATH = /^(?:decision\.json|trust\.(?:json|yaml)|vsa\.json|receipts\/[0-9a-f]{64}\.json|authority\/REC-[0-9a-f]{24}\.json|checkpoint\.note|proofs\/[0-9a-f]{64}\.json)$/;

export const gateRecordManifestSchema = z.strictObject({
  format: z.literal('governed/gate-record'),
  version: z.literal(1),
  unit: z.nullable(str({ re: /^UNIT-[0-9a-f]{32}$/ })),
  state: z.nullable(str({ min: 1, max: 64 })),
  subject: z.strictObject({ commit: z.nullable(str({ re: /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/ })), manifestDigest: z.nullable(digest) }),
  evaluatedAt: isoSeconds,
  policyDigest: z.nullable(digest),
  gateTrustDigest: z.nullable(digest),
  files: z.array(z.strictObject({ path: str({ re: GATE_RECORD_FILE_PATH }), sha256: hex64 })),
});
export type GateRecordManifest = z.infer<typeof gateRecordManifestSchema>;
