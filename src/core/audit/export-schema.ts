// The audit export's formats (docs/audit.md "Export"): `manifest.json` and one `log.jsonl` line,
// exactly as src/flows/audit/export.ts writes them. One definition (zod/mini), read by
// `audit verify --export` and published as docs/schemas/export-manifest.schema.json. Pure.
import * as z from 'zod/mini';
import { digestString as digest, hex64, int, isoSeconds, str } from '../schema-primitives.js';
import { UNIT_ID_RE } from '../ids.js';

/** Every path an export can hold: made of IDs only, so a path can be printed. */
export const EXPORT_FILE_PATH = /^(?:log\.jsonl|(?:policy|trust)\.pinned\.(?:json|yaml)|receipts\/[0-9a-f]{64}\.json|authority\/REC-[0-9a-f]{24}\.json|keys\/[0-9a-f]{64}\.pub|checkpoint\.note|proofs\/[0-9a-f]{64}\.json|intoto\/[0-9a-f]{64}\.intoto\.jsonl|sigstore\/[0-9a-f]{64}\.[0-9]+\.sigstore\.json)$/;

export const exportManifestSchema = z.strictObject({
  format: z.literal('governed/audit-export'),
  version: z.literal(1),
  made_at: isoSeconds,
  unit: z.nullable(str({ re: UNIT_ID_RE })),
  log: z.strictObject({ entries: int(0), head: digest }),
  policy_digest: digest,
  trust_digest: digest,
  files: z.array(z.strictObject({ path: str({ re: EXPORT_FILE_PATH }), sha256: hex64 })),
});
export type ExportManifest = z.infer<typeof exportManifestSchema>;

/** One `log.jsonl` line: exactly the fields export.ts writes. */
export const exportLogLineSchema = z.strictObject({
  seq: int(1),
  time: int(0),
  type: str({ min: 1, max: 64 }),
  unit: z.nullable(str({ min: 1 })),
  payload: z.record(z.string(), z.unknown()),
  payload_digest: digest,
  prev_hash: digest,
  entry_hash: digest,
});
