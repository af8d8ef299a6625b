// Guards the compiled formats (docs/architecture.md#compiled-formats): the committed
// src/core/format/compiled.ts is exactly what the one zod/mini definitions compile to (not stale),
// and checking a value against a compiled form agrees with the definition's own parser on every
// real document and every mutation of it (test/schema-mutations.ts): the same values accepted, the
// same output (key order included), and the same issue paths in the same order. Also: the compiler
// refuses what the checker does not implement (an unnamed refinement, a transform, a default), so
// a definition can never compile to something weaker than itself.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { compileFormats, emitFormatsModule } from '../src/core/format/compile.js';
import { COMPILED_DEFINITIONS, COMPILED_HEADER } from '../src/core/format/definitions.js';
import * as COMPILED from '../src/core/format/compiled.js';
import { checkFormat } from '../src/core/format/interpret.js';
import type { CompiledForm } from '../src/core/format/node.js';
import { REFINEMENTS } from '../src/core/format/refinements.js';
import { parseStructured } from '../src/core/strict-parse.js';
import { parseJsonStrict } from '../src/core/strict-json.js';
import { mutations, type Json } from './schema-mutations.js';
import { sampleDecisionForVsa, samplePredicate, statementFor, trustRootDoc } from './helpers/receipts.js';
import { buildCheckpointStatement } from '../src/core/checkpoint.js';
import { buildVsaStatement } from '../src/core/vsa.js';
import { REPO_ROOT } from './helpers/cli.js';
import { bundleOf, cleanScenario } from './reviewer-coverage-helpers.js';

const H = (c: string): string => c.repeat(64);
const read = (p: string): string => readFileSync(join(REPO_ROOT, p), 'utf8');

const egressPolicy = {
  provider: 'anthropic',
  model: 'claude-x',
  host: 'api.example.com',
  port: 443,
  transport: 'tls',
  ca: { file: '/etc/ca.pem', sha256: H('1') },
  allow_loopback: false,
  routes: [{ method: 'POST', path: '/v1/messages' }],
  credential: { env: 'MODEL_KEY' },
  broker_sha256: [H('2')],
  caps: { requests: 4, request_bytes: '1MiB', response_bytes: '1MiB', total_up: '4MiB', total_down: '4MiB', request_timeout: '30s', connections: 2 },
  relay: { sha256: [H('3')], terminate: true },
};

function policies(): Json[] {
  const base = parseStructured(read('policies/strict.yaml'), 'strict.yaml') as { [k: string]: Json };
  const reviewers = base.reviewers as { [k: string]: { [k: string]: Json } };
  const [first] = Object.keys(reviewers);
  const rich: { [k: string]: Json } = {
    ...base,
    preservation: { waived: 'not a product yet' },
    tlog_checkpoints: { every_entries: 100, every: '1h' },
    vsa: { verifier_id: 'https://example.com/gate', repository_uri: 'git+https://example.com/repo' },
    reviewers: {
      ...reviewers,
      [first as string]: { ...(reviewers[first as string] as { [k: string]: Json }), egress: egressPolicy as unknown as Json, check: { adapter: 'node-test', command: ['/usr/bin/node', '--test'], dependency_root: 'node_modules', report: 'tap' } },
    },
  };
  return [parseStructured(read('policies/default.yaml'), 'default.yaml') as Json, base, rich];
}

const separation = {
  boot_id: '01234567-89ab-cdef-0123-456789abcdef',
  daemon_pid: 4242,
  daemon_start_time: '123456',
  daemon_uid: 61000,
  attestor_uids: { reviewer: 61001, runner: 61002, probe: 61003, log: 61004 },
  client_uid: 1000,
  client_pid: 4343,
};
const egressReceipt = {
  policy_digest: `sha256:${H('4')}`,
  provider: 'anthropic',
  model: 'claude-x',
  host: 'api.example.com',
  port: 443,
  transport: 'tls',
  broker_sha256: H('5'),
  relay_sha256: H('6'),
  transcript: {
    head: `sha256:${H('7')}`,
    records: [
      { seq: 0, prev: `sha256:${H('8')}`, at_ms: 5, outcome: 'forwarded', method: 'POST', route: 0, request: { sha256: H('9'), bytes: 10 }, response: { status: 200, sha256: null, bytes: 3 }, upstream_cert_sha256: null, tunnel: true },
    ],
    requests: 1,
    refused: 0,
    bytes_up: 10,
    bytes_down: 3,
  },
};

function predicates(): Json[] {
  const finding = { code: 'scope_omission', class: 'scope', severity: 'CRITICAL', refs: ['TGT-1'] };
  return [
    samplePredicate() as unknown as Json,
    { ...samplePredicate({ trust_mode: 'separated' }), separation, egress: egressReceipt, verdict: 'DIRTY', findings: [finding], vetoes: [finding] } as unknown as Json,
    { ...samplePredicate(), check: { adapter_sha256: H('c'), command: ['/usr/bin/node'], snapshot_digest: `sha256:${H('8')}`, dependency_root: { path: 'node_modules', digest: `sha256:${H('b')}` } } } as unknown as Json,
  ];
}

const probe = {
  unit: `UNIT-${'a'.repeat(32)}`,
  phase: 'baseline',
  snapshot_digest: `sha256:${H('1')}`,
  dependency_digest: null,
  adapter_sha256: H('2'),
  attestor_sha256: H('3'),
  results: [
    { surface: 'SURF-cli', evidence_id: 'EVD-cli-b', entry: 'bin:greet', exit_code: 0, capabilities: ['greet', 'help'], output_digest: `sha256:${H('4')}` },
    { surface: 'SURF-lib', evidence_id: 'EVD-lib-b', entry: 'bin:greet', exit_code: 1, capabilities: [], output_digest: `sha256:${H('5')}` },
  ],
  probed_at: '2026-12-02T00:00:00Z',
};
const checkpoint = buildCheckpointStatement({
  trust_mode: 'co-located',
  log_entries: 12,
  log_head: `sha256:${H('a')}`,
  state_digest: `sha256:${H('b')}`,
  policy_digest: `sha256:${H('c')}`,
  trust_digest: `sha256:${H('d')}`,
  attestor_sha256: H('e'),
  made_at: '2026-11-30T00:00:00Z',
});
const vsa = (over: Parameters<typeof sampleDecisionForVsa>[0] = {}): Json => buildVsaStatement(sampleDecisionForVsa(over)).predicate as unknown as Json;

const CORPUS: Readonly<Record<keyof typeof COMPILED, () => Json[]>> = {
  POLICY: policies,
  TRUST_ROOT: () => [
    parseStructured(read('keys.example/trust.yaml'), 'trust.yaml') as Json,
    trustRootDoc([{ key: { keyId: H('e'), publicPem: 'PEM' } as never, roles: ['reviewer', 'runner'], revoked_at: '2030-01-01T00:00:00Z' }]) as Json,
  ],
  ENVELOPE: () => [parseJsonStrict(read('test/fixtures/receipt/receipt.json')) as Json],
  STATEMENT: () => predicates().map((p) => statementFor(p as never) as Json),
  RECEIPT_STATEMENT: () => predicates().map((p) => statementFor(p as never) as Json),
  RECEIPT_PREDICATE: predicates,
  CONTRACT: () => [parseStructured(read('test/fixtures/contracts/spec-example/contract.yaml'), 'contract.yaml') as Json],
  ATTESTOR_CONFIG: () => [{ credential: 'reviewer', kind: 'review-receipt', key_id: H('a'), key_ref: '/var/lib/governed/keys/reviewer.pem' }],
  ATTESTOR_REQUEST: () => [{ payloadType: 'application/vnd.in-toto+json', payload: Buffer.from('{"a":1}').toString('base64') }],
  VSA_PREDICATE: () => [vsa(), vsa({ state: 'REVIEW_ONLY' } as never)],
  PROBE_PREDICATE: () => [probe, { ...probe, phase: 'current', dependency_digest: `sha256:${H('6')}`, trust_mode: 'separated', separation }],
  CHECKPOINT_PREDICATE: () => [checkpoint.predicate as unknown as Json],
  CHECKPOINT_SUBJECTS: () => [checkpoint.subject as unknown as Json],
  BUNDLE: () =>
    ([['development', 'coverage'], ['integration', 'implementation_test'], ['test', 'tests']] as const).map(([stage, slot]) => JSON.parse(bundleOf(cleanScenario(), stage, slot).bytes.toString('utf8')) as Json),
};

const ROOTS: Json[] = [null, true, 0, 1.5, '', 'x', [], {}, [{}], { a: 1 }];

/** The definition's own verdict, in the shape the compiled checker reports. */
function byDefinition(schema: z.core.$ZodType, v: unknown): { ok: boolean; out: string | null; paths: PropertyKey[][] } {
  const r = z.safeParse(schema, v);
  return r.success ? { ok: true, out: JSON.stringify(r.data), paths: [] } : { ok: false, out: null, paths: r.error.issues.map((i) => [...i.path]) };
}

function byCompiled(form: CompiledForm, v: unknown): { ok: boolean; out: string | null; paths: PropertyKey[][] } {
  const r = checkFormat(form, v);
  return r.success ? { ok: true, out: JSON.stringify(r.data), paths: [] } : { ok: false, out: null, paths: r.issuePaths.map((p) => [...p]) };
}

describe('src/core/format/compiled.ts is generated from the definitions and not stale (npm run formats:gen)', () => {
  it('equals what the definitions compile to', () => {
    expect(read('src/core/format/compiled.ts')).toBe(emitFormatsModule(compileFormats(COMPILED_DEFINITIONS), COMPILED_HEADER));
  });
  it('exports exactly the formats the definitions table names', () => {
    expect(Object.keys(COMPILED).sort()).toEqual(Object.keys(COMPILED_DEFINITIONS).sort());
  });
});

describe('a compiled format agrees with its definition on real documents and every mutation of them', () => {
  it.each(Object.keys(COMPILED_DEFINITIONS))('%s', (name) => {
    const schema = COMPILED_DEFINITIONS[name] as z.core.$ZodType;
    const form = COMPILED[name as keyof typeof COMPILED];
    const docs = CORPUS[name as keyof typeof COMPILED]();
    let accepted = 0;
    let refused = 0;
    for (const doc of docs) {
      // Positive control: every real document is accepted by both.
      expect(byDefinition(schema, doc).paths, `${name}: a real document`).toEqual([]);
      for (const [label, m] of [['$', doc] as [string, Json], ...ROOTS.map((r, i): [string, Json] => [`root${i}`, r]), ...mutations(doc)]) {
        const want = byDefinition(schema, m);
        const got = byCompiled(form, m);
        if (got.ok !== want.ok || got.out !== want.out || JSON.stringify(got.paths) !== JSON.stringify(want.paths)) {
          expect({ label, ...got }, `${name} ${label}`).toEqual({ label, ...want });
        }
        if (want.ok) accepted++;
        else refused++;
      }
    }
    // Both outcomes were exercised many times (a corpus of only refusals would prove little).
    expect(accepted).toBeGreaterThan(docs.length);
    expect(refused).toBeGreaterThan(50);
  });
});

describe('the compiler refuses what the compiled checker does not implement', () => {
  const compiles = (s: z.core.$ZodType) => () => compileFormats({ X: s });
  it('an unnamed refinement (its rule could not be carried) — control: the same rule by its registered name compiles', () => {
    expect(compiles(z.string().check(z.refine((s) => s.length > 0)))).toThrow(/unnamed refinement/);
    expect(compiles(z.string().check(z.refine(REFINEMENTS.noDotDotSegment)))).not.toThrow();
  });
  it('a transform, a default, a catchall, an exclusive bound, a non-regex string format', () => {
    expect(compiles(z.pipe(z.string(), z.transform((s) => s.length)))).toThrow(/not supported/);
    expect(compiles(z.strictObject({ a: z._default(z.string(), 'x') }))).toThrow(/not supported/);
    expect(compiles(z.catchall(z.object({}), z.string()))).toThrow(/not supported/);
    expect(compiles(z.int().check(z.gt(1)))).toThrow(/not supported/);
    expect(compiles(z.email())).toThrow(/not supported/);
  });
  it('a refinement that would abort or run conditionally', () => {
    expect(compiles(z.string().check(z.refine(REFINEMENTS.noDotDotSegment, { abort: true })))).toThrow(/not supported/);
  });
});

describe('the compiled checker enforces each named refinement (attack: values a pattern alone would pass)', () => {
  const policy = policies()[1] as { [k: string]: Json };
  it.each([
    ['a product root with a .. segment', { ...policy, product_roots: ['src/../etc'] }, 'product_roots.0'],
    ['an absolute exclude', { ...policy, exclude: ['/etc'] }, 'exclude.0'],
    ['no stage at all', { ...policy, stages: {} }, 'stages'],
    ['an own __proto__ key in the reviewers map', JSON.parse(`{"__proto__":{},${JSON.stringify(policy.reviewers).slice(1)}`), 'reviewers'],
  ])('%s is refused, naming the field', (_label, doc, path) => {
    const value = 'product_roots' in (doc as object) ? doc : { ...policy, reviewers: doc };
    const r = checkFormat(COMPILED.POLICY, value);
    expect(r.success ? null : r.paths).toEqual([path]);
  });
  it('an impossible calendar instant in a trust root (Feb 30) is refused; control: Feb 28 is accepted', () => {
    const doc = parseStructured(read('keys.example/trust.yaml'), 'trust.yaml') as { [k: string]: Json };
    expect(checkFormat(COMPILED.TRUST_ROOT, { ...doc, expires: '2099-02-30T00:00:00Z' }).success).toBe(false);
    expect(checkFormat(COMPILED.TRUST_ROOT, { ...doc, expires: '2099-02-28T00:00:00Z' }).success).toBe(true);
  });
});
