// docs/contract.md#validation-rules change coverage (`contract_change_uncovered`) and the docs/reviewers.md#the-reviewers-world ID projection of a contract
// (coverage kinds and `FROM>TO` relations).
import { describe, expect, it } from 'vitest';
import {
  assertChangeCoverage,
  checkChangeCoverage,
  contractIdsByKind,
  contractRelations,
} from '../src/core/contract/validate.js';
import { caught, deferralExample, specExample } from './contract-fixtures.js';

describe('checkChangeCoverage (docs/contract.md#validation-rules)', () => {
  it('covers target, implementation and evidence paths of live directives', () => {
    const { contract } = specExample();
    const result = checkChangeCoverage(contract, ['src/export.ts', 'test/export.test.ts']);
    expect(result).toMatchObject({ covered: true, uncoveredCount: 0, uncoveredPaths: [], error: null });
    expect(() => assertChangeCoverage(contract, [])).not.toThrow();
  });

  it('reports uncovered paths by count in the error and by value only in a separate field', () => {
    const { contract } = specExample();
    const result = checkChangeCoverage(contract, ['secret/zeta.ts', 'src/export.ts', 'secret/alpha.ts', 'secret/alpha.ts']);
    expect(result.covered).toBe(false);
    expect(result.uncoveredCount).toBe(2);
    expect(result.uncoveredPaths).toEqual(['secret/alpha.ts', 'secret/zeta.ts']);
    expect(result.error?.code).toBe('contract_change_uncovered');
    expect(result.error?.ids).toEqual(['uncovered:2']);
    const err = caught(() => assertChangeCoverage(contract, ['secret/zeta.ts']));
    expect(err.code).toBe('contract_change_uncovered');
    expect(err.ids).toEqual(['uncovered:1']);
    expect(err.json).not.toContain('secret');
  });

  it('a directory path never covers the files below it', () => {
    const { contract } = specExample();
    contract.implementations[0]!.paths = ['src'];
    expect(checkChangeCoverage(contract, ['src/export.ts']).uncoveredPaths).toEqual([]); // still a target path
    contract.directives[0]!.targets[0]!.paths = ['src'];
    expect(checkChangeCoverage(contract, ['src/export.ts']).uncoveredCount).toBe(1);
  });

  it('a deferred directive covers nothing', () => {
    const { contract } = deferralExample(true);
    expect(checkChangeCoverage(contract, ['src/export-csv.ts']).uncoveredCount).toBe(1);
    const active = deferralExample(false).contract;
    expect(checkChangeCoverage(active, ['src/export-csv.ts']).covered).toBe(true);
  });
});

describe('contract ID projection (docs/reviewers.md#the-reviewers-world)', () => {
  it('lists every kind sorted by UTF-8 bytes', () => {
    const { contract } = deferralExample(true);
    expect(contractIdsByKind(contract)).toEqual({
      sources: ['SRC-1'],
      atoms: ['ATOM-1', 'ATOM-2', 'ATOM-3', 'ATOM-4'],
      directives: ['DIR-1', 'DIR-2'],
      targets: ['TGT-1', 'TGT-2'],
      criteria: ['AC-1', 'AC-2'],
      implementations: ['IMP-1', 'IMP-2'],
      evidence: ['EVD-1'],
      authorities: ['AUTH-2'],
      tombstones: ['TMB-1'],
    });
  });

  it('lists every FROM>TO edge of the contract, including tombstone and authority edges', () => {
    const { contract } = deferralExample(true);
    expect(contractRelations(contract)).toEqual([
      'ATOM-1>AC-1',
      'ATOM-1>DIR-1',
      'ATOM-3>AC-2',
      'ATOM-3>DIR-2',
      'AUTH-2>TMB-1',
      'DIR-1>AC-1',
      'DIR-1>EVD-1',
      'DIR-1>IMP-1',
      'DIR-1>TGT-1',
      'DIR-2>AC-2',
      'DIR-2>IMP-2',
      'DIR-2>TGT-2',
      'TMB-1>DIR-2',
    ]);
  });

  it('sorts by bytes, not by locale ("Z" before "a", "-" before "0")', () => {
    const { contract } = specExample();
    contract.directives[0]!.targets.push({ id: 'TGT-a', paths: ['src/a.ts'] }, { id: 'TGT-Z', paths: ['src/z.ts'] }, { id: 'TGT-1-x', paths: ['src/x.ts'] });
    expect(contractIdsByKind(contract).targets).toEqual(['TGT-1', 'TGT-1-x', 'TGT-Z', 'TGT-a']);
  });
});
