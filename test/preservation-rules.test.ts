// The pure preservation rules (docs/preservation.md#rules) and how the delivery state carries them:
// each rule attacked with the input that must fail it, and a positive control that passes.
import { describe, expect, it } from 'vitest';
import { decide } from '../src/core/decision/index.js';
import { parsePreservationContract, type PreservationContract } from '../src/core/preservation/schema.js';
import {
  checkPreservation,
  destructiveAuthorized,
  incidentHistoryAccepted,
  inventoryMismatch,
  isTestPath,
  lostCapabilities,
  surfaceDiffDigest,
  uncoveredChanges,
  uncoveredTestChanges,
  vendorAttested,
  type ProbeFact,
} from '../src/core/preservation/rules.js';
import { incidentHistoryDigest } from '../src/core/preservation/incident.js';
import { diffPreservation } from '../src/core/preservation/diff.js';
import { policy, Scenario } from './decision-fixtures.js';

const C = 'a'.repeat(40);
const D = (c: string): string => `sha256:${c.repeat(64)}`;

function contract(surfaces: unknown[], vendors: unknown[] = []): PreservationContract {
  return parsePreservationContract({ kind: 'governed/preservation-contract', version: 1, baseline: C, intent: 'keep', surfaces, vendor_sources: vendors });
}
const cli = { id: 'SURF-cli', kind: 'cli_command', paths: ['bin'], disposition: 'preserve', probe: 'bin:greet', baseline_evidence_id: 'EVD-1', current_evidence_id: 'EVD-2' };
const probe = (phase: 'baseline' | 'current', exitCode: number, capabilities: string[]): ProbeFact => ({ receiptId: D(phase === 'baseline' ? '1' : '2'), surface: 'SURF-cli', phase, exitCode, capabilities, outputDigest: D('3') });

describe('capabilities and reachability', () => {
  it('every baseline capability must remain; losing reachability is deletion even with files kept', () => {
    expect(lostCapabilities(probe('baseline', 0, ['command:a', 'command:b']), probe('current', 0, ['command:a', 'command:b', 'command:c']))).toEqual([]);
    expect(lostCapabilities(probe('baseline', 0, ['command:a', 'command:b']), probe('current', 0, ['command:a']))).toEqual(['capability:command:b']);
    expect(lostCapabilities(probe('baseline', 0, []), probe('current', 1, []))).toEqual(['reachability']);
  });
});

describe('destructive dispositions', () => {
  const removal = (digest: string) => contract([{ ...cli, disposition: 'remove', authority_id: 'REC-1', expected_diff_digest: digest }]).surfaces[0];
  const changes: { path: string; baseline: string | null; current: string | null }[] = [{ path: 'bin/greet.js', baseline: '1'.repeat(64), current: null }];
  const real = surfaceDiffDigest({ id: 'SURF-cli', paths: ['bin'] }, changes);
  const rec = (over: Record<string, unknown> = {}) => ({ recordId: 'REC-1', operation: 'remove', ids: ['SURF-cli'], stateAfter: real, inForce: true, ...over });
  it('valid only with a consumed, in-force record of that operation naming the surface, over the real diff', () => {
    const s = removal(real);
    if (s === undefined) throw new Error('fixture');
    expect(destructiveAuthorized(s, real, [rec()])).toBe(true); // positive control
    expect(destructiveAuthorized(s, real, [])).toBe(false);
    expect(destructiveAuthorized(s, real, [rec({ operation: 'disable' })])).toBe(false);
    expect(destructiveAuthorized(s, real, [rec({ ids: ['SURF-other'] })])).toBe(false);
    expect(destructiveAuthorized(s, real, [rec({ inForce: false })])).toBe(false);
    expect(destructiveAuthorized(s, D('9'), [rec()])).toBe(false); // the real diff is another one
    const w = removal(D('8'));
    if (w === undefined) throw new Error('fixture');
    expect(destructiveAuthorized(w, real, [rec({ stateAfter: D('8') })])).toBe(false); // signed a wrong digest
  });
  it('the diff digest names the surface and every changed path under it, nothing else', () => {
    expect(surfaceDiffDigest({ id: 'SURF-cli', paths: ['bin'] }, [...changes, { path: 'lib/x.js', baseline: null, current: '2'.repeat(64) }])).toBe(real);
    expect(surfaceDiffDigest({ id: 'SURF-x', paths: ['bin'] }, changes)).not.toBe(real);
    expect(surfaceDiffDigest({ id: 'SURF-cli', paths: ['bin'] }, [{ path: 'bin/greet.js', baseline: '1'.repeat(64), current: '3'.repeat(64) }])).not.toBe(real);
  });
});

describe('coverage', () => {
  const c = contract([cli, { ...cli, id: 'SURF-old', probe: 'bin:old', paths: ['old'], disposition: 'remove', authority_id: 'REC-2', expected_diff_digest: D('4') }], [
    { id: 'VND-pad', path: 'vendor/pad', disposition: 'import', origin: { repository: 'x', commit: C, tree_digest: D('5') } },
  ]);
  it('every changed path falls under a surface or a vendor source', () => {
    const ch = (path: string) => ({ path, baseline: null, current: '1'.repeat(64) });
    expect(uncoveredChanges(c, [ch('bin/a'), ch('vendor/pad/x.js'), ch('old/y')])).toEqual([]);
    expect(uncoveredChanges(c, [ch('bin/a'), ch('binx/a'), ch('README.md')])).toEqual(['README.md', 'binx/a']);
  });
  it('a changed test file belongs to a preserve/extend surface (not to a destructive one)', () => {
    expect(isTestPath('test/a.js') && isTestPath('src/a.test.ts') && isTestPath('x/__tests__/y.js')).toBe(true);
    expect(isTestPath('src/testing.ts')).toBe(false);
    const ch = (path: string) => ({ path, baseline: null, current: '1'.repeat(64) });
    expect(uncoveredTestChanges(c, [ch('bin/greet.test.js')])).toEqual([]);
    expect(uncoveredTestChanges(c, [ch('old/old.test.js'), ch('test/other.js')])).toEqual(['old/old.test.js', 'test/other.js']);
  });
});

describe('inventory, vendors, incident history', () => {
  it('undisclosed discovered entries and declared entries that do not exist', () => {
    const c = contract([cli]);
    expect(inventoryMismatch(c, [{ entry: 'bin:greet', kind: 'cli_command' }])).toEqual({ undisclosed: [], missing: [] });
    expect(inventoryMismatch(c, [{ entry: 'export:.', kind: 'library_export' }])).toEqual({ undisclosed: ['export:.'], missing: ['SURF-cli'] });
  });
  it('a vendor counts only with the digest computed from the origin tree', () => {
    const v = contract([], [{ id: 'VND-pad', path: 'vendor/pad', disposition: 'import', origin: { repository: 'x', commit: C, tree_digest: D('5') } }]).vendor_sources[0];
    if (v === undefined) throw new Error('fixture');
    expect(vendorAttested(v, { treeDigest: D('5') })).toBe(true);
    expect(vendorAttested(v, { treeDigest: D('6') })).toBe(false);
    expect(vendorAttested(v, null)).toBe(false);
  });
  it('`none` only without incidents; the chain changes with any edited, dropped or reordered item', () => {
    expect(incidentHistoryAccepted('none', false)).toBe(true);
    expect(incidentHistoryAccepted('none', true)).toBe(false);
    expect(incidentHistoryAccepted(null, false)).toBe(false);
    expect(incidentHistoryAccepted(D('1'), true)).toBe(true);
    const items = [
      { seq: 2, kind: 'directives' as const, entryHash: D('a') },
      { seq: 5, kind: 'dirty' as const, entryHash: D('b') },
      { seq: 9, kind: 'correction' as const, entryHash: D('c') },
    ];
    const h = incidentHistoryDigest('UNIT-x', items);
    expect(incidentHistoryDigest('UNIT-x', items.slice(0, 2))).not.toBe(h);
    expect(incidentHistoryDigest('UNIT-x', [items[0], { ...items[1], kind: 'aborted' as const }, items[2]] as typeof items)).not.toBe(h);
    expect(incidentHistoryDigest('UNIT-y', items)).not.toBe(h);
    expect(() => incidentHistoryDigest('UNIT-x', [items[1], items[0]] as typeof items)).toThrow();
  });
  it('narrowing: removed or edited surfaces; preserve→extend and new surfaces are additions; turning destructive is its own record', () => {
    const before = contract([cli, { ...cli, id: 'SURF-lib', probe: 'export:.', paths: ['lib'] }]);
    const d = diffPreservation(before, contract([{ ...cli, disposition: 'extend' }, { ...cli, id: 'SURF-new', probe: 'bin:new', paths: ['n'] }]));
    expect(d).toEqual({ additions: ['SURF-cli', 'SURF-new'], narrowing: ['SURF-lib'], newlyDestructive: [] });
    const e = diffPreservation(before, contract([{ ...cli, disposition: 'remove', authority_id: 'REC-1', expected_diff_digest: D('1') }, { ...cli, id: 'SURF-lib', probe: 'export:.', paths: ['lib', 'lib2'] }]));
    expect(e).toEqual({ additions: ['SURF-cli', 'SURF-lib'], narrowing: [], newlyDestructive: ['SURF-cli'] });
  });
});

describe('the delivery state carries every preservation reason (controls implemented)', () => {
  it('a capability lost keeps the unit REVIEW_ONLY with the surface named; satisfied → eligible', () => {
    const c = contract([cli]);
    const report = checkPreservation({
      contract: c,
      inventory: [{ entry: 'bin:greet', kind: 'cli_command' }],
      probes: [probe('baseline', 0, ['command:a']), probe('current', 1, [])],
      changes: [{ path: 'bin/greet.js', baseline: '1'.repeat(64), current: '2'.repeat(64) }],
      authorities: [],
      vendorOrigins: new Map(),
      incidentHistory: D('1'),
      incidentsInLog: false,
    });
    expect(report.violations).toEqual([{ code: 'preservation_capability_lost', ids: ['SURF-cli', 'reachability', 'capability:command:a'] }]);
    const s = new Scenario(policy({ preservation: 'required', controls: ['deploy_gate', 'real_entry_probes', 'vendor_origin_attestation', 'incident_history'] })).complete();
    s.preservation = { contract: true, incidentHistory: true, unsatisfiedSurfaces: ['SURF-cli'], violations: report.violations };
    const d = decide(s.input());
    expect(d.state).toBe('REVIEW_ONLY');
    expect(d.reasons.map((r) => [r.code, ...r.ids])).toEqual([
      ['preservation_unsatisfied', 'SURF-cli'],
      ['preservation_capability_lost', 'SURF-cli', 'reachability', 'capability:command:a'],
    ]);
    s.preservation = { contract: true, incidentHistory: true, unsatisfiedSurfaces: [], violations: [] };
    expect(decide(s.input()).state).toBe('RELEASE_ELIGIBLE');
    // A loader passing a code outside the preservation reasons is refused.
    s.preservation = { contract: true, incidentHistory: true, unsatisfiedSurfaces: [], violations: [{ code: 'lease_active', ids: ['x'] }] };
    expect(() => decide(s.input())).toThrow();
  });
});
