// The bundle's preservation section (docs/bundle.md#the-preservation-section): which stages and role
// views carry it, what it holds (contract, real diff digests, probes, destructive records, the
// incident history item by item), its `surfaces` coverage, the one rule of which surfaces a review
// can judge (`unreviewableSurfaces`), and the pinned coverage reviewer reading and judging it.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { preservationSectionSchema, preservationSectionViolation } from '../src/core/bundle/preservation-schema.js';
import { REPO_ROOT } from './helpers/cli.js';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/core/canonical.js';
import { parseContract, type Contract } from '../src/core/contract/schema.js';
import { buildBundle, bundleSchema, evidencePaths, type BundleInput } from '../src/core/bundle/index.js';
import { unreviewableSurfaces, type PreservationSectionInput } from '../src/core/bundle/preservation.js';
import { surfaceDiffDigest, type ProbeFact } from '../src/core/preservation/rules.js';
import { parsePreservationContract } from '../src/core/preservation/schema.js';
import { reviewBundleBytes } from '../runner/reviewers/src/coverage/review.js';
import { Malformed } from '../runner/reviewers/src/coverage/shape.js';
import { contractDoc, SOURCE_TEXT } from './state-helpers.js';

const hex = (b: string): string => createHash('sha256').update(b).digest('hex');
const D = (c: string): string => `sha256:${c.repeat(64)}`;
const UNIT = `UNIT-${'a'.repeat(32)}`;
const CHANGES = [
  { path: 'bin/greet.js', baseline: hex('a'), current: hex('b') },
  { path: 'bin/old.js', baseline: hex('old'), current: null },
];
const OLD_DIFF = surfaceDiffDigest({ id: 'SURF-old', paths: ['bin/old.js'] }, CHANGES);

const PRES = parsePreservationContract({
  kind: 'governed/preservation-contract',
  version: 1,
  baseline: 'c'.repeat(40),
  intent: 'Keep the greet command.',
  surfaces: [
    { id: 'SURF-cli', kind: 'cli_command', paths: ['bin/greet.js'], disposition: 'preserve', probe: 'bin:greet', baseline_evidence_id: 'EVD-cli-b', current_evidence_id: 'EVD-cli-c' },
    { id: 'SURF-old', kind: 'cli_command', paths: ['bin/old.js'], disposition: 'remove', probe: 'bin:old', baseline_evidence_id: 'EVD-old-b', current_evidence_id: 'EVD-old-c', authority_id: 'REC-old', expected_diff_digest: OLD_DIFF },
    { id: 'SURF-rb', kind: 'other', na_reason: 'a runbook; nothing to run', paths: ['ops/runbook.md'], disposition: 'preserve', baseline_evidence_id: 'EVD-rb-b', current_evidence_id: 'EVD-rb-c' },
  ],
  vendor_sources: [],
});

const probe = (phase: 'baseline' | 'current', caps: string[], exitCode = 0): ProbeFact => ({
  receiptId: D(phase === 'baseline' ? '1' : '2'),
  surface: 'SURF-cli',
  phase,
  exitCode,
  capabilities: caps,
  outputDigest: D('3'),
});

function pres(over: Partial<PreservationSectionInput> = {}): PreservationSectionInput {
  return {
    version: 1,
    contractDigest: D('4'),
    contract: PRES,
    incidentHistory: D('5'),
    incidentItems: [
      { seq: 3, kind: 'directives', entryHash: D('6'), correction: null },
      { seq: 9, kind: 'dirty', entryHash: D('7'), correction: null },
      { seq: 11, kind: 'correction', entryHash: D('8'), correction: Buffer.from('the CLI must keep bye') },
    ],
    probes: [probe('baseline', ['command:bye', 'command:hello']), probe('current', ['command:bye', 'command:hello'])],
    authorities: [{ recordId: 'REC-old', operation: 'remove', ids: ['SURF-old'], stateAfter: OLD_DIFF, inForce: true }],
    ...over,
  };
}

function input(stage: 'planning' | 'integration', slot: string, p: PreservationSectionInput | null = pres()): BundleInput {
  const contract: Contract = parseContract(contractDoc());
  const paths = evidencePaths(contract, stage);
  return {
    challengeId: `CHL-${'1'.repeat(32)}`,
    unit: UNIT,
    stage,
    slot,
    contract,
    sourceBytes: new Map([['SRC-1', Buffer.from(SOURCE_TEXT)]]),
    scopeHistory: [],
    changes: stage === 'planning' ? null : CHANGES,
    currentFiles: stage === 'planning' ? null : paths.map((path) => ({ path, present: false as const })),
    baseline: { commit: 'c'.repeat(40), tree: 'd'.repeat(40), manifest: [], files: paths.map((path) => ({ path, present: false as const })) },
    priorReceipts: [],
    preservation: p ?? undefined,
    maxBytes: 1 << 20,
  };
}

const review = (bytes: Buffer): { verdict: string; findings: { code: string; class: string; severity: string; refs: string[] }[]; coverage: { surfaces: string[] } } =>
  JSON.parse(reviewBundleBytes(bytes)) as never;

describe('the preservation section of planning and integration bundles', () => {
  it('baseline_preservation and authority_release see it (with its surfaces in their coverage); the other roles have it withheld', () => {
    for (const stage of ['planning', 'integration'] as const) {
      for (const slot of ['baseline_preservation', 'authority_release']) {
        const b = buildBundle(input(stage, slot));
        expect(b.view.included).toContain('preservation');
        expect(b.coverage.surfaces).toEqual(['SURF-cli', 'SURF-old', 'SURF-rb']);
        expect(bundleSchema.parse(b.bundle)).toEqual(b.bundle);
      }
      for (const slot of ['source_fidelity', 'implementation_test']) {
        const b = buildBundle(input(stage, slot));
        expect(b.view.withheld).toContain('preservation');
        expect('preservation' in b.bundle.sections).toBe(false);
        expect(b.coverage.surfaces).toEqual([]);
      }
    }
    // Without a bound contract the section is neither included nor withheld.
    const none = buildBundle(input('planning', 'baseline_preservation', null));
    expect([...none.view.included, ...none.view.withheld]).not.toContain('preservation');
  });

  it('planning: baseline probes only, no diff digests; integration: both phases and each surface’s real diff digest', () => {
    const plan = buildBundle(input('planning', 'baseline_preservation')).bundle.sections.preservation;
    expect(plan?.probes.map((p) => p.phase)).toEqual(['baseline']);
    expect(plan?.surfaces.map((s) => s.diff_digest)).toEqual([null, null, null]);
    const integ = buildBundle(input('integration', 'baseline_preservation')).bundle.sections.preservation;
    expect(integ?.probes.map((p) => [p.surface, p.phase, p.evidence_id, p.entry])).toEqual([
      ['SURF-cli', 'baseline', 'EVD-cli-b', 'bin:greet'],
      ['SURF-cli', 'current', 'EVD-cli-c', 'bin:greet'],
    ]);
    expect(integ?.surfaces.find((s) => s.id === 'SURF-old')?.diff_digest).toBe(OLD_DIFF);
    expect(integ?.authorities).toEqual([{ record: 'REC-old', operation: 'remove', surfaces: ['SURF-old'], state_after: OLD_DIFF }]);
  });

  it('the incident history is carried item by item, in log order, with each correction’s exact bytes', () => {
    const h = buildBundle(input('planning', 'authority_release')).bundle.sections.preservation?.incident_history;
    expect(h).toEqual([
      { seq: 3, kind: 'directives', entry_hash: D('6'), correction_b64: null },
      { seq: 9, kind: 'dirty', entry_hash: D('7'), correction_b64: null },
      { seq: 11, kind: 'correction', entry_hash: D('8'), correction_b64: Buffer.from('the CLI must keep bye').toString('base64') },
    ]);
  });
});

describe('unreviewableSurfaces: every declared surface is covered by its probes, its N/A reason or its destructive record', () => {
  const section = (stage: 'planning' | 'integration', p: PreservationSectionInput) => {
    const s = buildBundle(input(stage, 'baseline_preservation', p)).bundle.sections.preservation;
    if (s === undefined) throw new Error('no section');
    return s;
  };
  it('positive control: everything covered in both stages', () => {
    expect(unreviewableSurfaces(section('planning', pres()), 'planning')).toEqual([]);
    expect(unreviewableSurfaces(section('integration', pres()), 'integration')).toEqual([]);
  });
  it('a preserve surface without its baseline probe (planning) or its current probe (integration) is unreviewable', () => {
    expect(unreviewableSurfaces(section('planning', pres({ probes: [] })), 'planning')).toEqual(['SURF-cli']);
    const baselineOnly = pres({ probes: [probe('baseline', ['command:hello'])] });
    expect(unreviewableSurfaces(section('planning', baselineOnly), 'planning')).toEqual([]);
    expect(unreviewableSurfaces(section('integration', baselineOnly), 'integration')).toEqual(['SURF-cli']);
  });
  it('a destructive surface without a consumed record of its operation naming it (or another record id) is unreviewable', () => {
    expect(unreviewableSurfaces(section('planning', pres({ authorities: [] })), 'planning')).toEqual(['SURF-old']);
    const wrongOp = pres({ authorities: [{ recordId: 'REC-old', operation: 'disable', ids: ['SURF-old'], stateAfter: OLD_DIFF, inForce: true }] });
    expect(unreviewableSurfaces(section('planning', wrongOp), 'planning')).toEqual(['SURF-old']);
    const otherRecord = pres({ authorities: [{ recordId: 'REC-other', operation: 'remove', ids: ['SURF-old'], stateAfter: OLD_DIFF, inForce: true }] });
    expect(unreviewableSurfaces(section('planning', otherRecord), 'planning')).toEqual(['SURF-old']);
  });
});

describe('the pinned coverage reviewer reads and judges the section', () => {
  const bytesOf = (stage: 'planning' | 'integration', slot: string, p: PreservationSectionInput = pres()): Buffer => buildBundle(input(stage, slot, p)).bytes;

  it('positive control: kept capabilities and a matching destructive record are CLEAN, the surfaces echoed in coverage', () => {
    for (const stage of ['planning', 'integration'] as const) {
      const out = review(bytesOf(stage, 'baseline_preservation'));
      expect({ verdict: out.verdict, surfaces: out.coverage.surfaces }).toEqual({ verdict: 'CLEAN', surfaces: ['SURF-cli', 'SURF-old', 'SURF-rb'] });
    }
  });

  it('a lost capability or lost reachability in the current probe: preservation_regression, CRITICAL (a veto)', () => {
    for (const current of [probe('current', ['command:hello']), probe('current', ['command:bye', 'command:hello'], 1)]) {
      const out = review(bytesOf('integration', 'baseline_preservation', pres({ probes: [probe('baseline', ['command:bye', 'command:hello']), current] })));
      expect({ verdict: out.verdict, findings: out.findings }).toEqual({
        verdict: 'DIRTY',
        findings: [{ code: 'preservation_regression', class: 'preservation', severity: 'CRITICAL', refs: ['SURF-cli'] }],
      });
    }
  });

  it('a destructive surface whose real diff differs from the signed one, or whose record signed another digest: authority_mismatch, CRITICAL', () => {
    const moved = { ...input('integration', 'authority_release'), changes: [...CHANGES, { path: 'bin/old.js.bak', baseline: null, current: hex('x') }] };
    // bin/old.js.bak is not under bin/old.js: same diff digest; a change under the path changes it.
    const under = { ...input('integration', 'authority_release'), changes: [CHANGES[0]!, { path: 'bin/old.js', baseline: hex('old'), current: hex('edited') }] };
    expect(review(buildBundle(moved).bytes).verdict).toBe('CLEAN');
    expect(review(buildBundle(under).bytes).findings).toEqual([{ code: 'authority_mismatch', class: 'authority', severity: 'CRITICAL', refs: ['SURF-old'] }]);
    const otherSigned = pres({ authorities: [{ recordId: 'REC-old', operation: 'remove', ids: ['SURF-old'], stateAfter: D('9'), inForce: true }] });
    expect(review(bytesOf('planning', 'authority_release', otherSigned)).findings).toEqual([
      { code: 'authority_mismatch', class: 'authority', severity: 'CRITICAL', refs: ['SURF-old'] },
    ]);
  });

  it('a section that is not the closed format is Malformed (unknown field, a current probe in planning, a correction without bytes)', () => {
    const tamper = (stage: 'planning' | 'integration', edit: (s: Record<string, unknown>) => void): Buffer => {
      const b = JSON.parse(bytesOf(stage, 'authority_release').toString('utf8')) as { sections: { preservation: Record<string, unknown> } };
      edit(b.sections.preservation);
      return Buffer.from(canonicalJson(b));
    };
    // Positive control: the untouched bytes re-canonicalised are accepted.
    expect(review(tamper('planning', () => undefined)).verdict).toBe('CLEAN');
    expect(() => reviewBundleBytes(tamper('planning', (s) => (s.extra = 1)))).toThrow(Malformed);
    expect(() =>
      reviewBundleBytes(tamper('planning', (s) => ((s.probes as { phase: string }[])[0]!.phase = 'current'))),
    ).toThrow(Malformed);
    expect(() =>
      reviewBundleBytes(tamper('planning', (s) => ((s.incident_history as { correction_b64: string | null }[])[2]!.correction_b64 = null))),
    ).toThrow(Malformed);
    expect(() => reviewBundleBytes(tamper('planning', (s) => ((s.surfaces as { diff_digest: string | null }[])[0]!.diff_digest = D('a'))))).toThrow(Malformed);
  });
});

describe('one definition of the section: governed and the pinned coverage reviewer accept exactly the same sections', () => {
  const sectionOf = (stage: 'planning' | 'integration'): Record<string, unknown> =>
    JSON.parse(canonicalJson(buildBundle(input(stage, 'authority_release')).bundle.sections.preservation)) as Record<string, unknown>;
  /** governed's side: the schema and the rule function (what the bundle format says). */
  const governedAccepts = (stage: string, s: unknown): boolean => {
    const r = preservationSectionSchema.safeParse(s);
    return r.success && preservationSectionViolation(r.data, stage) === null;
  };
  /** the reviewer's side: the same section inside an otherwise untouched bundle. */
  const reviewerAccepts = (stage: 'planning' | 'integration', s: unknown): boolean => {
    const b = JSON.parse(buildBundle(input(stage, 'authority_release')).bytes.toString('utf8')) as { sections: { preservation: unknown } };
    b.sections.preservation = s;
    try {
      reviewBundleBytes(Buffer.from(canonicalJson(b)));
      return true;
    } catch (e) {
      if (e instanceof Malformed) return false;
      throw e;
    }
  };
  type Edit = (s: Record<string, any>) => void; // eslint-disable-line @typescript-eslint/no-explicit-any
  const EDITS: [string, 'planning' | 'integration', Edit][] = [
    ['unknown field', 'planning', (s) => (s.extra = 1)],
    ['binding version 0', 'planning', (s) => (s.binding.version = 0)],
    ['empty intent', 'planning', (s) => (s.intent = '')],
    ['unknown surface kind', 'planning', (s) => (s.surfaces[0].kind = 'widget')],
    ['upper-case disposition', 'planning', (s) => (s.surfaces[0].disposition = 'REMOVE')],
    ['a diff digest in planning', 'planning', (s) => (s.surfaces[0].diff_digest = D('a'))],
    ['no diff digest in integration', 'integration', (s) => (s.surfaces[0].diff_digest = null)],
    ['a current probe in planning', 'planning', (s) => (s.probes[0].phase = 'current')],
    ['a probe of an undeclared surface', 'integration', (s) => (s.probes[0].surface = 'SURF-zz')],
    ['unsorted capabilities', 'integration', (s) => s.probes[0].capabilities.reverse()],
    ['exit code 256', 'integration', (s) => (s.probes[0].exit_code = 256)],
    ['a record naming an undeclared surface', 'planning', (s) => (s.authorities[0].surfaces = ['SURF-zz'])],
    ['a non-destructive authority operation', 'planning', (s) => (s.authorities[0].operation = 'preserve')],
    ['incident history out of order', 'planning', (s) => s.incident_history.reverse()],
    ['a correction without bytes', 'planning', (s) => (s.incident_history[2].correction_b64 = null)],
    ['bytes on a non-correction', 'planning', (s) => (s.incident_history[0].correction_b64 = 'aGk=')],
    ['non-canonical base64 (padding bits set)', 'planning', (s) => (s.incident_history[2].correction_b64 = 'aGl=')],
  ];

  it('positive control: the built sections are accepted by both, in planning and integration', () => {
    for (const stage of ['planning', 'integration'] as const) {
      expect(governedAccepts(stage, sectionOf(stage))).toBe(true);
      expect(reviewerAccepts(stage, sectionOf(stage))).toBe(true);
    }
    // The section exists only in planning and integration.
    expect(governedAccepts('development', sectionOf('integration'))).toBe(false);
  });

  it.each(EDITS)('%s: refused by governed and by the reviewer alike', (_name, stage, edit) => {
    const s = sectionOf(stage);
    edit(s);
    expect({ governed: governedAccepts(stage, s), reviewer: reviewerAccepts(stage, s) }).toEqual({ governed: false, reviewer: false });
  });

  it('the reviewer carries no copy of the format: its source takes the schema\'s type, and the pinned build bundles the compiled form of the one definition and the section\'s rules (docs/architecture.md#compiled-formats)', () => {
    const src = readFileSync(join(REPO_ROOT, 'runner', 'reviewers', 'src', 'coverage', 'bundle.ts'), 'utf8');
    expect(src).toContain("from '../../../../src/core/bundle/preservation-schema.js'");
    for (const copy of ['SURFACE_KINDS =', 'INCIDENT_KINDS =', 'CAPABILITY_RE =', 'ENTRY_RE =']) expect(src).not.toContain(copy);
    const built = readFileSync(join(REPO_ROOT, 'runner', 'reviewers', 'coverage.mjs'), 'utf8');
    expect(built).toContain('// src/core/format/compiled.ts');
    expect(built).toContain('// src/core/bundle/preservation-rules.ts');
    expect(built).not.toContain('// node_modules/zod/');
  });
});
