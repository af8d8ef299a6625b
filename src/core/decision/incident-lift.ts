// Which CLEAN receipt may lift a block once the incident history is in play (docs/preservation.md#incident-history,
// "Re-binding the history does not lift a block"). Pure.
//
// The plain rule (./history.ts) lifts a DIRTY or ABORTED block of a slot with the first later CLEAN
// of that slot on other reviewed content. The incident history is part of the planning state, so
// re-binding it (`preservation correct`, `preservation set`) changes the reviewed content of every
// later review although no work changed: a reviewer who never saw the history — every role but the
// two whose views carry it — could then lift a block only because the history moved.
//
// The rule: a CLEAN on other content lifts a block when the reviewed WORK differs (contract, sources,
// preservation contract, or the workspace for the work stages — everything but the history binding);
// when only the history binding differs, it lifts the block only if that review was shown the
// incident history item by item and the history it saw reaches the block's own log entry (the
// DIRTY receipt or the ABORTED run is one of its items). Missing witnesses fail closed: unknown work
// counts as the same work, an unknown history as not seen.
import { digestOf } from '../canonical.js';

export interface LiftWitness {
  /** What was reviewed (planning: the planning-state digest; other stages: the content digest). */
  readonly reviewedContent: string;
  /** Digest of the reviewed work without the incident-history binding; null when not known. */
  readonly work: string | null;
}

export interface BlockWitness extends LiftWitness {
  /** The log position of the DIRTY receipt or the ABORTED run. */
  readonly seq: number;
}

export interface CleanWitness extends LiftWitness {
  /**
   * The last log position the incident history shown to this reviewer covers (its bundle's
   * preservation section: docs/bundle.md#the-preservation-section); null when its view showed no
   * history (a role that does not see the section, or no history bound).
   */
  readonly historySeenUpto: number | null;
}

/** True when `clean` lifts `block` (both of the same stage and slot, `clean` later in the log). */
export function cleanLiftsBlock(block: BlockWitness, clean: CleanWitness): boolean {
  if (clean.reviewedContent === block.reviewedContent) return false;
  const workChanged = block.work !== null && clean.work !== null && block.work !== clean.work;
  if (workChanged) return true;
  return clean.historySeenUpto !== null && clean.historySeenUpto >= block.seq;
}

/**
 * The lift rule over decision facts: the plain content rule when the facts carry no witnesses (a
 * loader that predates them, or generated histories), else `cleanLiftsBlock`.
 */
export function liftsFact(
  block: { readonly seq: number; readonly reviewedContent: string; readonly work?: string | null | undefined },
  clean: { readonly reviewedContent: string; readonly work?: string | null | undefined; readonly historySeenUpto?: number | null | undefined },
): boolean {
  if (block.work === undefined && clean.work === undefined) return clean.reviewedContent !== block.reviewedContent;
  return cleanLiftsBlock(
    { seq: block.seq, reviewedContent: block.reviewedContent, work: block.work ?? null },
    { reviewedContent: clean.reviewedContent, work: clean.work ?? null, historySeenUpto: clean.historySeenUpto ?? null },
  );
}

/**
 * The reviewed work of a challenge without its incident-history binding: the request contract and
 * sources digests, the workspace (work stages only: planning is built from the baseline tree) and the
 * preservation contract bound when it was issued (null: none).
 */
export function reviewedWorkDigest(a: {
  readonly stage: string;
  readonly contractDigest: string;
  readonly sourcesDigest: string;
  readonly workspaceDigest: string;
  readonly preservationContract: string | null;
}): string {
  return digestOf({
    kind: 'governed/reviewed-work',
    version: 1,
    stage: a.stage === 'planning' ? 'planning' : 'work',
    contract: a.contractDigest,
    sources: a.sourcesDigest,
    workspace: a.stage === 'planning' ? null : a.workspaceDigest,
    preservation: a.preservationContract,
  });
}
