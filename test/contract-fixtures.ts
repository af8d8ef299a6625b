// Shared fixtures of the contract tests: the docs/contract.md#the-request-contract example (read from its real files) and a
// two-directive contract with a deferred directive disposed by tombstone (docs/contract.md#validation-rules).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Contract } from '../src/core/contract/schema.js';
import { parseContractText } from '../src/core/contract/text.js';
import type { ContractFacts } from '../src/core/contract/validate.js';

const dir = fileURLToPath(new URL('./fixtures/contracts/', import.meta.url));

export function fixturePath(rel: string): string {
  return `${dir}${rel}`;
}

export function specExample(): { contract: Contract; bytes: Uint8Array; facts: ContractFacts } {
  const contract = parseContractText(readFileSync(fixturePath('spec-example/contract.yaml'), 'utf8'), 'contract.yaml');
  const bytes = new Uint8Array(readFileSync(fixturePath('spec-example/requests/export.md')));
  return { contract, bytes, facts: { sourceBytes: new Map([['SRC-1', bytes]]), productRoots: ['.'] } };
}

/** Valid signed authority records known to the (test) caller: record id → operation. */
export const VALID_RECORDS: ReadonlyMap<string, string> = new Map([
  ['REC-77aa', 'defer'],
  ['REC-3f2a9c', 'authorize'],
  ['REC-88bb', 'replace'],
]);

export const isValidAuthority = (record: string, operation: string): boolean => VALID_RECORDS.get(record) === operation;

export const DEFERRAL_SOURCE = 'Export receipts as JSON.\nAlso add a CSV export.\nThanks.\n';

/** The exact `disposes` list DIR-2's tombstone must carry, written out by hand (not computed). */
export const DIR2_DISPOSES = [
  'DIR-2',
  'TGT-2',
  'AC-2',
  'IMP-2',
  'ATOM-3>DIR-2',
  'DIR-2>TGT-2',
  'DIR-2>AC-2',
  'ATOM-3>AC-2',
  'DIR-2>IMP-2',
];

/** Two directives over one source; DIR-2 deferred (or `active` with `deferred: false`). */
export function deferralExample(deferred = true): { contract: Contract; facts: ContractFacts } {
  const contract: Contract = {
    kind: 'governed/request-contract',
    version: 1,
    title: 'Export receipts',
    sources: [
      {
        id: 'SRC-1',
        path: 'requests/export.md',
        class: 'directive',
        atoms: [
          { id: 'ATOM-1', span: [0, 24], kind: 'obligation', directives: ['DIR-1'] },
          { id: 'ATOM-2', span: [24, 25], kind: 'context', directives: [] },
          { id: 'ATOM-3', span: [25, 47], kind: 'obligation', directives: ['DIR-2'] },
          { id: 'ATOM-4', span: [47, 56], kind: 'context', directives: [] },
        ],
      },
    ],
    directives: [
      {
        id: 'DIR-1',
        statement: 'Export receipts as JSON.',
        state: 'active',
        sources: ['SRC-1'],
        targets: [{ id: 'TGT-1', paths: ['src/export.ts'] }],
        criteria: [{ id: 'AC-1', statement: 'One JSON file per receipt.', atoms: ['ATOM-1'] }],
        implementations: ['IMP-1'],
        evidence: ['EVD-1'],
      },
      {
        id: 'DIR-2',
        statement: 'Also add a CSV export.',
        state: deferred ? 'deferred' : 'active',
        sources: ['SRC-1'],
        targets: [{ id: 'TGT-2', paths: ['src/export-csv.ts'] }],
        criteria: [{ id: 'AC-2', statement: 'A CSV file lists every receipt.', atoms: ['ATOM-3'] }],
        implementations: ['IMP-2'],
        evidence: [],
      },
    ],
    implementations: [
      { id: 'IMP-1', paths: ['src/export.ts'] },
      { id: 'IMP-2', paths: ['src/export-csv.ts'] },
    ],
    evidence: [{ id: 'EVD-1', kind: 'test', paths: ['test/export.test.ts'] }],
    authorities: deferred ? [{ id: 'AUTH-2', operation: 'defer', record: 'REC-77aa' }] : [],
    tombstones: deferred ? [{ id: 'TMB-1', directive: 'DIR-2', authority: 'AUTH-2', disposes: [...DIR2_DISPOSES] }] : [],
  };
  return {
    contract,
    facts: {
      sourceBytes: new Map([['SRC-1', new TextEncoder().encode(DEFERRAL_SOURCE)]]),
      productRoots: ['.'],
      isValidAuthority,
    },
  };
}

/** Run `fn` and return the GovernedError's code and ids (fails the test if nothing is thrown). */
export function caught(fn: () => unknown): { code: string; ids: readonly string[]; json: string } {
  try {
    fn();
  } catch (e) {
    const err = e as { code?: string; ids?: readonly string[]; toJSON?: () => unknown };
    if (typeof err.code !== 'string') throw e;
    return { code: err.code, ids: err.ids ?? [], json: JSON.stringify(err.toJSON?.() ?? err) };
  }
  throw new Error('expected a GovernedError, nothing was thrown');
}
