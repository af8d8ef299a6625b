// Blocks and vetoes over the unit's whole history, walked once in log order (docs/decision.md#the-rules-in-short, docs/decision.md#6-vetoes).
//
// - A DIRTY receipt or an ABORTED run *blocks its slot*. The block is lifted by the first later
//   CLEAN receipt of the same stage and slot whose reviewed content differs from the block's, or by
//   a later `dismiss` authority naming the receipt or run id. Re-runs on the same content, lease
//   cycles and policy/trust updates never lift it.
// - A receipt's vetoes stand until a later CLEAN receipt of the same stage and slot on different
//   reviewed content, or a later `dismiss_veto` naming the receipt and every ref of the finding.
// - Once a preservation contract binds an incident history, a CLEAN whose content differs only by a
//   re-bound history lifts a block or veto only if that review was shown the history reaching it
//   (./incident-lift.ts, docs/preservation.md#incident-history).
// - "Reviewed content" is the content digest for development, test and integration, and the
//   planning-state digest for planning: planning bundles are built from the baseline tree (docs/contract.md#the-states-a-receipt-is-judged-against), so
//   an unrelated workspace edit does not change what a planning reviewer saw and must not lift a
//   planning block (stricter than the literal "content digest"; docs/decision.md).
// - An authority is judged at its log position (docs/decision.md#7-authorities-are-judged-at-their-log-position): it acts only on blocks and vetoes that exist
//   before it in the log, and only if it was consumed before its own expiry.
//
// One pass, O(n log n) for the sort: a CLEAN receipt lifts every standing block of its slot except
// the group on its own content, so each block is touched a bounded number of times.
import type { AbortedRunFact, AuthorityFact, Block, EvidenceInput, ReceiptFact, StandingVeto, Stage, StateDigests, VetoFinding } from './types.js';
import { slotKey } from './vocabulary.js';
import { liftsFact } from './incident-lift.js';

/** What a planning reviewer reviewed (planning state) vs. everything else (content). */
export function reviewedContentOf(stage: Stage, digests: StateDigests): string {
  return stage === 'planning' ? digests.planningStateDigest : digests.contentDigest;
}

type Lifter = { readonly kind: 'receipt' | 'authority'; readonly id: string; readonly seq: number };

interface MutableBlock {
  kind: 'receipt' | 'aborted';
  id: string;
  seq: number;
  stage: Stage;
  slot: string;
  reviewedContent: string;
  liftedBy: Lifter | null;
  countsFrom: number | null;
  /** The incident-lift witness (./incident-lift.ts); undefined: the plain content rule. */
  work?: string | null | undefined;
}

interface MutableVeto {
  receiptId: string;
  seq: number;
  stage: Stage;
  slot: string;
  reviewedContent: string;
  findings: VetoFinding[];
  work?: string | null | undefined;
}

/** A lift of (part of) a veto, kept so `gate` can re-verify what lifted it. */
export interface VetoLift {
  readonly receiptId: string;
  readonly by: Lifter;
}

export interface History {
  /** Every block in log order, with what lifted it (if anything). */
  readonly blocks: readonly Block[];
  /** Blocks grouped by `stage.slot`. */
  readonly blocksBySlot: ReadonlyMap<string, readonly Block[]>;
  /** Vetoes still standing, in log order. */
  readonly vetoes: readonly StandingVeto[];
  readonly vetoLifts: readonly VetoLift[];
}

type Event =
  | { readonly seq: number; readonly kind: 'receipt'; readonly fact: ReceiptFact }
  | { readonly seq: number; readonly kind: 'aborted'; readonly fact: AbortedRunFact }
  | { readonly seq: number; readonly kind: 'authority'; readonly fact: AuthorityFact };

/** docs/authority.md#human-authority-records: an authority has effect only if consumed (its log time) before its expiry. */
export function authorityInForce(a: AuthorityFact): boolean {
  return a.time < a.expiresAt;
}

export function buildHistory(input: Pick<EvidenceInput, 'receipts' | 'abortedRuns' | 'authorities'>): History {
  const events: Event[] = [
    ...input.receipts.map((fact) => ({ seq: fact.seq, kind: 'receipt' as const, fact })),
    ...input.abortedRuns.map((fact) => ({ seq: fact.seq, kind: 'aborted' as const, fact })),
    ...input.authorities.map((fact) => ({ seq: fact.seq, kind: 'authority' as const, fact })),
  ].sort((a, b) => a.seq - b.seq);
  const h = new HistoryBuilder();
  for (const e of events) {
    if (e.kind === 'receipt') h.onReceipt(e.fact);
    else if (e.kind === 'aborted') h.onAborted(e.fact);
    else h.onAuthority(e.fact);
  }
  return h.result();
}

/** The history as the log's events are applied in order: blocks and vetoes, standing or lifted. */
class HistoryBuilder {
  private readonly blocks: MutableBlock[] = [];
  /** slot key → reviewed content → blocks standing on that content */
  private readonly standing = new Map<string, Map<string, MutableBlock[]>>();
  private readonly standingById = new Map<string, MutableBlock>();
  private readonly vetoes: MutableVeto[] = [];
  private readonly standingVetoes = new Map<string, MutableVeto[]>();
  private readonly standingVetoById = new Map<string, MutableVeto>();
  private readonly vetoLifts: VetoLift[] = [];

  onReceipt(r: ReceiptFact): void {
    const content = reviewedContentOf(r.stage, r);
    if (r.verdict === 'CLEAN') {
      this.liftOtherContent(slotKey(r.stage, r.slot), { reviewedContent: content, work: r.work, historySeenUpto: r.historySeenUpto }, { kind: 'receipt', id: r.receiptId, seq: r.seq }, r.seq);
      return;
    }
    this.addBlock({ kind: 'receipt', id: r.receiptId, seq: r.seq, stage: r.stage, slot: r.slot, reviewedContent: content, liftedBy: null, countsFrom: null, work: r.work });
    if (r.vetoes.length > 0) {
      this.addVeto({ receiptId: r.receiptId, seq: r.seq, stage: r.stage, slot: r.slot, reviewedContent: content, findings: [...r.vetoes], work: r.work });
    }
  }

  onAborted(a: AbortedRunFact): void {
    this.addBlock({ kind: 'aborted', id: a.runId, seq: a.seq, stage: a.stage, slot: a.slot, reviewedContent: reviewedContentOf(a.stage, a), liftedBy: null, countsFrom: null, work: a.work });
  }

  onAuthority(a: AuthorityFact): void {
    if (!authorityInForce(a)) return;
    const by: Lifter = { kind: 'authority', id: a.recordId, seq: a.seq };
    if (a.operation === 'dismiss') this.dismissBlocks(a.ids, by, a.seq + 1);
    else if (a.operation === 'dismiss_veto') this.dismissVetoFindings(a.ids, by);
  }

  result(): History {
    const frozen: Block[] = this.blocks.map(({ work: _work, ...b }) => ({ ...b }));
    const blocksBySlot = new Map<string, Block[]>();
    for (const b of frozen) {
      const key = slotKey(b.stage, b.slot);
      const list = blocksBySlot.get(key);
      if (list === undefined) blocksBySlot.set(key, [b]);
      else list.push(b);
    }
    return {
      blocks: frozen,
      blocksBySlot,
      vetoes: this.vetoes
        .filter((v) => this.standingVetoById.get(v.receiptId) === v)
        .map((v) => ({ receiptId: v.receiptId, seq: v.seq, stage: v.stage, slot: v.slot, findings: [...v.findings] })),
      vetoLifts: this.vetoLifts,
    };
  }

  private lift(b: MutableBlock, by: Lifter, countsFrom: number): void {
    b.liftedBy = by;
    b.countsFrom = countsFrom;
    this.standingById.delete(b.id);
  }

  private addBlock(b: MutableBlock): void {
    this.blocks.push(b);
    this.standingById.set(b.id, b);
    const key = slotKey(b.stage, b.slot);
    const byContent = this.standing.get(key) ?? new Map<string, MutableBlock[]>();
    this.standing.set(key, byContent);
    const group = byContent.get(b.reviewedContent);
    if (group === undefined) byContent.set(b.reviewedContent, [b]);
    else group.push(b);
  }

  private addVeto(v: MutableVeto): void {
    this.vetoes.push(v);
    this.standingVetoById.set(v.receiptId, v);
    const key = slotKey(v.stage, v.slot);
    const list = this.standingVetoes.get(key);
    if (list === undefined) this.standingVetoes.set(key, [v]);
    else list.push(v);
  }

  /**
   * A CLEAN of the slot lifts the slot's blocks and vetoes standing on other content — when only the
   * incident-history binding differs, only if that review saw the history reaching them
   * (./incident-lift.ts).
   */
  private liftOtherContent(
    key: string,
    clean: { reviewedContent: string; work?: string | null | undefined; historySeenUpto?: number | null | undefined },
    by: Lifter,
    seq: number,
  ): void {
    const content = clean.reviewedContent;
    const byContent = this.standing.get(key);
    if (byContent !== undefined) {
      for (const [blockedContent, list] of byContent) {
        if (blockedContent === content) continue;
        // Lifted blocks may still sit in the group after a dismiss; skip them.
        for (const b of list) if (b.liftedBy === null && liftsFact(b, clean)) this.lift(b, by, seq);
        const rest = list.filter((b) => b.liftedBy === null);
        if (rest.length === 0) byContent.delete(blockedContent);
        else byContent.set(blockedContent, rest);
      }
    }
    const list = this.standingVetoes.get(key);
    if (list !== undefined) {
      const kept: MutableVeto[] = [];
      for (const v of list) {
        if (v.reviewedContent === content || !liftsFact(v, clean)) {
          kept.push(v);
          continue;
        }
        this.vetoLifts.push({ receiptId: v.receiptId, by });
        this.standingVetoById.delete(v.receiptId);
      }
      this.standingVetoes.set(key, kept);
    }
  }

  /** `dismiss`: only blocks already in the log — a record naming a run that aborts later lifts nothing. */
  private dismissBlocks(ids: readonly string[], by: Lifter, countsFrom: number): void {
    for (const id of ids) {
      const b = this.standingById.get(id);
      if (b !== undefined) this.lift(b, by, countsFrom);
    }
  }

  /** `dismiss_veto`: a finding is dismissed only when the record names every one of its refs (docs/decision.md#6-vetoes). */
  private dismissVetoFindings(ids: readonly string[], by: Lifter): void {
    const named = new Set(ids);
    for (const id of ids) {
      const v = this.standingVetoById.get(id);
      if (v === undefined) continue;
      const remaining = v.findings.filter((f) => !f.refs.every((ref) => named.has(ref)));
      if (remaining.length === v.findings.length) continue;
      this.vetoLifts.push({ receiptId: v.receiptId, by });
      v.findings = remaining;
      if (remaining.length === 0) {
        this.standingVetoById.delete(v.receiptId);
        const key = slotKey(v.stage, v.slot);
        this.standingVetoes.set(key, (this.standingVetoes.get(key) ?? []).filter((x) => x !== v));
      }
    }
  }
}
