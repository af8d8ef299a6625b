// A policy whose development slot is named `code-review` (valid by the
// policy grammar, docs/policy.md#policy-and-trust-root) must be decidable by `status` and `gate` (docs/decision.md#8-delivery-state-and-reason-codes). Before the fix
// (src/core/decision/validate-input.ts SLOT_RE without `-`) both refused every such unit with
// `decision_input_invalid` (exit 4, "facts inconsistent": an honest store reported as tampered).
import { describe, expect, it } from 'vitest';
import { ROLES } from '../src/core/policy.js';
import { gate, implement, newStory, planningRequiredPolicy, review, type GateJson } from './gate-world.js';
import { gov, makeKeys } from './state-helpers.js';
import { jsonOut } from './helpers/cli.js';

describe('a hyphenated slot name through status and gate', () => {
  it('status and gate decide the unit (RELEASE_ELIGIBLE), never decision_input_invalid', () => {
    const keys = makeKeys();
    const doc = planningRequiredPolicy(keys) as { stages: Record<string, Record<string, unknown>> };
    doc.stages.development = { required: true, streak: 2, slots: { 'code-review': 'coverage' } };
    const s = newStory({ policy: doc, keys });
    for (let i = 0; i < 2; i++) for (const slot of ROLES) review(s, 'planning', slot);
    implement(s);
    for (let i = 0; i < 2; i++) review(s, 'development', 'code-review');
    for (let i = 0; i < 2; i++) for (const slot of ROLES) review(s, 'integration', slot);

    const st = gov(s.w, ['status', '--unit', s.unit, '--json']);
    expect(st.stderr).not.toContain('decision_input_invalid');
    expect(st.code).toBe(0);
    expect(jsonOut(st).state).toBe('RELEASE_ELIGIBLE');

    const g = gate(s);
    const out = jsonOut(g) as unknown as GateJson;
    expect(out.error).toBeNull();
    expect(g.code).toBe(0);
    expect(out.decision).toBe('ALLOW');
  });
});
