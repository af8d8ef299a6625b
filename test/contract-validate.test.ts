// docs/contract.md#validation-rules: every validation rule has its own error code; one failing fixture per rule, each a
// single mutation of a valid contract (the docs/contract.md#the-request-contract example or the deferral example).
import { describe, expect, it } from 'vitest';
import { validateContract, type ContractFacts } from '../src/core/contract/validate.js';
import type { Contract } from '../src/core/contract/schema.js';
import { caught, deferralExample, DIR2_DISPOSES, isValidAuthority, specExample } from './contract-fixtures.js';

type Mutation = (c: Contract, f: { facts: ContractFacts }) => void;
type Row = [name: string, base: 'spec' | 'deferral', mutate: Mutation, code: string, ids: readonly string[]];

const d0 = (c: Contract) => c.directives[0]!;
const d1 = (c: Contract) => c.directives[1]!;
const s0 = (c: Contract) => c.sources[0]!;
const atom = (c: Contract, i: number) => s0(c).atoms[i]!;
const setFacts = (f: { facts: ContractFacts }, patch: Partial<ContractFacts>) => {
  f.facts = { ...f.facts, ...patch };
};

const rows: Row[] = [
  // identifiers
  ['item id pattern', 'spec', (c) => { d0(c).id = 'dir-1'; }, 'contract_id_invalid', ['$.directives[0].id']],
  ['id suffix too long', 'spec', (c) => { d0(c).targets[0]!.id = `TGT-${'x'.repeat(25)}`; }, 'contract_id_invalid', ['$.directives[0].targets[0].id']],
  ['id prefix too long', 'spec', (c) => { d0(c).criteria[0]!.id = 'ACCEPTANC-1'; }, 'contract_id_invalid', ['$.directives[0].criteria[0].id']],
  ['reference pattern', 'spec', (c) => { atom(c, 0).directives = ['DIR 1']; }, 'contract_id_invalid', ['$.sources[0].atoms[0].directives[0]']],
  ['authority record pattern', 'spec', (c) => { c.authorities[0]!.record = 'rec:1'; }, 'contract_id_invalid', ['$.authorities[0].record']],
  ['disposes entry pattern', 'deferral', (c) => { c.tombstones[0]!.disposes.push('DIR-2>TGT-2>AC-2'); }, 'contract_id_invalid', ['$.tombstones[0].disposes[9]']],
  ['duplicate id across kinds', 'spec', (c) => { d0(c).targets[0]!.id = 'AC-1'; }, 'contract_id_duplicate', ['AC-1']],
  ['duplicate atom id', 'spec', (c) => { atom(c, 1).id = 'ATOM-1'; }, 'contract_id_duplicate', ['ATOM-1']],
  ['unknown evidence', 'spec', (c) => { d0(c).evidence = ['EVD-9']; }, 'contract_reference_unknown', ['DIR-1', 'EVD-9']],
  ['reference to wrong kind', 'spec', (c) => { atom(c, 0).directives = ['TGT-1']; }, 'contract_reference_unknown', ['ATOM-1', 'TGT-1']],
  ['unknown source', 'spec', (c) => { d0(c).sources = ['SRC-1', 'SRC-2']; }, 'contract_reference_unknown', ['DIR-1', 'SRC-2']],
  ['unknown tombstone authority', 'deferral', (c) => { c.tombstones[0]!.authority = 'AUTH-9'; }, 'contract_reference_unknown', ['TMB-1', 'AUTH-9']],
  ['unknown tombstone directive', 'deferral', (c) => { c.tombstones[0]!.directive = 'DIR-9'; }, 'contract_reference_unknown', ['TMB-1', 'DIR-9']],
  ['duplicate reference', 'spec', (c) => { d0(c).implementations = ['IMP-1', 'IMP-1']; }, 'contract_reference_duplicate', ['DIR-1', 'IMP-1']],
  ['orphaned implementation', 'spec', (c) => { c.implementations.push({ id: 'IMP-2', paths: ['src/x.ts'] }); }, 'contract_item_orphaned', ['IMP-2']],
  // paths
  ['path with ..', 'spec', (c) => { d0(c).targets[0]!.paths = ['src/../etc/passwd']; }, 'contract_path_invalid', ['$.directives[0].targets[0].paths[0]']],
  ['path with .', 'spec', (c) => { c.implementations[0]!.paths = ['./src/export.ts']; }, 'contract_path_invalid', ['$.implementations[0].paths[0]']],
  ['absolute path', 'spec', (c) => { c.evidence[0]!.paths = ['/etc/passwd']; }, 'contract_path_invalid', ['$.evidence[0].paths[0]']],
  ['backslash', 'spec', (c) => { c.evidence[0]!.paths = ['test\\export.test.ts']; }, 'contract_path_invalid', ['$.evidence[0].paths[0]']],
  ['empty segment', 'spec', (c) => { c.evidence[0]!.paths = ['test//export.test.ts']; }, 'contract_path_invalid', ['$.evidence[0].paths[0]']],
  ['trailing slash', 'spec', (c) => { c.evidence[0]!.paths = ['test/']; }, 'contract_path_invalid', ['$.evidence[0].paths[0]']],
  ['control character', 'spec', (c) => { c.evidence[0]!.paths = ['test/a\nb.ts']; }, 'contract_path_invalid', ['$.evidence[0].paths[0]']],
  ['source path', 'spec', (c) => { s0(c).path = '../requests/export.md'; }, 'contract_path_invalid', ['$.sources[0].path']],
  ['duplicate path', 'spec', (c) => { c.implementations[0]!.paths = ['src/export.ts', 'src/export.ts']; }, 'contract_path_duplicate', ['$.implementations[0].paths[1]']],
  ['outside roots', 'spec', (_c, f) => setFacts(f, { productRoots: ['src'] }), 'contract_path_outside_roots', ['$.evidence[0].paths[0]']],
  ['path equal to a root', 'spec', (c, f) => { setFacts(f, { productRoots: ['src', 'test'] }); c.implementations[0]!.paths = ['src']; }, 'contract_path_outside_roots', ['$.implementations[0].paths[0]']],
  ['root with ..', 'spec', (_c, f) => setFacts(f, { productRoots: ['../other'] }), 'contract_product_root_invalid', ['product_roots[0]']],
  ['no roots', 'spec', (_c, f) => setFacts(f, { productRoots: [] }), 'contract_product_root_invalid', ['product_roots']],
  // sources and spans
  ['source bytes missing', 'spec', (_c, f) => setFacts(f, { sourceBytes: new Map() }), 'contract_source_bytes_missing', ['SRC-1']],
  ['source not UTF-8', 'spec', (_c, f) => {
    const bytes = new Uint8Array(specExample().bytes);
    bytes[100] = 0xff;
    setFacts(f, { sourceBytes: new Map([['SRC-1', bytes]]) });
  }, 'contract_source_not_utf8', ['SRC-1']],
  ['empty span', 'spec', (c) => { atom(c, 1).span = [74, 74]; }, 'contract_span_empty', ['ATOM-2']],
  ['reversed span', 'spec', (c) => { atom(c, 1).span = [130, 74]; }, 'contract_span_empty', ['ATOM-2']],
  ['span out of range', 'spec', (c) => { atom(c, 1).span = [74, 131]; }, 'contract_span_out_of_range', ['ATOM-2']],
  ['span mid-character (inside the em dash)', 'spec', (c) => {
    atom(c, 1).span = [74, 120];
    s0(c).atoms.push({ id: 'ATOM-3', span: [120, 130], kind: 'context', directives: [] });
  }, 'contract_span_not_char_boundary', ['ATOM-2']],
  ['gap between atoms', 'spec', (c) => { atom(c, 0).span = [0, 70]; }, 'contract_span_gap', ['ATOM-1', 'ATOM-2']],
  ['gap at start', 'spec', (c) => { atom(c, 0).span = [1, 74]; }, 'contract_span_gap', ['SRC-1^', 'ATOM-1']],
  ['gap at end', 'spec', (c) => { atom(c, 1).span = [74, 129]; }, 'contract_span_gap', ['ATOM-2', 'SRC-1$']],
  ['overlap', 'spec', (c) => { atom(c, 0).span = [0, 75]; }, 'contract_span_overlap', ['ATOM-1', 'ATOM-2']],
  // atoms and directives
  ['obligation unmapped', 'spec', (c) => { atom(c, 0).directives = []; }, 'contract_obligation_unmapped', ['ATOM-1']],
  ['context mapped', 'spec', (c) => { atom(c, 1).directives = ['DIR-1']; }, 'contract_context_mapped', ['ATOM-2']],
  ['obligation in a context source', 'spec', (c) => { s0(c).class = 'context'; }, 'contract_obligation_outside_directive_source', ['SRC-1', 'ATOM-1']],
  ['directive source without obligation', 'spec', (c) => {
    atom(c, 0).kind = 'context';
    atom(c, 0).directives = [];
  }, 'contract_source_without_obligation', ['SRC-1']],
  ['active directive without target', 'spec', (c) => { d0(c).targets = []; }, 'contract_directive_without_target', ['DIR-1']],
  ['done directive without criterion', 'spec', (c) => { d0(c).state = 'done'; d0(c).criteria = []; }, 'contract_directive_without_criterion', ['DIR-1']],
  ['criterion names an atom of another directive', 'spec', (c) => { d0(c).criteria[0]!.atoms = ['ATOM-2']; }, 'contract_criterion_atom_unmapped', ['AC-1', 'ATOM-2']],
  ['atom not verbatim', 'spec', (c) => { d0(c).statement = 'Add an export command that writes every receipt of the unit to a folder.'; }, 'contract_atom_not_verbatim', ['ATOM-1', 'DIR-1']],
  ['atom not verbatim (one byte short)', 'deferral', (c) => { d1(c).statement = 'Also add a CSV export'; }, 'contract_atom_not_verbatim', ['ATOM-3', 'DIR-2']],
  ['mapping: directive does not list the source', 'spec', (c) => { d0(c).sources = []; }, 'contract_mapping_source_not_listed', ['ATOM-1', 'DIR-1']],
  ['mapping: source listed without a mapped atom', 'spec', (c, f) => {
    c.sources.push({ id: 'SRC-2', path: 'requests/rfc.md', class: 'reference', atoms: [{ id: 'ATOM-9', span: [0, 9], kind: 'context', directives: [] }] });
    d0(c).sources = ['SRC-1', 'SRC-2'];
    setFacts(f, { sourceBytes: new Map([...f.facts.sourceBytes, ['SRC-2', new TextEncoder().encode('See RFC.\n')]]) });
  }, 'contract_mapping_source_unbacked', ['DIR-1', 'SRC-2']],
  // disposal by tombstone
  ['deferred without tombstone', 'deferral', (c) => { c.tombstones = []; }, 'contract_directive_undisposed', ['DIR-2']],
  ['abandoned without tombstone', 'spec', (c) => { d0(c).state = 'abandoned'; }, 'contract_directive_undisposed', ['DIR-1']],
  ['two tombstones for one directive', 'deferral', (c) => { c.tombstones.push({ ...c.tombstones[0]!, id: 'TMB-2' }); }, 'contract_tombstone_duplicate', ['DIR-2']],
  ['tombstone on an active directive', 'deferral', (c) => { d1(c).state = 'active'; }, 'contract_tombstone_directive_live', ['TMB-1', 'DIR-2']],
  ['operation does not match state', 'deferral', (c) => { d1(c).state = 'abandoned'; }, 'contract_tombstone_operation_mismatch', ['TMB-1', 'AUTH-2']],
  ['disposes misses a relation', 'deferral', (c) => {
    c.tombstones[0]!.disposes = DIR2_DISPOSES.filter((x) => x !== 'DIR-2>IMP-2');
  }, 'contract_tombstone_disposes_mismatch', ['TMB-1', 'missing:DIR-2>IMP-2']],
  ['disposes names an extra item', 'deferral', (c) => { c.tombstones[0]!.disposes.push('TGT-1'); }, 'contract_tombstone_disposes_mismatch', ['TMB-1', 'extra:TGT-1']],
  ['disposes repeats an entry', 'deferral', (c) => { c.tombstones[0]!.disposes.push('DIR-2'); }, 'contract_tombstone_disposes_mismatch', ['TMB-1']],
  ['disposes misses a newly added target', 'deferral', (c) => { d1(c).targets.push({ id: 'TGT-3', paths: ['src/csv.ts'] }); }, 'contract_tombstone_disposes_mismatch', ['TMB-1', 'missing:DIR-2>TGT-3', 'missing:TGT-3']],
  ['directive-less tombstone names a live item', 'deferral', (c) => {
    c.tombstones.push({ id: 'TMB-2', authority: 'AUTH-2', disposes: ['TGT-1'] });
  }, 'contract_tombstone_disposes_live', ['TMB-2', 'TGT-1']],
  ['authority record not valid', 'deferral', (_c, f) => setFacts(f, { isValidAuthority: () => false }), 'contract_tombstone_authority_invalid', ['TMB-1', 'AUTH-2']],
  ['authority record valid for another operation only', 'deferral', (c) => { c.authorities[0]!.record = 'REC-3f2a9c'; }, 'contract_tombstone_authority_invalid', ['TMB-1', 'AUTH-2']],
  ['no authority verdict supplied (fail closed)', 'deferral', (_c, f) => setFacts(f, { isValidAuthority: undefined }), 'contract_tombstone_authority_invalid', ['TMB-1', 'AUTH-2']],
];

function base(which: 'spec' | 'deferral'): { contract: Contract; facts: ContractFacts } {
  if (which === 'spec') {
    const { contract, facts } = specExample();
    return { contract, facts };
  }
  return deferralExample();
}

describe('validateContract (docs/contract.md#validation-rules)', () => {
  it('accepts the docs/contract.md#the-request-contract example with real byte spans and returns its ID projection', () => {
    const { contract, facts } = specExample();
    const projection = validateContract(contract, facts);
    expect(projection.ids.atoms).toEqual(['ATOM-1', 'ATOM-2']);
    expect(projection.relations).toEqual(['ATOM-1>AC-1', 'ATOM-1>DIR-1', 'DIR-1>AC-1', 'DIR-1>EVD-1', 'DIR-1>IMP-1', 'DIR-1>TGT-1']);
  });

  it('accepts a deferred directive disposed by an exact tombstone with a valid authority', () => {
    const { contract, facts } = deferralExample();
    expect(() => validateContract(contract, facts)).not.toThrow();
  });

  it('accepts the disposes list in any order', () => {
    const { contract, facts } = deferralExample();
    contract.tombstones[0]!.disposes.reverse();
    expect(() => validateContract(contract, facts)).not.toThrow();
  });

  it('accepts an atom that appears verbatim only in a criterion', () => {
    const { contract, facts } = specExample();
    contract.directives[0]!.statement = 'Export receipts.';
    contract.directives[0]!.criteria[0]!.statement = 'Add an `export` command that writes every receipt of the unit to a folder.';
    expect(() => validateContract(contract, facts)).not.toThrow();
  });

  it('accepts a directive-less tombstone recording removed items under a valid authority', () => {
    const { contract, facts } = deferralExample();
    contract.authorities.push({ id: 'AUTH-3', operation: 'replace', record: 'REC-88bb' });
    contract.tombstones.push({ id: 'TMB-2', authority: 'AUTH-3', disposes: ['TGT-7', 'DIR-1>TGT-7'] });
    expect(() => validateContract(contract, facts)).not.toThrow();
    expect(caught(() => validateContract(contract, { ...facts, isValidAuthority: (r, op) => isValidAuthority(r, op) && op !== 'replace' })).code).toBe(
      'contract_tombstone_authority_invalid',
    );
  });

  it('accepts paths inside a named product root', () => {
    const { contract, facts } = specExample();
    expect(() => validateContract(contract, { ...facts, productRoots: ['src', 'test'] })).not.toThrow();
  });

  it('accepts an empty context source with no atoms', () => {
    const { contract, facts } = specExample();
    contract.sources.push({ id: 'SRC-2', path: 'requests/empty.md', class: 'context', atoms: [] });
    const sourceBytes = new Map([...facts.sourceBytes, ['SRC-2', new Uint8Array()]]);
    expect(() => validateContract(contract, { ...facts, sourceBytes })).not.toThrow();
  });

  it.each(rows)('refuses: %s', (_name, which, mutate, code, ids) => {
    const b = base(which);
    const holder = { facts: b.facts };
    mutate(b.contract, holder);
    const err = caught(() => validateContract(b.contract, holder.facts));
    expect(err.code).toBe(code);
    expect(err.ids).toEqual(ids);
  });

  it('never puts source text, statements or paths into an error', () => {
    const { contract, facts } = specExample();
    contract.directives[0]!.statement = 'SECRET-STATEMENT';
    const err = caught(() => validateContract(contract, facts));
    expect(err.code).toBe('contract_atom_not_verbatim');
    expect(err.json).not.toContain('SECRET');
    expect(err.json).not.toContain('export');
    const pathErr = caught(() => validateContract({ ...contract, evidence: [{ id: 'EVD-1', kind: 'test', paths: ['/SECRET/path'] }] }, facts));
    expect(pathErr.code).toBe('contract_path_invalid');
    expect(pathErr.json).not.toContain('SECRET');
  });
});
