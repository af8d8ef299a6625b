// The log checkpoint's predicate and subject: their one definition (docs/audit.md; the statement and
// its rules: ./checkpoint.ts). Read through their compiled forms (docs/architecture.md#compiled-formats).
import * as z from 'zod/mini';
import { digestString as digest, hex64, int, isoSeconds, list } from './schema-primitives.js';
import { CHECKPOINT_SUBJECT } from './checkpoint.js';

export const checkpointPredicateSchema = z.strictObject({
  trust_mode: z.literal('co-located'),
  /** Number of log entries covered: the head is the entry hash at this seq. */
  log_entries: int(1, Number.MAX_SAFE_INTEGER),
  /** `sha256:` entry hash of entry `log_entries`. */
  log_head: digest,
  /** stateDigest of the store at that position (replay equal to the stored state when signed). */
  state_digest: digest,
  /** The pins in force at that position. */
  policy_digest: digest,
  trust_digest: digest,
  /** The log attestor that signed (docs/formats.md#attestors: an attestor signs only what names it). */
  attestor_sha256: hex64,
  /** When the checkpoint was made (ISO seconds, UTC). */
  made_at: isoSeconds,
});

export type CheckpointPredicateDocument = z.infer<typeof checkpointPredicateSchema>;

/** The one subject of a checkpoint statement. */
export const checkpointSubjectsSchema = list(z.strictObject({ name: z.literal(CHECKPOINT_SUBJECT), digest: z.strictObject({ sha256: hex64 }) }), 1, 1);
