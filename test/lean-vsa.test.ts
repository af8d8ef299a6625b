// src/core/lean/vsa.ts (zod-free, used by the attestor program) has the SAME acceptance rule as
// src/core/vsa.ts `vsaPredicateSchema` + `vsaRuleViolation`: over valid VSA statements of every
// outcome and systematic mutations of every field, both accept (with the same rule verdict) or both
// refuse.
import { describe, expect, it } from 'vitest';
import { buildVsaStatement, DECISION_SCHEMA_VERSION, RELEASE_LEVEL, VSA_VERIFIER_ID, vsaPredicateSchema, vsaRuleViolation, type DecisionForVsa, type VsaPredicate } from '../src/core/vsa.js';
import { VSA_LEAN_CONSTANTS, vsaPredicateShape } from '../src/core/lean/vsa.js';
import { mutations, type Json } from './lean-helpers.js';
import { sampleDecisionForVsa } from './helpers/receipts.js';

const d = (c: string): string => `sha256:${c.repeat(64)}`;
const decision = (over: Partial<DecisionForVsa> = {}): DecisionForVsa => sampleDecisionForVsa(over);

type Statement = { subject: { name: string; digest: { sha256: string } }[]; predicate: unknown };
const BASES: [string, Statement][] = [
  ['eligible', buildVsaStatement(decision()) as unknown as Statement],
  ['review only', buildVsaStatement(decision({ state: 'REVIEW_ONLY', reasons: [{ code: 'streak_incomplete', ids: ['integration', 'UNIT-x>y'] }, { code: 'veto:scope', ids: [] }] })) as unknown as Statement],
  ['no waiver, sha256 commit, separated, no inputs', buildVsaStatement(decision({ preservationWaiver: null, subject: { commit: 'f'.repeat(64), manifestDigest: d('3') }, trustMode: 'separated', receipts: [], authorities: [] })) as unknown as Statement],
];

function zodOutcome(s: Statement): string {
  const p = vsaPredicateSchema.safeParse(s.predicate);
  if (!p.success) return 'predicate_invalid';
  return vsaRuleViolation({ subject: s.subject, predicate: p.data }) ?? 'ok';
}
function leanOutcome(s: Statement): string {
  if (vsaPredicateShape(s.predicate, '$') !== null) return 'predicate_invalid';
  return vsaRuleViolation({ subject: s.subject, predicate: s.predicate as VsaPredicate }) ?? 'ok';
}

describe('lean VSA predicate ≡ vsaPredicateSchema + vsaRuleViolation', () => {
  it('uses the same constants as the builder', () => {
    expect(VSA_LEAN_CONSTANTS).toEqual({ VSA_VERIFIER_ID, RELEASE_LEVEL, DECISION_SCHEMA_VERSION });
  });

  it('accepts the valid statements', () => {
    for (const [name, s] of BASES) {
      expect(zodOutcome(s), name).toBe('ok');
      expect(leanOutcome(s), name).toBe('ok');
    }
  });

  it('agrees on every mutation of the predicate (schema and rules)', () => {
    let n = 0;
    const seen = new Set<string>();
    for (const [name, s] of BASES) {
      for (const [label, m] of mutations(s.predicate as Json)) {
        const v = { subject: s.subject, predicate: structuredClone(m) };
        const a = zodOutcome(v);
        expect(leanOutcome(v), `${name}: ${label}`).toBe(a);
        seen.add(a);
        n++;
      }
    }
    expect(n).toBeGreaterThan(1000);
    // Both the schema and several cross-field rules were exercised, and some mutations stay valid.
    expect([...seen].sort()).toEqual(expect.arrayContaining(['ok', 'predicate_invalid', 'resourceUri', 'policy']));
  });

  it('agrees on the cross-field rules, each broken on purpose', () => {
    type P = VsaPredicate & Record<string, unknown>;
    const edits: [string, (p: P) => void][] = [
      ['result flipped', (p) => (p.verificationResult = p.verificationResult === 'PASSED' ? 'FAILED' : 'PASSED')],
      ['state flipped', (p) => (p.governed.state = p.governed.state === 'REVIEW_ONLY' ? 'RELEASE_ELIGIBLE' : 'REVIEW_ONLY')],
      ['reasons added', (p) => (p.governed.reasons = [{ code: 'x', ids: [] }])],
      ['reasons removed', (p) => (p.governed.reasons = [])],
      ['levels flipped', (p) => (p.verifiedLevels = p.verifiedLevels.length === 0 ? [RELEASE_LEVEL] : [])],
      ['other commit', (p) => (p.resourceUri = `git+commit:${'d'.repeat(40)}`)],
      ['other policy', (p) => (p.policy.digest.sha256 = '0'.repeat(64))],
      ['other manifest', (p) => (p.governed.subject.manifest_digest = d('0'))],
      ['inputs unsorted', (p) => p.inputAttestations.reverse()],
      ['inputs duplicated', (p) => p.inputAttestations.push(p.inputAttestations[p.inputAttestations.length - 1] ?? { uri: `governed:receipt:${d('7')}`, digest: { sha256: '7'.repeat(64) } })],
      ['receipt uri ≠ digest', (p) => { const a = p.inputAttestations[0]; if (a !== undefined) a.digest.sha256 = '0'.repeat(64); }],
    ];
    const seen = new Set<string>();
    for (const [name, s] of BASES) {
      for (const [label, edit] of edits) {
        const predicate = structuredClone(s.predicate) as P;
        edit(predicate);
        const v = { subject: s.subject, predicate };
        const a = zodOutcome(v);
        expect(leanOutcome(v), `${name}: ${label}`).toBe(a);
        seen.add(a);
      }
    }
    // Every cross-field rule fired at least once.
    for (const rule of ['governed.reasons', 'inputAttestations', 'policy', 'resourceUri', 'subject', 'verificationResult', 'verifiedLevels']) expect(seen, rule).toContain(rule);
  });

  it('agrees on every mutation of the subject (the subject rule)', () => {
    let n = 0;
    for (const [name, s] of BASES) {
      for (const [label, m] of mutations(s.subject as unknown as Json)) {
        // The statement frame (checked before) guarantees an array of {name, digest{sha256}}.
        if (!Array.isArray(m) || !m.every((x) => x !== null && typeof x === 'object' && !Array.isArray(x) && typeof x.name === 'string' && x.digest !== null && typeof x.digest === 'object' && !Array.isArray(x.digest) && typeof x.digest.sha256 === 'string')) continue;
        const v = { subject: m as Statement['subject'], predicate: s.predicate };
        expect(leanOutcome(v), `${name}: ${label}`).toBe(zodOutcome(v));
        n++;
      }
    }
    expect(n).toBeGreaterThan(20);
  });
});
