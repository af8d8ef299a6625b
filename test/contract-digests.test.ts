// docs/contract.md#the-states-a-receipt-is-judged-against: planning state, content and work state digests — stable under re-serialisation,
// sensitive to exactly what each one names.
import { describe, expect, it } from 'vitest';
import { sha256Digest } from '../src/core/canonical.js';
import {
  contentDigest,
  contractDigest,
  planningStateDigest,
  planningView,
  workStateDigest,
  type PlanningStateInput,
} from '../src/core/contract/digests.js';
import { type Contract } from '../src/core/contract/schema.js';
import { parseContractText } from '../src/core/contract/text.js';
import { caught, deferralExample, specExample } from './contract-fixtures.js';

const COMMIT = 'a'.repeat(40);
const TREE = 'b'.repeat(40);
const WORKSPACE = sha256Digest('workspace manifest');

function planningInput(contract: Contract, patch: Partial<PlanningStateInput> = {}): PlanningStateInput {
  const { bytes } = specExample();
  return {
    sourceDigests: new Map([['SRC-1', sha256Digest(bytes)]]),
    contract,
    baseline: { commit: COMMIT, tree: TREE },
    ...patch,
  };
}

function states(contract: Contract, workspace = WORKSPACE, revision = 0): { planning: string; content: string; work: string } {
  const planning = planningStateDigest(planningInput(contract));
  const content = contentDigest({ planningStateDigest: planning, contract, workspaceDigest: workspace });
  return { planning, content, work: workStateDigest({ contentDigest: content, workRevision: revision }) };
}

const clone = (c: Contract): Contract => structuredClone(c);

describe('contract digests (docs/contract.md#the-states-a-receipt-is-judged-against)', () => {
  it('are stable: same contract parsed from YAML and from reordered JSON gives the same digests', () => {
    const { contract } = specExample();
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(contract).reverse()));
    const again = parseContractText(reordered, 'contract.json');
    expect(states(again)).toEqual(states(contract));
    expect(contractDigest(again)).toBe(contractDigest(contract));
    for (const d of Object.values(states(contract))) expect(d).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('directive state progress changes content and work state but not planning state', () => {
    const { contract } = specExample();
    const done = clone(contract);
    done.directives[0]!.state = 'done';
    const a = states(contract);
    const b = states(done);
    expect(b.planning).toBe(a.planning);
    expect(b.content).not.toBe(a.content);
    expect(b.work).not.toBe(a.work);
  });

  it('implementation and evidence mapping changes do not change planning state', () => {
    const { contract } = specExample();
    const remapped = clone(contract);
    remapped.implementations[0]!.paths = ['src/export.ts', 'src/export-format.ts'];
    remapped.evidence.push({ id: 'EVD-2', kind: 'fixture', paths: ['test/fixtures/export.json'] });
    remapped.directives[0]!.evidence.push('EVD-2');
    expect(states(remapped).planning).toBe(states(contract).planning);
    expect(states(remapped).content).not.toBe(states(contract).content);
    expect(planningView(remapped)).toEqual(planningView(contract));
  });

  it('a deferral is a scope decision and changes planning state', () => {
    const active = deferralExample(false).contract;
    const deferred = deferralExample(true).contract;
    const input = (c: Contract) => planningInput(c, { sourceDigests: new Map([['SRC-1', sha256Digest('x')]]) });
    expect(planningStateDigest(input(deferred))).not.toBe(planningStateDigest(input(active)));
    const onlyState = clone(active);
    onlyState.directives[1]!.state = 'deferred';
    expect(planningStateDigest(input(onlyState))).not.toBe(planningStateDigest(input(active)));
  });

  it.each<[string, (c: Contract) => void]>([
    ['directive statement', (c) => { c.directives[0]!.statement += ' Now.'; }],
    ['criterion statement', (c) => { c.directives[0]!.criteria[0]!.statement += ' Now.'; }],
    ['target path', (c) => { c.directives[0]!.targets[0]!.paths = ['src/export2.ts']; }],
    ['atom span', (c) => { c.sources[0]!.atoms[0]!.span = [0, 73]; }],
    ['atom kind', (c) => { c.sources[0]!.atoms[1]!.kind = 'obligation'; }],
    ['source class', (c) => { c.sources[0]!.class = 'reference'; }],
    ['authority record', (c) => { c.authorities[0]!.record = 'REC-ffff'; }],
    ['title', (c) => { c.title = 'Other'; }],
  ])('planning state changes with the %s', (_name, mutate) => {
    const { contract } = specExample();
    const changed = clone(contract);
    mutate(changed);
    expect(states(changed).planning).not.toBe(states(contract).planning);
  });

  it('planning state binds source bytes, baseline, preservation and incident history', () => {
    const { contract } = specExample();
    const base = planningStateDigest(planningInput(contract));
    const variants = [
      planningInput(contract, { sourceDigests: new Map([['SRC-1', sha256Digest('other bytes')]]) }),
      planningInput(contract, { baseline: { commit: 'c'.repeat(40), tree: TREE } }),
      planningInput(contract, { baseline: { commit: COMMIT, tree: 'd'.repeat(64) } }),
      planningInput(contract, { preservation: sha256Digest('preservation') }),
      planningInput(contract, { incidentHistory: sha256Digest('history') }),
      planningInput(contract, { incidentHistory: 'none' }),
    ].map(planningStateDigest);
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
  });

  it('workspace changes move content and work state only', () => {
    const { contract } = specExample();
    const a = states(contract);
    const b = states(contract, sha256Digest('other manifest'));
    expect(b.planning).toBe(a.planning);
    expect(b.content).not.toBe(a.content);
  });

  it('A→B→A restores the content digest but not the work state (work_revision)', () => {
    const { contract } = specExample();
    const b = clone(contract);
    b.directives[0]!.state = 'done';
    const r0 = states(contract, WORKSPACE, 0);
    const r1 = states(b, WORKSPACE, 1);
    const r2 = states(contract, WORKSPACE, 2);
    expect(r2.content).toBe(r0.content);
    expect(r2.work).not.toBe(r0.work);
    expect(new Set([r0.work, r1.work, r2.work]).size).toBe(3);
  });

  it('the three digests are domain-separated by kind', () => {
    const { contract } = specExample();
    const s = states(contract);
    expect(new Set([s.planning, s.content, s.work, contractDigest(contract)]).size).toBe(4);
  });

  it.each<[string, () => unknown, string]>([
    ['source digests missing a source', () => planningStateDigest(planningInput(specExample().contract, { sourceDigests: new Map() })), 'source_digests'],
    ['source digests with an extra source', () => planningStateDigest(planningInput(specExample().contract, {
      sourceDigests: new Map([['SRC-1', WORKSPACE], ['SRC-2', WORKSPACE]]),
    })), 'source_digests'],
    ['malformed source digest', () => planningStateDigest(planningInput(specExample().contract, { sourceDigests: new Map([['SRC-1', 'md5:00']]) })), 'source_digests'],
    ['short commit', () => planningStateDigest(planningInput(specExample().contract, { baseline: { commit: 'abc', tree: TREE } })), 'baseline.commit'],
    ['uppercase tree', () => planningStateDigest(planningInput(specExample().contract, { baseline: { commit: COMMIT, tree: 'B'.repeat(40) } })), 'baseline.tree'],
    ['malformed preservation', () => planningStateDigest(planningInput(specExample().contract, { preservation: 'none' })), 'preservation'],
    ['malformed incident history', () => planningStateDigest(planningInput(specExample().contract, { incidentHistory: 'empty' })), 'incident_history'],
    ['malformed workspace digest', () => contentDigest({ planningStateDigest: WORKSPACE, contract: specExample().contract, workspaceDigest: 'x' }), 'workspace'],
    ['malformed planning digest', () => contentDigest({ planningStateDigest: 'sha256:zz', contract: specExample().contract, workspaceDigest: WORKSPACE }), 'planning_state'],
    ['negative work revision', () => workStateDigest({ contentDigest: WORKSPACE, workRevision: -1 }), 'work_revision'],
    ['fractional work revision', () => workStateDigest({ contentDigest: WORKSPACE, workRevision: 1.5 }), 'work_revision'],
    ['malformed content digest', () => workStateDigest({ contentDigest: 'sha256:', workRevision: 0 }), 'content'],
  ])('refuses %s', (_name, fn, field) => {
    const err = caught(fn);
    expect(err.code).toBe('contract_digest_input_invalid');
    expect(err.ids).toEqual([field]);
  });
});
