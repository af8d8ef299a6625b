// The log checkpoint (docs/threat-model.md#trust-modes, docs/commands.md#what-each-command-guarantees `audit checkpoint`, docs/state.md#the-store): an in-toto statement, signed through
// the policy's pinned `log` attestor, that names the head of the hash-chained log at one position.
// Once a checkpoint has left the machine, a later rewrite of any entry at or before that position —
// even with every hash recomputed and re-signed by a key-holding writer — no longer matches it:
// `audit verify --checkpoint` compares the log's entry hash at `log_entries` with `log_head`.
// Zod-free (the attestor program checks it too); this shape and rule are the only implementation. Pure.
import { STATEMENT_TYPE_LEAN } from './lean/receipt.js';
import { arr, int, lit, obj, str, isoSeconds, type Check } from './lean/shape.js';

export const CHECKPOINT_PREDICATE_TYPE = 'https://governed.dev/log-checkpoint/v1';
/** The one subject of a checkpoint: the log, digested by its head entry hash. */
export const CHECKPOINT_SUBJECT = 'governed-log';

export interface CheckpointPredicate {
  readonly trust_mode: 'co-located';
  /** Number of log entries covered: the head is the entry hash at this seq. */
  readonly log_entries: number;
  /** `sha256:` entry hash of entry `log_entries`. */
  readonly log_head: string;
  /** stateDigest of the store at that position (replay equal to the stored state when signed). */
  readonly state_digest: string;
  /** The pins in force at that position. */
  readonly policy_digest: string;
  readonly trust_digest: string;
  /** The log attestor that signed (docs/formats.md#attestors: an attestor signs only what names it). */
  readonly attestor_sha256: string;
  /** When the checkpoint was made (ISO seconds, UTC). */
  readonly made_at: string;
}

export interface CheckpointStatement {
  readonly _type: string;
  readonly subject: readonly { readonly name: string; readonly digest: { readonly sha256: string } }[];
  readonly predicateType: string;
  readonly predicate: CheckpointPredicate;
}

const digest = str({ re: /^sha256:[0-9a-f]{64}$/ });
const hex64 = str({ re: /^[0-9a-f]{64}$/ });

export const checkpointPredicateShape: Check = obj({
  trust_mode: lit('co-located'),
  log_entries: int(1, Number.MAX_SAFE_INTEGER),
  log_head: digest,
  state_digest: digest,
  policy_digest: digest,
  trust_digest: digest,
  attestor_sha256: hex64,
  made_at: isoSeconds,
});

const subjectShape: Check = arr(obj({ name: lit(CHECKPOINT_SUBJECT), digest: obj({ sha256: hex64 }) }), 1, 1);

export function buildCheckpointStatement(p: CheckpointPredicate): CheckpointStatement {
  return {
    _type: STATEMENT_TYPE_LEAN,
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
  const bad = checkpointPredicateShape(st.predicate, 'predicate');
  if (bad !== null) return bad;
  if (subjectShape(st.subject, 'subject') !== null) return 'subject';
  const p = st.predicate as CheckpointPredicate;
  const [s] = st.subject as { digest: { sha256: string } }[];
  if (`sha256:${s?.digest.sha256}` !== p.log_head) return 'subject';
  return null;
}
