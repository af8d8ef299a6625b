// The witness's state file of `governed audit cosign --state F` (docs/audit.md#witnesses): the last
// checkpoint this witness cosigned for one log, so that the next one must extend it (a fork — a
// smaller size, or the same size with another root — is refused). One definition, read and written
// by src/flows/audit/cosign.ts and published as docs/schemas/witness-state.schema.json. Pure.
import * as z from 'zod/mini';
import { count } from './schema-primitives.js';
import { proofHash } from './tlog-proof.js';

export const WITNESS_STATE_FORMAT = 'governed/tlog-witness-state';

export const witnessStateSchema = z.strictObject({
  format: z.literal(WITNESS_STATE_FORMAT),
  version: z.literal(1),
  /** The log's origin (its key name); the next checkpoint must name the same. */
  origin: z.string(),
  /** The log's verifier key as the witness was given it (`--log-key`); the next run must give the same. */
  log_key: z.string(),
  /** The tree size of the checkpoint last cosigned. */
  size: count,
  /** Its root, as the proof files carry a tree hash. */
  root: proofHash,
});
export type WitnessState = z.infer<typeof witnessStateSchema>;
