// A policy slot name may contain `-` (docs/policy.md#policy-and-trust-root policy `name` grammar
// `^[a-z][a-z0-9_-]{0,31}$`, the same as the receipt predicate's `slot`), so the decision rules must
// accept facts of such a slot. Before the fix, src/core/decision/validate-input.ts refused them as
// `decision_input_invalid` (exit 4, "edited behind governed"): a valid story could never be decided.
import { describe, expect, it } from 'vitest';
import { decide } from '../src/core/decision/index.js';
import { policy, policyDoc, Scenario } from './decision-fixtures.js';

const hyphenPolicy = () =>
  policy({
    stages: {
      ...policyDoc().stages,
      development: { required: true, streak: 2, slots: { 'code-review': 'coverage', 'lint-x': 'coverage' } },
    },
  });

describe('slot names with a hyphen (policy grammar)', () => {
  it('the policy loader accepts the slot names', () => {
    expect(Object.keys(hyphenPolicy().doc.stages.development?.slots ?? {})).toEqual(['code-review', 'lint-x']);
  });

  it('a complete story on hyphenated slots is RELEASE_ELIGIBLE', () => {
    const s = new Scenario(hyphenPolicy()).complete();
    const d = decide(s.input());
    expect(d.reasons).toEqual([]);
    expect(d.state).toBe('RELEASE_ELIGIBLE');
  });

  it('a DIRTY receipt of a hyphenated slot blocks it (decided, not refused)', () => {
    const s = new Scenario(hyphenPolicy()).complete();
    const dirty = s.receipt('development', 'code-review', 'DIRTY');
    const d = decide(s.input());
    expect(d.state).toBe('REVIEW_ONLY');
    expect(d.reasons.find((r) => r.code === 'slot_blocked')?.ids).toEqual(['development.code-review', dirty]);
  });

  it('a slot outside the grammar is still refused', () => {
    const s = new Scenario(hyphenPolicy()).complete();
    s.receipt('development', '-bad');
    expect(() => decide(s.input())).toThrow(expect.objectContaining({ code: 'decision_input_invalid' }));
  });
});
