// The published JSON Schemas (docs/schemas/*.schema.json) are generated from the one definition of
// each format and not stale, and an independent validator (ajv, draft 2020-12) accepts the real
// documents a real store and real CLI runs produce (`governed audit export` of a world that went
// through init, unit create, challenges and receipts) and refuses one mutated document per schema.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCheckpointStatement } from '../src/core/checkpoint.js';
import { publishedJsonSchemas } from '../src/core/json-schemas.js';
import { buildVsaStatement } from '../src/core/vsa.js';
import { REPO_ROOT } from './helpers/cli.js';
import { sampleDecisionForVsa, tempDir } from './helpers/receipts.js';
import { eligibleStory, type Story } from './gate-world.js';
import { gov } from './state-helpers.js';

const DIR = join(REPO_ROOT, 'docs', 'schemas');
const generated = publishedJsonSchemas();

describe('docs/schemas is generated and not stale (npm run schemas:doc)', () => {
  it('holds exactly one file per published schema', () => {
    expect(readdirSync(DIR).sort()).toEqual(Object.keys(generated).map((s) => `${s}.schema.json`).sort());
  });
  it.each(Object.keys(generated))('%s.schema.json equals what the definition generates', (stem) => {
    expect(readFileSync(join(DIR, `${stem}.schema.json`), 'utf8')).toBe(`${JSON.stringify(generated[stem], null, 2)}\n`);
  });
});

type Json = Record<string, unknown>;
const ajv = new Ajv2020({ strict: false, allErrors: false });
const validators = Object.fromEntries(
  Object.keys(generated).map((stem) => [stem, ajv.compile(JSON.parse(readFileSync(join(DIR, `${stem}.schema.json`), 'utf8')) as Json)]),
);
const valid = (stem: string, doc: unknown): boolean => validators[stem]?.(doc) === true;

let story: Story;
let docs: Record<string, unknown>;

beforeAll(() => {
  story = eligibleStory();
  const out = join(tempDir('governed-schemas-export-'), 'audit');
  const r = gov(story.w, ['audit', 'export', '--out', out, '--json']);
  expect(r.code, r.stderr).toBe(0);
  const read = (p: string): unknown => JSON.parse(readFileSync(join(out, p), 'utf8'));
  const files = readdirSync(out);
  const receipt = read(join('receipts', readdirSync(join(out, 'receipts'))[0] as string)) as { payload: string };
  const statement = JSON.parse(Buffer.from(receipt.payload, 'base64').toString('utf8')) as { predicate: unknown };
  const bundleDir = join(story.w.home, 'bundles');
  const bundleFile = readdirSync(bundleDir).find((f) => f.endsWith('.json')) as string;
  docs = {
    'export-manifest': read('manifest.json'),
    policy: read(files.find((f) => f.startsWith('policy.pinned.json')) as string),
    'trust-root': read(files.find((f) => f.startsWith('trust.pinned.json')) as string),
    'dsse-envelope': receipt,
    'receipt-predicate': statement.predicate,
    'request-contract': JSON.parse(readFileSync(story.w.contractFile, 'utf8')),
    bundle: JSON.parse(readFileSync(join(bundleDir, bundleFile), 'utf8')),
    // Built by the product's own builders (the gate's and `audit checkpoint`'s) and, for the authority
    // predicate, by hand after docs/authority.md: not CLI runs here (the story signs no VSA, checkpoint or record).
    vsa: buildVsaStatement(sampleDecisionForVsa()).predicate,
    checkpoint: buildCheckpointStatement({
      trust_mode: 'co-located', log_entries: 3, log_head: `sha256:${'a'.repeat(64)}`, state_digest: `sha256:${'b'.repeat(64)}`,
      policy_digest: `sha256:${'c'.repeat(64)}`, trust_digest: `sha256:${'d'.repeat(64)}`, attestor_sha256: 'e'.repeat(64), made_at: '2026-11-30T00:00:00Z',
    }).predicate,
    'authority-predicate': {
      operation: 'authorize', ids: ['DIR-1'], unit: `UNIT-${'a'.repeat(32)}`, state_before: `sha256:${'b'.repeat(64)}`, state_after: null,
      nonce: 'a'.repeat(64), request_id: `ARQ-${'c'.repeat(32)}`, issued_at: '2026-11-30T00:00:00Z', expires_at: '2026-11-30T01:00:00Z',
    },
  };
}, 300_000);

/** One mutation per schema that the one definition refuses and ajv must refuse too. */
const MUTATIONS: Record<string, (d: Json) => void> = {
  policy: (d) => (d.unknown_field = 1),
  'trust-root': (d) => ((d.keys as Json[])[0]!.roles = ['root']),
  'request-contract': (d) => (d.kind = 'governed/other'),
  'receipt-predicate': (d) => (d.verdict = 'MAYBE'),
  'authority-predicate': (d) => (d.request_id = 'x'),
  vsa: (d) => (d.slsaVersion = '0.2'),
  checkpoint: (d) => (d.log_entries = 0),
  'dsse-envelope': (d) => (d.signatures = 'none'),
  'export-manifest': (d) => ((d.log as Json).head = 'sha256:xyz'),
  bundle: (d) => (d.schema = 'governed.review-bundle/v0'),
};

describe('ajv (draft 2020-12) judges real documents by the published schemas', () => {
  it('covers every schema', () => {
    expect(Object.keys(docs).sort()).toEqual(Object.keys(generated).sort());
    expect(Object.keys(MUTATIONS).sort()).toEqual(Object.keys(generated).sort());
  });
  it.each(Object.keys(generated))('%s: the real document is valid', (stem) => {
    expect(valid(stem, docs[stem]), JSON.stringify(validators[stem]?.errors?.slice(0, 2))).toBe(true);
  });
  it.each(Object.keys(generated))('%s: one mutated document is refused', (stem) => {
    const d = structuredClone(docs[stem]) as Json;
    MUTATIONS[stem]!(d);
    expect(valid(stem, d)).toBe(false);
  });
});
