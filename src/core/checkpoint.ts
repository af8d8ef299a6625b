// The log checkpoint (docs/threat-model.md#trust-modes, docs/commands.md#what-each-command-guarantees `audit checkpoint`, docs/state.md#the-store): an in-toto statement, signed through
// the policy's pinned `log` attestor, that names the head of the hash-chained log at one position.
// Once a checkpoint has left the machine, a later rewrite of any entry at or before that position —
// even with every hash recomputed and re-signed by a key-holding writer — no longer matches it:
// `audit verify --checkpoint` compares the log's entry hash at `log_entries` with `log_head`.
// Its one definition is ./checkpoint-schema.ts (zod/mini), checked here and by the attestor program
// through its compiled form (docs/architecture.md#compiled-formats). Pure.
import { STATEMENT_TYPE_V1 } from './intoto.js';
import { CHECKPOINT_PREDICATE, CHECKPOINT_SUBJECTS } from './format/compiled.js';
import { checkFormat } from './format/interpret.js';
import type { CompiledForm } from './format/node.js';
import type { CheckpointPredicateDocument } from './checkpoint-schema.js';

export const CHECKPOINT_PREDICATE_TYPE = 'https://governed.dev/log-checkpoint/v1';
/** The one subject of a checkpoint: the log, digested by its head entry hash. */
export const CHECKPOINT_SUBJECT = 'governed-log';

export type CheckpointPredicate = Readonly<CheckpointPredicateDocument>;

export interface CheckpointStatement {
  readonly _type: string;
  readonly subject: readonly { readonly name: string; readonly digest: { readonly sha256: string } }[];
  readonly predicateType: string;
  readonly predicate: CheckpointPredicate;
}

/** The first failing field of `value` in a compiled format, as `prefix.a.b`, or null. */
function firstIssue(form: CompiledForm, value: unknown, prefix: string): string | null {
  const r = checkFormat(form, value);
  if (r.success) return null;
  const path = r.paths[0] ?? '$';
  return path === '$' ? prefix : `${prefix}.${path}`;
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
  const bad = firstIssue(CHECKPOINT_PREDICATE, st.predicate, 'predicate');
  if (bad !== null) return bad;
  if (firstIssue(CHECKPOINT_SUBJECTS, st.subject, 'subject') !== null) return 'subject';
  const p = st.predicate as CheckpointPredicate;
  const [s] = st.subject as { digest: { sha256: string } }[];
  if (`sha256:${s?.digest.sha256}` !== p.log_head) return 'subject';
  return null;
}
