// The pure bundle builder (docs/bundle.md#views, docs/reviewers.md#the-reviewers-world): stage sections, role views, the coverage object, the
// view digest, refusals, and the published JSON Schema (docs/schemas/bundle.schema.json).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/core/canonical.js';
import { isGovernedError } from '../src/core/errors.js';
import { parseContract, type Contract } from '../src/core/contract/schema.js';
import { compareUtf8 } from '../src/core/contract/ids.js';
import {
  buildBundle,
  bundleSchema,
  changeId,
  COVERAGE_KINDS,
  evidencePaths,
  ROLE_SECTIONS,
  viewFor,
  type BundleInput,
  type FileInput,
} from '../src/core/bundle/index.js';
import { bundleJsonSchema } from '../src/core/json-schemas.js';
import { REPO_ROOT } from './helpers/cli.js';
import { contractDoc, SOURCE_TEXT } from './state-helpers.js';

const hex = (b: string | Uint8Array): string => createHash('sha256').update(b).digest('hex');
const COMMIT = 'c'.repeat(40);
const TREE = 'd'.repeat(40);
const CHL = (n: number): string => `CHL-${String(n).repeat(32).slice(0, 32)}`;
const UNIT = `UNIT-${'a'.repeat(32)}`;

function file(path: string, text: string): FileInput {
  return { path, present: true, mode: '100644', sha256: hex(text), bytes: Buffer.from(text) };
}

function input(stage: BundleInput['stage'], slot: string, over: Partial<BundleInput> = {}): BundleInput {
  const contract: Contract = parseContract(contractDoc());
  const paths = evidencePaths(contract, stage);
  const current = paths.map((p) => (p === 'src/export.ts' ? file(p, 'export const csv = 1;\n') : { path: p, present: false as const }));
  const baseline = paths.map((p) => ({ path: p, present: false as const }));
  return {
    challengeId: CHL(1),
    unit: UNIT,
    stage,
    slot,
    contract,
    sourceBytes: new Map([['SRC-1', Buffer.from(SOURCE_TEXT)]]),
    scopeHistory: [
      {
        version: 1,
        scopeEpoch: 1,
        workRevision: 0,
        contractDigest: `sha256:${'1'.repeat(64)}`,
        sourcesDigest: `sha256:${'2'.repeat(64)}`,
        boundAt: 1_700_000_000,
        diff: { additions: [], narrowing: [], progress: [] },
        authorities: [],
      },
    ],
    changes: stage === 'planning' ? null : [{ path: 'src/export.ts', baseline: null, current: hex('export const csv = 1;\n') }],
    currentFiles: stage === 'planning' ? null : current,
    baseline: { commit: COMMIT, tree: TREE, manifest: [{ path: 'requests/export.md', mode: '100644', sha256: hex(SOURCE_TEXT) }], files: baseline },
    priorReceipts: [],
    maxBytes: 1 << 20,
    ...over,
  };
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (isGovernedError(e)) return e.code;
    throw e;
  }
  return undefined;
}

describe('views (docs/bundle.md#views table)', () => {
  it('role stages: each role sees exactly its sections among those the stage has', () => {
    expect(viewFor('planning', 'source_fidelity')).toEqual({
      name: 'source_fidelity',
      included: ['sources', 'authorities', 'tombstones'],
      withheld: ['source_map', 'contract', 'scope_history', 'baseline_files', 'preservation', 'prior_receipts'],
    });
    expect(viewFor('integration', 'baseline_preservation').included).toEqual(['changes', 'baseline_files', 'preservation']);
    expect(viewFor('integration', 'implementation_test').included).toEqual(['contract', 'changes', 'current_files']);
    expect(viewFor('integration', 'authority_release').included).toEqual(['source_map', 'authorities', 'tombstones', 'scope_history', 'preservation', 'prior_receipts']);
    for (const role of Object.keys(ROLE_SECTIONS) as (keyof typeof ROLE_SECTIONS)[]) {
      for (const stage of ['planning', 'integration'] as const) {
        const v = viewFor(stage, role);
        expect(v.included.every((s) => ROLE_SECTIONS[role].includes(s))).toBe(true);
        expect(v.withheld.some((s) => ROLE_SECTIONS[role].includes(s))).toBe(false);
      }
    }
  });

  it('development and test see every section of their stage except prior_receipts; planning never sees the workspace', () => {
    for (const stage of ['development', 'test'] as const) {
      const v = viewFor(stage, 'coverage');
      expect(v.name).toBe('complete');
      expect(v.withheld).toEqual([]);
      expect(v.included).not.toContain('prior_receipts');
      expect(v.included).toContain('current_files');
    }
    for (const role of Object.keys(ROLE_SECTIONS)) {
      const v = viewFor('planning', role);
      expect([...v.included, ...v.withheld]).not.toContain('changes');
      expect([...v.included, ...v.withheld]).not.toContain('current_files');
    }
  });
});

describe('buildBundle', () => {
  it('is deterministic canonical JSON; the view digest does not depend on the challenge, the bundle digest does', () => {
    const a = buildBundle(input('development', 'coverage'));
    const b = buildBundle(input('development', 'coverage'));
    const c = buildBundle(input('development', 'coverage', { challengeId: CHL(2) }));
    expect(a.bytes.equals(b.bytes)).toBe(true);
    expect(a.bytes.toString('utf8')).toBe(canonicalJson(JSON.parse(a.bytes.toString('utf8'))));
    expect(a.digest).toBe(`sha256:${hex(a.bytes)}`);
    expect(c.viewDigest).toBe(a.viewDigest);
    expect(c.digest).not.toBe(a.digest);
    expect(bundleSchema.parse(JSON.parse(a.bytes.toString('utf8'))).view.digest).toBe(a.viewDigest);
  });

  it('coverage lists every visible ID by kind and every visible edge, sorted, and only from the view', () => {
    const dev = buildBundle(input('development', 'coverage')).coverage;
    expect(Object.keys(dev).sort()).toEqual([...COVERAGE_KINDS, 'relations'].sort());
    expect(dev).toMatchObject({
      sources: ['SRC-1'],
      atoms: ['ATOM-1', 'ATOM-2', 'ATOM-3'],
      directives: ['DIR-1', 'DIR-2'],
      targets: ['TGT-1', 'TGT-3'],
      criteria: ['AC-1', 'AC-2'],
      implementations: ['IMP-1'],
      evidence: ['EVD-1'],
      changes: [changeId('src/export.ts')],
      scope_versions: ['SCOPE-1'],
      surfaces: [],
    });
    expect(dev.relations).toEqual(
      [
        'ATOM-1>DIR-1',
        'ATOM-3>DIR-2',
        'DIR-1>TGT-1',
        'DIR-1>AC-1',
        'ATOM-1>AC-1',
        'DIR-1>IMP-1',
        'DIR-1>EVD-1',
        'DIR-2>TGT-3',
        'DIR-2>AC-2',
        'ATOM-3>AC-2',
        `${changeId('src/export.ts')}>IMP-1`,
      ].sort(compareUtf8),
    );
    for (const list of Object.values(dev)) expect([...list].sort(compareUtf8)).toEqual(list);
    // source_fidelity: texts and atoms, no directive-derived ID or edge.
    const sf = buildBundle(input('integration', 'source_fidelity')).coverage;
    expect(sf).toMatchObject({ sources: ['SRC-1'], atoms: ['ATOM-1', 'ATOM-2', 'ATOM-3'], directives: [], targets: [], relations: [] });
    // baseline_preservation sees the change but not the contract, so not the CHG>IMP edge.
    const bp = buildBundle(input('integration', 'baseline_preservation')).coverage;
    expect(bp).toMatchObject({ changes: [changeId('src/export.ts')], implementations: [], relations: [] });
    // authority_release: the atom→directive relations (IDs only) and the scope history.
    const ar = buildBundle(input('integration', 'authority_release'));
    expect(ar.coverage).toMatchObject({ relations: ['ATOM-1>DIR-1', 'ATOM-3>DIR-2'], scope_versions: ['SCOPE-1'], sources: [] });
    expect(ar.bytes.toString('utf8')).not.toContain(Buffer.from(SOURCE_TEXT).toString('base64'));
  });

  it('planning carries the planning view of the contract: no state progress, no implementation/evidence mapping', () => {
    const { bundle } = buildBundle(input('planning', 'implementation_test'));
    expect(bundle.sections.contract?.form).toBe('planning');
    expect(JSON.stringify(bundle.sections.contract)).not.toMatch(/IMP-1|EVD-1|"state"/);
    expect(bundle.coverage.implementations).toEqual([]);
  });

  it('refuses an empty view and a bundle over the cap (never truncated)', () => {
    const bare = parseContract({ ...contractDoc(), sources: [], directives: [], implementations: [], evidence: [] });
    const empty = { contract: bare, sourceBytes: new Map(), baseline: { commit: COMMIT, tree: TREE, manifest: [], files: [] } };
    expect(codeOf(() => buildBundle(input('planning', 'source_fidelity', empty)))).toBe('bundle_view_empty');
    // The same contract still has something for authority_release: its scope history.
    expect(buildBundle(input('planning', 'authority_release', empty)).bundle.sections.scope_history).toHaveLength(1);
    const size = buildBundle(input('development', 'coverage')).bytes.length;
    expect(codeOf(() => buildBundle(input('development', 'coverage', { maxBytes: size - 1 })))).toBe('bundle_too_large');
    expect(buildBundle(input('development', 'coverage', { maxBytes: size })).bytes.length).toBe(size);
  });

  it('refuses file bytes that are not the bytes whose hash is given (built only from hashed bytes)', () => {
    const base = input('development', 'coverage');
    const lying = (base.currentFiles ?? []).map((f) => (f.present ? { ...f, bytes: Buffer.from('something else\n') } : f));
    expect(codeOf(() => buildBundle({ ...base, currentFiles: lying }))).toBe('internal_error');
  });

  it('refuses a bundle that breaks a rule every reviewer applies (bundleRuleViolation), naming only the rule', () => {
    const base = input('development', 'coverage');
    expect(buildBundle(base).bundle.sections.contract).toBeDefined(); // positive control: the same input builds
    const doc = contractDoc() as { directives: Record<string, unknown>[] };
    const broken = parseContract({ ...doc, directives: doc.directives.map((d, i) => (i === 0 ? { ...d, implementations: ['IMP-nope'] } : d)) });
    let caught: unknown;
    try {
      buildBundle({ ...base, contract: broken });
    } catch (e) {
      caught = e;
    }
    expect(isGovernedError(caught) && caught.code).toBe('internal_error');
    expect(isGovernedError(caught) && caught.ids).toEqual(['bundle_rule:contract_mapping']);
  });

  it('prior_receipts holds only earlier stages', () => {
    const receipt = { receipt_id: `sha256:${'9'.repeat(64)}`, stage: 'planning' as const, slot: 'source_fidelity', verdict: 'CLEAN' as const };
    const ok = buildBundle(input('integration', 'authority_release', { priorReceipts: [receipt] }));
    expect(ok.bundle.sections.prior_receipts).toEqual([receipt]);
    expect(codeOf(() => buildBundle(input('integration', 'authority_release', { priorReceipts: [{ ...receipt, stage: 'integration' }] })))).toBe('internal_error');
  });
});

describe('published JSON Schema', () => {
  it('docs/schemas/bundle.schema.json is generated from the zod schema and not stale', () => {
    const published = JSON.parse(readFileSync(join(REPO_ROOT, 'docs', 'schemas', 'bundle.schema.json'), 'utf8')) as Record<string, unknown>;
    expect({ ...published, description: undefined }).toEqual({ ...bundleJsonSchema(), description: undefined });
  });
});
