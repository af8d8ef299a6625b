// docs/contract.md#scope-history scope history: additions and active→done need no authority; every other edit of an
// existing item is narrowing and needs an authority naming exactly the affected IDs; directives,
// sources, authorities and tombstones never disappear.
import { describe, expect, it } from 'vitest';
import { diffScope, requireAuthorityForNarrowing, type ScopeDiff } from '../src/core/contract/scope-diff.js';
import { validateContract } from '../src/core/contract/validate.js';
import type { Contract } from '../src/core/contract/schema.js';
import { caught, deferralExample, DIR2_DISPOSES, specExample } from './contract-fixtures.js';

const spec = (): Contract => specExample().contract;
const clone = (c: Contract): Contract => structuredClone(c);
const edit = (base: Contract, mutate: (c: Contract) => void): Contract => {
  const next = clone(base);
  mutate(next);
  return next;
};
const sorted = (xs: string[]): string[] => [...xs].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));

const withNewRequest = (c: Contract): void => {
  c.sources.push({ id: 'SRC-2', path: 'requests/csv.md', class: 'directive', atoms: [{ id: 'ATOM-5', span: [0, 12], kind: 'obligation', directives: ['DIR-2'] }] });
  c.directives.push({
    id: 'DIR-2',
    statement: 'Add CSV too.',
    state: 'active',
    sources: ['SRC-2'],
    targets: [{ id: 'TGT-2', paths: ['src/csv.ts'] }],
    criteria: [{ id: 'AC-2', statement: 'CSV lists receipts.', atoms: ['ATOM-5'] }],
    implementations: ['IMP-2'],
    evidence: [],
  });
  c.implementations.push({ id: 'IMP-2', paths: ['src/csv.ts'] });
};

type Row = [name: string, prev: () => Contract, next: (prev: Contract) => Contract, expected: Partial<ScopeDiff>];

const rows: Row[] = [
  ['no change', spec, (p) => clone(p), { additions: [], progress: [], narrowing: [], scopeChanged: false }],
  ['active→done is progress', spec, (p) => edit(p, (c) => { c.directives[0]!.state = 'done'; }), { progress: ['DIR-1'], narrowing: [], additions: [], scopeChanged: false }],
  ['new request, directive, target, criterion, implementation', spec, (p) => edit(p, withNewRequest), {
    additions: sorted(['SRC-2', 'ATOM-5', 'DIR-2', 'TGT-2', 'AC-2', 'IMP-2', 'ATOM-5>DIR-2', 'DIR-2>TGT-2', 'DIR-2>AC-2', 'ATOM-5>AC-2', 'DIR-2>IMP-2']),
    narrowing: [],
    scopeChanged: true,
  }],
  ['new target on an existing directive', spec, (p) => edit(p, (c) => { c.directives[0]!.targets.push({ id: 'TGT-2', paths: ['src/b.ts'] }); }), {
    additions: ['DIR-1>TGT-2', 'TGT-2'], narrowing: [], scopeChanged: true,
  }],
  ['a target gains a path', spec, (p) => edit(p, (c) => { c.directives[0]!.targets[0]!.paths.push('src/b.ts'); }), { additions: ['TGT-1'], narrowing: [] }],
  ['new evidence mapped', spec, (p) => edit(p, (c) => {
    c.evidence.push({ id: 'EVD-2', kind: 'doc', paths: ['docs/export.md'] });
    c.directives[0]!.evidence.push('EVD-2');
  }), { additions: ['DIR-1>EVD-2', 'EVD-2'], narrowing: [] }],
  ['target removed', spec, (p) => edit(p, (c) => { c.directives[0]!.targets = []; }), { narrowing: ['DIR-1>TGT-1', 'TGT-1'], additions: [] }],
  ['a target loses a path', spec, (p) => edit(p, (c) => { c.directives[0]!.targets[0]!.paths = ['src/b.ts']; }), { narrowing: ['TGT-1'], additions: [] }],
  ['target moved to another directive', () => deferralExample(false).contract, (p) => edit(p, (c) => {
    c.directives[1]!.targets.push(c.directives[0]!.targets.pop()!);
  }), { narrowing: ['DIR-1>TGT-1', 'TGT-1'], additions: ['DIR-2>TGT-1'] }],
  ['criterion edited', spec, (p) => edit(p, (c) => { c.directives[0]!.criteria[0]!.statement = 'Anything.'; }), { narrowing: ['AC-1'] }],
  ['criterion drops its atom', spec, (p) => edit(p, (c) => { c.directives[0]!.criteria[0]!.atoms = []; }), { narrowing: ['ATOM-1>AC-1'] }],
  ['directive statement edited', spec, (p) => edit(p, (c) => { c.directives[0]!.statement = 'Smaller.'; }), { narrowing: ['DIR-1'] }],
  ['implementation removed', spec, (p) => edit(p, (c) => {
    c.implementations = [];
    c.directives[0]!.implementations = [];
  }), { narrowing: ['DIR-1>IMP-1', 'IMP-1'] }],
  ['evidence reclassified', spec, (p) => edit(p, (c) => { c.evidence[0]!.kind = 'doc'; }), { narrowing: ['EVD-1'] }],
  ['atom obligation→context', spec, (p) => edit(p, (c) => {
    c.sources[0]!.atoms[0]!.kind = 'context';
    c.sources[0]!.atoms[0]!.directives = [];
  }), { narrowing: ['ATOM-1', 'ATOM-1>DIR-1'] }],
  ['atom span edited', spec, (p) => edit(p, (c) => { c.sources[0]!.atoms[0]!.span = [0, 73]; }), { narrowing: ['ATOM-1'] }],
  ['source reclassified', spec, (p) => edit(p, (c) => { c.sources[0]!.class = 'reference'; }), { narrowing: ['SRC-1'] }],
  ['directive drops a source', () => edit(spec(), (c) => { c.directives[0]!.sources.push('SRC-2'); }), (p) => edit(p, (c) => { c.directives[0]!.sources = ['SRC-1']; }), { narrowing: ['DIR-1'] }],
  ['done→active is an edit too (literally, docs/contract.md#scope-history)', () => edit(spec(), (c) => { c.directives[0]!.state = 'done'; }), (p) => edit(p, (c) => { c.directives[0]!.state = 'active'; }), { narrowing: ['DIR-1'], progress: [] }],
  ['directive deferred with its tombstone', () => deferralExample(false).contract, () => deferralExample(true).contract, {
    narrowing: sorted(DIR2_DISPOSES),
    additions: ['AUTH-2', 'AUTH-2>TMB-1', 'TMB-1', 'TMB-1>DIR-2'],
    progress: [],
    scopeChanged: true,
  }],
  ['tombstone disposes reordered is not an edit', () => deferralExample(true).contract, (p) => edit(p, (c) => { c.tombstones[0]!.disposes.reverse(); }), {
    narrowing: [], additions: [], scopeChanged: false,
  }],
  ['title edited', spec, (p) => edit(p, (c) => { c.title = 'Export'; }), { narrowing: [], additions: [], scopeChanged: true }],
];

describe('diffScope (docs/contract.md#scope-history)', () => {
  it.each(rows)('%s', (_name, prev, next, expected) => {
    const p = prev();
    expect(diffScope(p, next(p))).toMatchObject(expected);
  });

  it('A→B→A: a pure addition, then its removal is narrowing', () => {
    const a = spec();
    const b = edit(a, (c) => { c.directives[0]!.targets.push({ id: 'TGT-2', paths: ['src/b.ts'] }); });
    const ab = diffScope(a, b);
    const ba = diffScope(b, a);
    expect(ab).toEqual({ additions: ['DIR-1>TGT-2', 'TGT-2'], progress: [], narrowing: [], scopeChanged: true });
    expect(ba).toEqual({ additions: [], progress: [], narrowing: ['DIR-1>TGT-2', 'TGT-2'], scopeChanged: true });
    expect(() => requireAuthorityForNarrowing(ab, null)).not.toThrow();
    expect(caught(() => requireAuthorityForNarrowing(ba, null)).code).toBe('contract_narrowing_unauthorized');
  });

  it('A→B→A on state: done is progress, back to active needs authority', () => {
    const a = spec();
    const b = edit(a, (c) => { c.directives[0]!.state = 'done'; });
    expect(diffScope(a, b).progress).toEqual(['DIR-1']);
    expect(diffScope(b, a).narrowing).toEqual(['DIR-1']);
  });

  it('the deferred contract it accepts is a valid contract', () => {
    const { contract, facts } = deferralExample(true);
    expect(() => validateContract(contract, facts)).not.toThrow();
  });

  it.each<[string, () => Contract, (c: Contract) => void, string, string]>([
    ['directive', () => deferralExample(false).contract, (c) => { c.directives.pop(); }, 'contract_item_disappeared', 'DIR-2'],
    ['source', spec, (c) => { c.sources = []; }, 'contract_item_disappeared', 'SRC-1'],
    ['authority', spec, (c) => { c.authorities = []; }, 'contract_item_disappeared', 'AUTH-1'],
    ['tombstone', () => deferralExample(true).contract, (c) => { c.tombstones = []; }, 'contract_item_disappeared', 'TMB-1'],
    ['authority record edited', spec, (c) => { c.authorities[0]!.record = 'REC-0000'; }, 'contract_history_rewritten', 'AUTH-1'],
    ['authority operation edited', spec, (c) => { c.authorities[0]!.operation = 'defer'; }, 'contract_history_rewritten', 'AUTH-1'],
    ['tombstone disposes edited', () => deferralExample(true).contract, (c) => { c.tombstones[0]!.disposes.pop(); }, 'contract_history_rewritten', 'TMB-1'],
  ])('refuses a disappeared or rewritten %s', (_name, prev, mutate, code, id) => {
    const p = prev();
    const err = caught(() => diffScope(p, edit(p, mutate)));
    expect(err.code).toBe(code);
    expect(err.ids).toEqual([id]);
  });
});

describe('requireAuthorityForNarrowing (docs/contract.md#scope-history, docs/authority.md#human-authority-records)', () => {
  const narrowed: ScopeDiff = { additions: [], progress: [], narrowing: ['DIR-1>TGT-1', 'TGT-1'], scopeChanged: true };
  const pure: ScopeDiff = { additions: ['TGT-2'], progress: ['DIR-1'], narrowing: [], scopeChanged: true };

  it('accepts an authority naming exactly the narrowed IDs, in any order', () => {
    expect(() => requireAuthorityForNarrowing(narrowed, ['TGT-1', 'DIR-1>TGT-1'])).not.toThrow();
  });

  it('accepts additions and progress without authority', () => {
    expect(() => requireAuthorityForNarrowing(pure, null)).not.toThrow();
  });

  it.each<[string, ScopeDiff, readonly string[] | null, string, readonly string[]]>([
    ['narrowing without authority', narrowed, null, 'contract_narrowing_unauthorized', ['DIR-1>TGT-1', 'TGT-1']],
    ['authority missing an ID', narrowed, ['TGT-1'], 'contract_narrowing_authority_mismatch', ['missing:DIR-1>TGT-1']],
    ['authority naming an extra ID', narrowed, ['TGT-1', 'DIR-1>TGT-1', 'AC-1'], 'contract_narrowing_authority_mismatch', []],
    ['authority naming IDs that were not narrowed', pure, ['TGT-9'], 'contract_narrowing_authority_mismatch', []],
    ['authority with an empty scope', pure, [], 'contract_narrowing_authority_mismatch', []],
  ])('refuses %s', (_name, diff, scope, code, ids) => {
    const err = caught(() => requireAuthorityForNarrowing(diff, scope));
    expect(err.code).toBe(code);
    expect(err.ids).toEqual(ids);
  });
});
