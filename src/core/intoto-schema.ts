// The in-toto Statement v1 frame's one definition (docs/formats.md#receipt).
import * as z from 'zod/mini';
import { gitId, hex64, list, str } from './schema-primitives.js';
import { closedRecord } from './closed-record.js';
import { INTOTO_SUBJECT_NAME_MAX_CHARS } from './limits.js';
import { STATEMENT_TYPE_V1 } from './intoto.js';

export const subjectSchema = z.strictObject({
  name: str({ min: 1, max: INTOTO_SUBJECT_NAME_MAX_CHARS }),
  // `gitCommit` (the in-toto DigestSet name) only in a signed decision, beside the manifest digest
  // (src/core/vsa.ts); receipts and checkpoints refuse it (src/core/verify-receipt.ts, checkpoint.ts).
  digest: z.strictObject({ sha256: hex64, gitCommit: z.optional(gitId) }),
});

/** The statement frame; `predicate` is checked by the schema of its predicateType. */
export const statementSchema = z.strictObject({
  _type: z.literal(STATEMENT_TYPE_V1),
  subject: list(subjectSchema, 1, 16),
  predicateType: str({ min: 1 }),
  // Closed against an own `__proto__` key, which z.record would drop unseen (./closed-record.ts).
  predicate: closedRecord(z.string(), z.unknown()),
});

export type Statement = z.infer<typeof statementSchema>;
export type Subject = z.infer<typeof subjectSchema>;

