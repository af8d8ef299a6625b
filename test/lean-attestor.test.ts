// The attestor program's zod-free checks (docs/formats.md#attestors: it is not blind) accept exactly what their zod
// references in src/core accept: the config, request and response messages
// (src/core/lean/attestor-protocol.ts ≡ src/core/attestor-protocol.ts), the statement frame
// (genericStatementShape ≡ intoto statementSchema) and the review-receipt predicate
// (src/core/lean/receipt.ts receiptPredicateShape + predicateRuleViolationLean ≡ reviewReceiptPredicateSchema +
// predicateRuleViolation), over valid values and hundreds of mutations. And the shipped attestor
// bundle loads no zod, is the deterministic build of its source, and signs what the runner builds
// (a hyphenated slot included).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attestorConfigSchema, attestorRequestSchema, attestorResponseSchema } from '../src/core/attestor-protocol.js';
import { canonicalJson } from '../src/core/canonical.js';
import { IN_TOTO_PAYLOAD_TYPE } from '../src/core/dsse.js';
import { statementSchema } from '../src/core/intoto.js';
import { attestorConfigShape, attestorRequestShape, attestorResponseShape } from '../src/core/lean/attestor-protocol.js';
import { genericStatementShape, predicateRuleViolationLean } from '../src/core/lean/receipt.js';
import { receiptPredicateShape } from '../src/core/lean/receipt.js';
import type { Check } from '../src/core/lean/shape.js';
import { predicateRuleViolation, reviewReceiptPredicateSchema, type ReviewReceiptPredicate } from '../src/core/receipt-predicate.js';
// @ts-expect-error -- a plain .mjs build script without type declarations
import { buildPinned } from '../scripts/pinned-build.mjs';
import { ATTESTOR, REPO_ROOT } from './helpers/cli.js';
import { payloadOf, receiptWorld, samplePredicate, statementFor, tempDir, writeJson } from './helpers/receipts.js';
import { mutations, type Json } from './lean-helpers.js';

interface ZodLike {
  safeParse(v: unknown): { success: boolean };
}

/** Lean and zod agree on the base values (all accepted) and on every mutation; returns the count. */
function agree(name: string, lean: Check, zod: ZodLike, bases: readonly Json[]): { n: number; refused: number } {
  let n = 0;
  let refused = 0;
  for (const base of bases) {
    expect(zod.safeParse(structuredClone(base)).success, `${name} base`).toBe(true);
    expect(lean(structuredClone(base), '$'), `${name} base`).toBeNull();
    for (const [label, m] of mutations(base)) {
      const z = zod.safeParse(structuredClone(m)).success;
      expect(lean(structuredClone(m), '$') === null, `${name}: ${label}`).toBe(z);
      n++;
      if (!z) refused++;
    }
  }
  return { n, refused };
}

const H = (c: string): string => c.repeat(64);

describe('attestor protocol messages: lean ≡ zod', () => {
  it('config', () => {
    const bases: Json[] = [
      { credential: 'reviewer', kind: 'review-receipt', key_id: H('a'), key_ref: '/keys/reviewer.pem' },
      { credential: 'gate', kind: 'decision', key_id: H('0'), key_ref: '/k' },
      { credential: 'my-cred_2', kind: 'review-receipt', key_id: H('f'), key_ref: `/${'p'.repeat(4095)}` },
    ];
    const r = agree('config', attestorConfigShape, attestorConfigSchema, bases);
    expect(r.n).toBeGreaterThan(300);
    expect(r.refused).toBeGreaterThan(100);
  });

  it('request', () => {
    const bases: Json[] = [
      { payloadType: IN_TOTO_PAYLOAD_TYPE, payload: 'eyJhIjoxfQ==' },
      { payloadType: 'x'.repeat(200), payload: 'A' },
    ];
    const r = agree('request', attestorRequestShape, attestorRequestSchema, bases);
    expect(r.n).toBeGreaterThan(100);
  });

  it('response', () => {
    const sig = Buffer.alloc(64, 7).toString('base64');
    const bases: Json[] = [
      { keyid: H('a'), sig },
      { keyid: H('9'), sig: Buffer.alloc(64, 255).toString('base64') },
    ];
    const r = agree('response', attestorResponseShape, attestorResponseSchema, bases);
    expect(r.n).toBeGreaterThan(100);
  });
});

describe('statement frame and review-receipt predicate: lean ≡ zod', () => {
  const predicates: ReviewReceiptPredicate[] = [
    samplePredicate(),
    // A policy slot name may contain '-' (src/core/policy.ts): the runner copies it into the predicate.
    samplePredicate({ slot: 'my-slot' }),
    samplePredicate({
      slot: 'a_b-c',
      verdict: 'DIRTY',
      findings: [
        { code: 'scope_omission', class: 'scope', severity: 'CRITICAL', refs: ['ATOM-1', 'DIR-1'] },
        { code: 'test_gap', class: 'correctness', severity: 'LOW', refs: ['AC-1'] },
      ],
      vetoes: [{ code: 'scope_omission', class: 'scope', severity: 'CRITICAL', refs: ['ATOM-1', 'DIR-1'] }],
      writers: [],
      sandbox: { bwrap_sha256: H('d'), profile_digest: `sha256:${H('e')}`, seccomp_digest: `sha256:${H('f')}`, uid: 0, uid_separated: true },
    }),
  ];

  it('statement frame (genericStatementShape ≡ statementSchema)', () => {
    const bases = predicates.slice(0, 2).map((p) => statementFor(p) as unknown as Json);
    const r = agree('statement', genericStatementShape, statementSchema, bases);
    expect(r.n).toBeGreaterThan(1000);
  });

  it('predicate shape (receiptPredicateShape ≡ reviewReceiptPredicateSchema)', () => {
    const r = agree('predicate', receiptPredicateShape, reviewReceiptPredicateSchema, predicates as unknown as Json[]);
    expect(r.n).toBeGreaterThan(3000);
    expect(r.refused).toBeGreaterThan(1000);
  });

  it('predicate rules (predicateRuleViolationLean ≡ predicateRuleViolation) on predicates that pass the schema', () => {
    const f = (code: string, cls: string, severity: string, refs: string[]): ReviewReceiptPredicate['findings'][number] =>
      ({ code, class: cls, severity, refs }) as ReviewReceiptPredicate['findings'][number];
    const a = f('scope_omission', 'scope', 'CRITICAL', ['ATOM-1']);
    const b = f('test_gap', 'correctness', 'LOW', ['AC-1', 'AC-2']);
    const variants: Partial<ReviewReceiptPredicate>[] = [
      { verdict: 'CLEAN', findings: [], vetoes: [] },
      { verdict: 'CLEAN', findings: [b], vetoes: [] },
      { verdict: 'DIRTY', findings: [], vetoes: [] },
      { verdict: 'DIRTY', findings: [a, b], vetoes: [a] },
      { verdict: 'DIRTY', findings: [b, a], vetoes: [a] },
      { verdict: 'DIRTY', findings: [a, a], vetoes: [a, a] },
      { verdict: 'DIRTY', findings: [a, b], vetoes: [] },
      { verdict: 'DIRTY', findings: [b], vetoes: [b] },
      { verdict: 'DIRTY', findings: [f('test_gap', 'correctness', 'LOW', ['AC-2', 'AC-1'])], vetoes: [] },
      { verdict: 'DIRTY', findings: [f('other', 'release', 'CRITICAL', ['REL-1'])], vetoes: [f('other', 'release', 'CRITICAL', ['REL-1'])] },
      { times: { issued_at: '2026-11-29T10:00:02Z', started_at: '2026-11-29T10:00:01Z', finished_at: '2026-11-29T10:00:03Z' } },
      { times: { issued_at: '2026-11-29T10:00:00Z', started_at: '2026-11-29T10:00:03Z', finished_at: '2026-11-29T10:00:01Z' } },
    ];
    const seen = new Set<string>();
    for (const v of variants) {
      const p = samplePredicate(v);
      const parsed = reviewReceiptPredicateSchema.safeParse(p);
      expect(parsed.success).toBe(true);
      expect(receiptPredicateShape(p, '$')).toBeNull();
      const z = predicateRuleViolation(p, canonicalJson);
      expect(predicateRuleViolationLean(p)).toBe(z);
      seen.add(String(z));
    }
    for (const rule of ['null', 'verdict', 'findings', 'findings.refs', 'vetoes', 'times']) expect(seen, rule).toContain(rule);
  });
});

describe('the shipped attestor bundle', () => {
  it('is the deterministic build of attestors/src/ed25519-file.ts and contains no zod', async () => {
    const out = join(tempDir('governed-lean-attestor-'), 'ed25519-file.mjs');
    await buildPinned('attestors/src/ed25519-file.ts', out, REPO_ROOT);
    const committed = readFileSync(ATTESTOR);
    expect(readFileSync(out).equals(committed)).toBe(true);
    const text = committed.toString('utf8');
    expect(text).not.toMatch(/node_modules\/zod\//);
    expect(text).not.toMatch(/\b_zod\b/);
    // Only Node built-ins are imported at run time (docs/formats.md#attestors: one self-contained file).
    const imports = [...text.matchAll(/^import .* from ["']([^"']+)["'];?$/gm)].map((m) => m[1]);
    expect(imports.length).toBeGreaterThan(0);
    for (const i of imports) expect(i).toMatch(/^node:/);
  });

  it('signs a receipt statement whose slot contains "-" (policy slot names allow it)', () => {
    const w = receiptWorld();
    const self = createHash('sha256').update(readFileSync(ATTESTOR)).digest('hex');
    const cfg = writeJson(join(w.dir, 'reviewer-attestor.json'), { credential: 'reviewer', kind: 'review-receipt', key_id: w.reviewer.keyId, key_ref: w.reviewer.privateKeyPath });
    const payload = payloadOf(statementFor(samplePredicate({ slot: 'lint-strict', attestors: { reviewer_sha256: self, runner_sha256: self } })));
    const r = spawnSync(process.execPath, [ATTESTOR, cfg], {
      input: JSON.stringify({ payloadType: IN_TOTO_PAYLOAD_TYPE, payload: payload.toString('base64') }),
      env: { PATH: '/usr/bin:/bin' },
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(attestorResponseSchema.safeParse(JSON.parse(r.stdout)).success).toBe(true);
  });
});
