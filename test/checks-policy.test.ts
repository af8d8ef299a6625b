// Check reviewers in the policy (docs/reviewers.md#check-reviewers): the closed `check` object,
// its rules (program under /usr, dependency-root path rule, report enum), development/test slots
// only, and the adapter name that picks the pinned file.
import { describe, expect, it } from 'vitest';
import { loadPolicy, reviewerForSlot, reviewerProgramName } from '../src/core/policy.js';
import { isGovernedError } from '../src/core/errors.js';
import { makeKeys, policyDoc } from './state-helpers.js';

const keys = makeKeys();
const H = (c: string): string => c.repeat(64);
const check = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  sha256: H('a'),
  interpreter: '/usr/bin/node',
  env: {},
  check: { adapter: 'check-tests', command: ['/usr/bin/node', '--test', '--test-reporter=tap'], dependency_root: 'node_modules', report: 'tap', ...over },
});
function doc(reviewer: Record<string, unknown>, stages?: Record<string, unknown>): Record<string, unknown> {
  const base = policyDoc(keys);
  return {
    ...base,
    stages: stages ?? { ...(base.stages as Record<string, unknown>), test: { required: true, streak: 2, slots: { tests: 'node-tests' } } },
    reviewers: { ...(base.reviewers as Record<string, unknown>), 'node-tests': reviewer },
  };
}
function refusal(value: unknown): { code: string; ids: readonly string[] } | null {
  try {
    loadPolicy(value);
    return null;
  } catch (e) {
    if (isGovernedError(e)) return { code: e.code, ids: e.ids };
    throw e;
  }
}

describe('policy check reviewers', () => {
  it('a check reviewer serves a test slot; its program is its adapter', () => {
    const p = loadPolicy(doc(check()));
    const r = reviewerForSlot(p, 'test', 'tests');
    expect(r.check?.command).toEqual(['/usr/bin/node', '--test', '--test-reporter=tap']);
    expect(reviewerProgramName(r)).toBe('check-tests');
    expect(reviewerProgramName(reviewerForSlot(p, 'development', 'coverage'))).toBe('coverage');
    expect(refusal(doc({ ...check(), check: { command: ['/usr/bin/node', '--test'] } }))).toBeNull(); // adapter, root, report optional
  });

  it('refuses a program outside /usr, a bad dependency root, an unknown report or key', () => {
    for (const [over, field] of [
      [{ command: ['node', '--test'] }, 'command'],
      [{ command: ['/usr/bin/../../bin/sh'] }, 'command'],
      [{ command: ['/home/me/node'] }, 'command'],
      [{ command: [] }, 'command'],
      [{ dependency_root: '../node_modules' }, 'dependency_root'],
      [{ dependency_root: '/abs' }, 'dependency_root'],
      [{ dependency_root: '-x' }, 'dependency_root'],
      [{ dependency_root: 'a//b' }, 'dependency_root'],
      [{ report: 'junit' }, 'report'],
      [{ network: true }, ''],
      [{ adapter: '../x' }, 'adapter'],
    ] as const) {
      const e = refusal(doc(check(over)));
      expect(e?.code, JSON.stringify(over)).toBe('policy_invalid');
      expect((e?.ids ?? []).join(' ')).toContain(`reviewers.node-tests.check${field === '' ? '' : `.${field}`}`);
    }
  });

  it('refuses a check reviewer in a planning or integration role slot', () => {
    const base = policyDoc(keys);
    const stages = base.stages as Record<string, { slots: Record<string, string> }>;
    const planning = { ...stages.planning, slots: { ...stages.planning?.slots, source_fidelity: 'node-tests' } };
    const e = refusal(doc(check(), { ...stages, planning }));
    expect(e).toEqual({ code: 'policy_invalid', ids: ['stages.planning.slots.source_fidelity'] });
  });
});

describe('integration check slots', () => {
  const stagesWith = (stage: 'planning' | 'integration', extra: Record<string, string>): Record<string, unknown> => {
    const stages = policyDoc(keys).stages as Record<string, { slots: Record<string, string> }>;
    return { ...stages, [stage]: { ...stages[stage], slots: { ...stages[stage]?.slots, ...extra } } };
  };
  it('integration may add check slots beside its four roles; they see the complete view', async () => {
    const p = loadPolicy(doc(check(), stagesWith('integration', { tests: 'node-tests' })));
    expect(reviewerForSlot(p, 'integration', 'tests').check?.adapter).toBe('check-tests');
    const { viewFor } = await import('../src/core/bundle/views.js');
    const { viewNameOf } = await import('../src/store/reducers/challenges.js');
    expect(viewFor('integration', 'tests').name).toBe('complete');
    expect(viewNameOf('integration', 'tests')).toBe('complete');
    expect(viewNameOf('integration', 'source_fidelity')).toBe('source_fidelity');
  });
  it('refuses an extra slot that is not a check, and any extra slot in planning', () => {
    const base = policyDoc(keys);
    expect(refusal(doc(check(), stagesWith('integration', { extra: 'coverage' })))).toEqual({ code: 'policy_roles_incomplete', ids: ['stages.integration'] });
    expect(refusal(doc(check(), stagesWith('planning', { tests: 'node-tests' })))).toEqual({ code: 'policy_roles_incomplete', ids: ['stages.planning'] });
    void base;
  });
});
