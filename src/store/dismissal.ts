// The facts a `dismiss` / `dismiss_veto` record is judged against (docs/authority.md "Dismissals"),
// read at THIS log position: the unit's DIRTY receipts and ABORTED runs, and its receipts with veto
// findings, each with the reviewed content it was judged on (the decision's `reviewedContentOf`:
// the planning-state digest for planning, the content digest otherwise). Used by the live command
// (src/flows/authority/dismiss.ts) and by the `authority_consume` reducer, so replay accepts
// exactly what the live path accepts; the rule itself is `checkDismissal` (core, pure).
import { checkDismissal, type DismissalCandidates, type DismissalOperation } from '../core/authority/dismissal.js';
import { reviewedContentOf } from '../core/decision/history.js';
import type { Stage } from '../core/decision/types.js';
import { storedVetoes } from '../core/verify-receipt.js';
import { dbOf, type Db, type Store } from './store.js';

interface Row {
  id: string;
  stage: string;
  planning_state_digest: string;
  content_digest: string;
  work_state_digest: string;
}

const contentOf = (r: Row): string =>
  reviewedContentOf(r.stage as Stage, { planningStateDigest: r.planning_state_digest, contentDigest: r.content_digest, workStateDigest: r.work_state_digest });

export function dismissalCandidates(x: Store | Db, unit: string): DismissalCandidates {
  const db = dbOf(x);
  const cols = 'id, stage, planning_state_digest, content_digest, work_state_digest';
  const blocks = new Map<string, string>();
  for (const r of db.prepare(`SELECT ${cols} FROM receipts WHERE unit = ? AND verdict = 'DIRTY'`).all(unit) as Row[]) blocks.set(r.id, contentOf(r));
  const aborted = db
    .prepare(
      `SELECT r.id, r.stage, c.planning_state_digest, c.content_digest, c.work_state_digest
       FROM runs r JOIN challenges c ON c.id = r.challenge_id WHERE r.unit = ? AND r.status = 'aborted'`,
    )
    .all(unit) as Row[];
  for (const r of aborted) blocks.set(r.id, contentOf(r));
  const vetoes = new Map<string, { contentDigest: string; findingRefs: string[][] }>();
  const vetoing = db.prepare(`SELECT ${cols}, envelope FROM receipts WHERE unit = ? AND has_veto = 1`).all(unit) as (Row & { envelope: Buffer })[];
  for (const r of vetoing) vetoes.set(r.id, { contentDigest: contentOf(r), findingRefs: storedVetoes(r.envelope, r.id).map((v) => [...v.refs]) });
  return { blocks, vetoes };
}

/** Whether a dismissal record naming `ids` with `stateBefore` fits the unit's facts now (the reducer's re-assertion). */
export function dismissalApplies(db: Db, operation: DismissalOperation, unit: string, ids: readonly string[], stateBefore: string | null): boolean {
  const check = checkDismissal(operation, ids, dismissalCandidates(db, unit));
  return check.ok && check.stateBefore === stateBefore;
}
