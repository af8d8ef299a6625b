// The log checkpoint (docs/threat-model.md#trust-modes, docs/commands.md#what-each-command-guarantees `audit checkpoint`, docs/state.md#the-store): an in-toto statement, signed through
// the policy's pinned `log` attestor, that names the head of the hash-chained log at one position.
// Once a checkpoint has left the machine, a later rewrite of any entry at or before that position —
// even with every hash recomputed and re-signed by a key-holding writer — no longer matches it:
// `audit verify --checkpoint` compares the log's entry hash at `log_entries` with `log_head`.
// One definition (zod/mini): the attestor program checks it too. Pure.
import * as z from 'zod/mini';
import { STATEMENT_TYPE_V1 } from './intoto.js';
import { digestString as digest, hex64, int, isoSeconds, list } from './schema-primitives.js';

export const CHECKPOINT_PREDICATE_TYPE = 'https://governed.dev/log-checkpoint/v1';
/** The one subject of a checkpoint: the log, digested by its head entry hash. */
export const CHECKPOINT_SUBJECT = 'governed-log';

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

export type CheckpointPredicate = Readonly<z.infer<typeof checkpointPredicateSchema>>;

export interface CheckpointStatement {
  readonly _type: string;
  readonly subject: readonly { readonly name: string; readonly digest: { readonly sha256: string } }[];
  readonly predicateType: string;
  readonly predicate: CheckpointPredicate;
}

const subjectSchema = list(z.strictObject({ name: z.literal(CHECKPOINT_SUBJECT), digest: z.strictObject({ sha256: hex64 }) }), 1, 1);

/** The first failing field of `value` under `schema`, as `prefix.a.b`, or null. */
function firstIssue(schema: z.ZodMiniType, value: unknown, prefix: string): string | null {
  const r = schema.safeParse(value);
  if (r.success) return null;
  const path = r.error.issues[0]?.path.map(String).join('.') ?? '';
  return path === '' ? prefix : `${prefix}.${path}`;
}

export function buildCheckpointStatement(p: CheckpointPredicate): CheckpointStatement {
  return {
    _type: STATEMENT_TYPE_V1,
    subject: [{ name: CHECKPOINT_SUBJECT, digest: { sha256: p.log_head.slice('sha256:'.length) } }],
    predicateType: CHECKPOINT_PREDICATE_TYPE,
    predicate: p,
  };
}

/**
 * The first field where a statement (already a well-formed in-toto statement) is not a checkpoint:
 * the predicate type, the closed predicate, the one subject, or the subject digest that must be
 * the head it names. Null when it is one.
 */
export function checkpointViolation(st: { subject: unknown; predicateType: unknown; predicate: unknown }): string | null {
  if (st.predicateType !== CHECKPOINT_PREDICATE_TYPE) return 'predicateType';
  const bad = firstIssue(checkpointPredicateSchema, st.predicate, 'predicate');
  if (bad !== null) return bad;
  if (firstIssue(subjectSchema, st.subject, 'subject') !== null) return 'subject';
  const p = st.predicate as CheckpointPredicate;
  const [s] = st.subject as { digest: { sha256: string } }[];
  if (`sha256:${s?.digest.sha256}` !== p.log_head) return 'subject';
  return null;
}
