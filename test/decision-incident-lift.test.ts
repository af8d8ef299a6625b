// The rule of which CLEAN lifts a block once the incident history is re-bound (src/core/decision/incident-lift.ts,
// docs/preservation.md#incident-history): a re-binding alone changes the reviewed content; only a
// review that was shown the history items (reaching the block's entry) may then lift the block.
import { describe, expect, it } from 'vitest';
import { cleanLiftsBlock } from '../src/core/decision/incident-lift.js';

const D = (c: string): string => `sha256:${c.repeat(64)}`;
const block = { seq: 40, reviewedContent: D('1'), work: D('a') };

describe('cleanLiftsBlock', () => {
  it('same reviewed content never lifts, whatever the reviewer saw', () => {
    expect(cleanLiftsBlock(block, { reviewedContent: D('1'), work: D('a'), historySeenUpto: 100 })).toBe(false);
  });

  it('positive control: other work (the contract or the workspace changed) lifts, as the plain rule does', () => {
    expect(cleanLiftsBlock(block, { reviewedContent: D('2'), work: D('b'), historySeenUpto: null })).toBe(true);
  });

  it('attack: only the history was re-bound, the reviewer was not shown it → the block stands', () => {
    expect(cleanLiftsBlock(block, { reviewedContent: D('2'), work: D('a'), historySeenUpto: null })).toBe(false);
  });

  it('attack: only the history was re-bound, the reviewer saw a history that ends before the block → the block stands', () => {
    expect(cleanLiftsBlock(block, { reviewedContent: D('2'), work: D('a'), historySeenUpto: 39 })).toBe(false);
  });

  it('only the history was re-bound and the reviewer saw it up to (or past) the block entry → lifted', () => {
    expect(cleanLiftsBlock(block, { reviewedContent: D('2'), work: D('a'), historySeenUpto: 40 })).toBe(true);
    expect(cleanLiftsBlock(block, { reviewedContent: D('2'), work: D('a'), historySeenUpto: 90 })).toBe(true);
  });

  it('fails closed on an unknown work digest: treated as the same work (lift only by a review that saw the items)', () => {
    expect(cleanLiftsBlock({ ...block, work: null }, { reviewedContent: D('2'), work: D('b'), historySeenUpto: null })).toBe(false);
    expect(cleanLiftsBlock(block, { reviewedContent: D('2'), work: null, historySeenUpto: null })).toBe(false);
    expect(cleanLiftsBlock(block, { reviewedContent: D('2'), work: null, historySeenUpto: 40 })).toBe(true);
  });
});
