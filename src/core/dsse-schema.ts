// The DSSE v1 envelope's one definition (docs/formats.md#receipt). Closed objects: an extra field
// anywhere is refused (docs/threat-model.md#rules-that-hold-everywhere "Closed objects"). Read at
// run time through its compiled form (./dsse.ts, docs/architecture.md#compiled-formats).
import * as z from 'zod/mini';
import { list, str } from './schema-primitives.js';
import { HEX64_RE } from './ids.js';

const signatureSchema = z.strictObject({
  keyid: str({ re: HEX64_RE }),
  sig: str({ min: 1 }),
});

export const envelopeSchema = z.strictObject({
  payloadType: str({ min: 1 }),
  payload: z.string(),
  signatures: list(signatureSchema, 0, 16),
});

export type Envelope = z.infer<typeof envelopeSchema>;
