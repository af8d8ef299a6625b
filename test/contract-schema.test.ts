// docs/contract.md#the-request-contract schema and docs/contract.md#validation-rules parsing rules: strict YAML/JSON, closed objects, one error code per kind
// of schema failure with the field path as id (never the value or an unknown key's name).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseContract } from '../src/core/contract/schema.js';
import { parseContractText } from '../src/core/contract/text.js';
import { caught, fixturePath, specExample } from './contract-fixtures.js';

const rawExample = (): Record<string, unknown> => JSON.parse(JSON.stringify(specExample().contract)) as Record<string, unknown>;
type Raw = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const rows: [name: string, mutate: (r: Raw) => void, code: string, id: string][] = [
  ['wrong kind', (r) => { r.kind = 'governed/policy'; }, 'contract_kind_invalid', '$.kind'],
  ['missing kind', (r) => { delete r.kind; }, 'contract_field_missing', '$.kind'],
  ['version 2', (r) => { r.version = 2; }, 'contract_version_unsupported', '$.version'],
  ['version as string', (r) => { r.version = '1'; }, 'contract_version_unsupported', '$.version'],
  ['unknown top-level key', (r) => { r.notes = 'x'; }, 'contract_field_unknown', '$'],
  ['unknown atom key', (r) => { r.sources[0].atoms[0].text = 'x'; }, 'contract_field_unknown', '$.sources[0].atoms[0]'],
  ['unknown tombstone key', (r) => { r.tombstones = [{ id: 'TMB-1', authority: 'AUTH-1', disposes: ['DIR-1'], reason: 'x' }]; }, 'contract_field_unknown', '$.tombstones[0]'],
  ['missing statement', (r) => { delete r.directives[0].statement; }, 'contract_field_missing', '$.directives[0].statement'],
  ['missing tombstones list', (r) => { delete r.tombstones; }, 'contract_field_missing', '$.tombstones'],
  ['unknown state', (r) => { r.directives[0].state = 'finished'; }, 'contract_field_invalid', '$.directives[0].state'],
  ['unknown source class', (r) => { r.sources[0].class = 'summary'; }, 'contract_field_invalid', '$.sources[0].class'],
  ['unknown atom kind', (r) => { r.sources[0].atoms[0].kind = 'hint'; }, 'contract_field_invalid', '$.sources[0].atoms[0].kind'],
  ['unknown evidence kind', (r) => { r.evidence[0].kind = 'vibes'; }, 'contract_field_invalid', '$.evidence[0].kind'],
  ['unknown authority operation', (r) => { r.authorities[0].operation = 'policy_update'; }, 'contract_field_invalid', '$.authorities[0].operation'],
  ['negative span', (r) => { r.sources[0].atoms[0].span = [-1, 74]; }, 'contract_field_invalid', '$.sources[0].atoms[0].span[0]'],
  ['fractional span', (r) => { r.sources[0].atoms[0].span = [0.5, 74]; }, 'contract_field_invalid', '$.sources[0].atoms[0].span[0]'],
  ['span of three numbers', (r) => { r.sources[0].atoms[0].span = [0, 10, 74]; }, 'contract_field_too_large', '$.sources[0].atoms[0].span'],
  ['span of one number', (r) => { r.sources[0].atoms[0].span = [0]; }, 'contract_field_invalid', '$.sources[0].atoms[0].span'],
  ['empty title', (r) => { r.title = ''; }, 'contract_field_invalid', '$.title'],
  ['title too long', (r) => { r.title = 'x'.repeat(65_537); }, 'contract_field_too_large', '$.title'],
  ['target without paths', (r) => { r.directives[0].targets[0].paths = []; }, 'contract_field_invalid', '$.directives[0].targets[0].paths'],
  ['tombstone disposing nothing', (r) => { r.tombstones = [{ id: 'TMB-1', authority: 'AUTH-1', disposes: [] }]; }, 'contract_field_invalid', '$.tombstones[0].disposes'],
  ['sources not a list', (r) => { r.sources = {}; }, 'contract_field_invalid', '$.sources'],
];

describe('parseContract (docs/contract.md#the-request-contract)', () => {
  it('parses the docs/contract.md#the-request-contract example from YAML', () => {
    const { contract } = specExample();
    expect(contract.sources[0]!.atoms.map((a) => a.span)).toEqual([[0, 74], [74, 130]]);
    expect(contract.directives[0]!.targets[0]!.paths).toEqual(['src/export.ts']);
  });

  it('parses the same contract from JSON identically', () => {
    const { contract } = specExample();
    expect(parseContractText(JSON.stringify(contract), 'contract.json')).toEqual(contract);
  });

  it('parses a tombstone with and without its optional directive', () => {
    const r = rawExample();
    r.tombstones = [
      { id: 'TMB-1', directive: 'DIR-1', authority: 'AUTH-1', disposes: ['DIR-1'] },
      { id: 'TMB-2', authority: 'AUTH-1', disposes: ['TGT-9'] },
    ];
    const parsed = parseContract(r);
    expect(parsed.tombstones[1]).toEqual({ id: 'TMB-2', authority: 'AUTH-1', disposes: ['TGT-9'] });
    expect('directive' in parsed.tombstones[1]!).toBe(false);
  });

  it.each(rows)('refuses: %s', (_name, mutate, code, id) => {
    const r = rawExample();
    mutate(r);
    const err = caught(() => parseContract(r));
    expect(err.code).toBe(code);
    expect(err.ids).toEqual([id]);
  });

  it('refuses a non-object', () => {
    expect(caught(() => parseContract([])).code).toBe('contract_field_invalid');
    expect(caught(() => parseContract(null)).ids).toEqual(['$']);
  });

  it('never echoes a rejected value or an unknown key name', () => {
    const r = rawExample();
    (r.directives as Raw[])[0]!.state = 'SECRET-VALUE';
    expect(caught(() => parseContract(r)).json).not.toContain('SECRET');
    const r2 = rawExample();
    r2.SECRET_KEY = 1;
    expect(caught(() => parseContract(r2)).json).not.toContain('SECRET');
  });

  it.each([
    ['duplicate-key.yaml', 'yaml_duplicate_key'],
    ['duplicate-key.json', 'json_duplicate_key'],
    ['alias.yaml', 'yaml_alias_refused'],
    ['unknown-field.yaml', 'contract_field_unknown'],
  ])('refuses the file fixture %s with %s', (file, code) => {
    const text = readFileSync(fixturePath(`invalid/${file}`), 'utf8');
    expect(caught(() => parseContractText(text, file)).code).toBe(code);
  });
});
