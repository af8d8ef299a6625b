// The lean gate path may load only `sufficientReceipts` (DIRTY receipts, receipts on the current
// state, and each block's first possible lifter) instead of the unit's whole history: on generated
// histories the decision must be identical. The same histories also check invariants of the rules.
import { describe, expect, it } from 'vitest';
import { decide, sufficientReceipts, type Stage } from '../src/core/decision/index.js';
import { Scenario, veto, type StateSpec } from './decision-fixtures.js';

/** Deterministic PRNG (mulberry32) so every run replays the same histories. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STATES: StateSpec[] = [
  {},
  { workspace: 'workspace B' },
  { workspace: 'workspace C' },
  { title: 'Add export command, v2' },
  { title: 'Add export command, v2', workspace: 'workspace B' },
];

function generate(seed: number): Scenario {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const s = new Scenario();
  const slotsOf = (stage: Stage): string[] => Object.keys(s.policy.doc.stages[stage]?.slots ?? {});
  const blocks: string[] = [];
  const vetoed: { id: string; refs: string[] }[] = [];
  let revision = 0;
  const steps = 40 + Math.floor(r() * 80);
  for (let i = 0; i < steps; i++) {
    const x = r();
    const stage = pick<Stage>(['planning', 'development', 'integration']);
    const slot = pick(slotsOf(stage));
    if (x < 0.55) s.receipt(stage, slot);
    else if (x < 0.65) s.round(stage);
    else if (x < 0.72) {
      const refs = r() < 0.5 ? ['DIR-1'] : [];
      const id = s.receipt(stage, slot, 'DIRTY', { vetoes: refs.length > 0 ? [veto(...refs), veto('AC-1', 'TGT-1')] : [] });
      blocks.push(id);
      if (refs.length > 0) vetoed.push({ id, refs: ['DIR-1', 'AC-1', 'TGT-1'] });
    } else if (x < 0.76) blocks.push(s.abort(stage, slot));
    else if (x < 0.86) s.moveTo({ ...pick(STATES), revision: (revision += r() < 0.7 ? 1 : 0) });
    else if (x < 0.91 && blocks.length > 0) s.authority('dismiss', [pick(blocks)], { expiresIn: r() < 0.8 ? 600 : -1 });
    else if (x < 0.95 && vetoed.length > 0) {
      const v = pick(vetoed);
      s.authority('dismiss_veto', [v.id, ...v.refs.slice(0, 1 + Math.floor(r() * 3))]);
    } else if (x < 0.97) s.reset(r() < 0.5 ? 'policy_update' : 'trust_update');
    else s.openLeases = r() < 0.5 ? [] : [{ leaseId: 'LSE-1', expiresAt: s.time + 100 }];
  }
  // End with a burst of full rounds on the current state so some histories become eligible.
  if (r() < 0.6) s.complete();
  return s;
}

describe('sufficient receipts give the same decision as the whole history', () => {
  const seeds = Array.from({ length: 300 }, (_, i) => i + 1);
  it('on 300 generated histories', () => {
    let eligible = 0;
    let reduced = 0;
    for (const seed of seeds) {
      const input = generate(seed).input();
      const subset = sufficientReceipts(input);
      const full = decide(input);
      expect(decide({ ...input, receipts: subset }), `seed ${seed}`).toEqual(full);
      if (full.state === 'RELEASE_ELIGIBLE') eligible += 1;
      if (subset.length < input.receipts.length) reduced += 1;
    }
    // The generator must exercise both outcomes and actually drop receipts, or the check is empty.
    expect(eligible).toBeGreaterThan(10);
    expect(eligible).toBeLessThan(seeds.length - 10);
    expect(reduced).toBeGreaterThan(seeds.length / 2);
  });

  it('dropping a block’s first lifter changes the decision (the subset is not too small by accident)', () => {
    const s = new Scenario();
    s.receipt('development', 'lint', 'DIRTY');
    s.moveTo({ workspace: 'workspace B', revision: 1 });
    s.receipt('development', 'lint'); // the lifter, on a state that is no longer current
    s.moveTo({ workspace: 'workspace A', revision: 2 }); // back to the DIRTY's content: nothing later lifts it
    s.complete();
    const input = s.input();
    const subset = sufficientReceipts(input);
    expect(subset.map((r) => r.seq)).toContain(2);
    expect(decide({ ...input, receipts: subset }).state).toBe('RELEASE_ELIGIBLE');
    expect(decide({ ...input, receipts: subset.filter((r) => r.seq !== 2) }).state).toBe('REVIEW_ONLY');
  });
});

describe('invariants on generated histories', () => {
  it('counted receipts are CLEAN, a blocked slot counts nothing, reasons are deterministic', () => {
    for (let seed = 1000; seed < 1150; seed++) {
      const input = generate(seed).input();
      const d = decide(input);
      const byId = new Map(input.receipts.map((r) => [r.receiptId, r]));
      for (const stage of d.stages) {
        for (const id of stage.proof) expect(byId.get(id)?.verdict).toBe('CLEAN');
        for (const slot of stage.slots) if (slot.blockedBy.length > 0) expect(slot.counted).toBe(0);
        expect(stage.streak <= stage.rounds).toBe(true);
      }
      expect(d.state === 'RELEASE_ELIGIBLE').toBe(d.reasons.length === 0);
      expect(decide({ ...input, receipts: [...input.receipts].reverse(), authorities: [...input.authorities].reverse() })).toEqual(d);
    }
  });
});
