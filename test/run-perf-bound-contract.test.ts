// review-run's drift check re-parses the bound contract with `parseBoundContract`
// (src/flows/run/bound-contract.ts: the one `contractSchema` first, the reference parser
// for anything it refuses). It must behave exactly like the reference `parseContractBytes`
// (src/flows/unit-contract.ts) on every input: both accept with the same value (same canonical
// bytes, same contract digest) or both refuse with the same error code and IDs — over the documented
// example and the issue fixture as JSON and as YAML, hundreds of mutations of each, and texts that
// are not contracts at all (not UTF-8, not JSON/YAML, duplicate keys, YAML aliases).
import { readFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/core/canonical.js';
import { contractDigest } from '../src/core/contract/digests.js';
import { isGovernedError } from '../src/core/errors.js';
import { parseBoundContract } from '../src/flows/run/bound-contract.js';
import { parseContractBytes } from '../src/flows/unit-contract.js';
import { fixturePath, specExample } from './contract-fixtures.js';
import { contractDoc } from './state-helpers.js';
import { mutations, type Json } from './schema-mutations.js';

type Outcome = { ok: string; digest: string } | { code: string; ids: readonly string[] };

async function outcomeOf(fn: () => unknown): Promise<Outcome> {
  try {
    const v = (await fn()) as Parameters<typeof contractDigest>[0];
    return { ok: canonicalJson(v as never), digest: contractDigest(v) };
  } catch (e) {
    if (isGovernedError(e)) return { code: e.code, ids: e.ids };
    throw e;
  }
}

async function expectSame(label: string, bytes: Uint8Array): Promise<Outcome> {
  const reference = await outcomeOf(() => parseContractBytes(bytes));
  const lean = await outcomeOf(() => parseBoundContract(bytes));
  expect(lean, label).toEqual(reference);
  return reference;
}

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const asJson = (v: Json): Uint8Array => utf8(JSON.stringify(v));
// Block-style YAML (never starting with `{` or `[`, so it is read as YAML by content).
const asYaml = (v: Json): Uint8Array => utf8(stringify(v, { aliasDuplicateObjects: false }));

const bases = (): [string, Json][] => [
  ['documented example', structuredClone(specExample().contract) as unknown as Json],
  ['issue fixture', contractDoc() as unknown as Json],
];

describe('parseBoundContract ≡ parseContractBytes (drift.ts contract re-parse)', () => {
  it('accepts the valid contracts, JSON and YAML, with the same value and digest', async () => {
    for (const [name, doc] of bases()) {
      for (const [form, bytes] of [['json', asJson(doc)], ['yaml', asYaml(doc)]] as const) {
        const r = await expectSame(`${name} ${form}`, bytes);
        expect('ok' in r, `${name} ${form}`).toBe(true);
      }
    }
    // The committed YAML example, byte for byte as a user wrote it.
    const file = readFileSync(fixturePath('spec-example/contract.yaml'));
    expect('ok' in (await expectSame('spec-example/contract.yaml', file))).toBe(true);
  });

  it('agrees on every mutation of every field (JSON), and on a sample of them as YAML', async () => {
    let n = 0;
    let refused = 0;
    for (const [name, doc] of bases()) {
      let i = 0;
      for (const [label, m] of mutations(doc)) {
        const r = await expectSame(`${name} json ${label}`, asJson(m));
        if (!('ok' in r)) refused++;
        // Every 7th mutation again as YAML: the YAML branch of the same parser.
        if (i++ % 7 === 0) await expectSame(`${name} yaml ${label}`, asYaml(m));
        n++;
      }
    }
    expect(n).toBeGreaterThan(1000);
    // The mutations really exercise refusals (the test could fail), and acceptances too.
    expect(refused).toBeGreaterThan(500);
    expect(n - refused).toBeGreaterThan(10);
  });

  it('agrees on texts that are not contracts', async () => {
    const valid = new TextDecoder().decode(asJson(contractDoc() as unknown as Json));
    const cases: [string, Uint8Array][] = [
      ['not UTF-8', Uint8Array.from([0x7b, 0xff, 0xfe, 0x7d])],
      ['empty', utf8('')],
      ['JSON array', utf8('[]')],
      ['JSON scalar in YAML', utf8('42')],
      ['truncated JSON', utf8(valid.slice(0, -1))],
      ['duplicate key', utf8(valid.replace('{', '{"kind":"x",'))],
      ['trailing garbage', utf8(`${valid} x`)],
      ['BOM', utf8(`\ufeff${valid}`)],
      ['YAML alias', utf8('a: &x 1\nb: *x\n')],
      ['YAML tag', utf8('kind: !foo governed/request-contract\n')],
      ['YAML duplicate key', utf8('kind: a\nkind: b\n')],
      ['YAML not a mapping', utf8('- 1\n- 2\n')],
      ['lone surrogate escape', utf8(valid.replace('"title":"', '"title":"\\ud800'))],
    ];
    for (const [label, bytes] of cases) {
      const r = await expectSame(label, bytes);
      expect('code' in r, label).toBe(true);
    }
  });
});
