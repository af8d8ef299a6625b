// The VSA bounds (src/core/vsa.ts `VSA_BOUNDS`, docs/gate.md#3-the-signed-decision---attest-file "Bounds") in the one VSA schema
// (`vsaPredicateSchema`, which the gate attestor runs too): at each bound exactly (4096 ok, 4097
// refused), around it, and over hundreds of mutations of a predicate whose reason sits AT the bound.
// `vsaBoundExceeded` (what the gate turns into `gate_attest_decision_too_large`) names exactly the
// count bound the schema refuses on.
import { describe, expect, it } from 'vitest';
import { buildVsaStatement, VSA_BOUNDS, vsaBoundExceeded, vsaRuleViolation, type VsaPredicate } from '../src/core/vsa.js';
import { vsaPredicateSchema } from '../src/core/vsa-schema.js';
import { mutations, type Json } from './schema-mutations.js';
import { sampleDecisionForVsa } from './helpers/receipts.js';

type Statement = { subject: { name: string; digest: { sha256: string } }[]; predicate: unknown };

function zodOutcome(s: Statement): string {
  const p = vsaPredicateSchema.safeParse(s.predicate);
  if (!p.success) return 'predicate_invalid';
  return vsaRuleViolation({ subject: s.subject, predicate: p.data }) ?? 'ok';
}
function agree(s: Statement, _label: string): string {
  return zodOutcome(s);
}

const hex = (i: number): string => i.toString(16).padStart(64, '0');
/** `n` valid, distinct reason ids (a receipt id form, as slot_blocked lists them). */
const ids = (n: number): string[] => Array.from({ length: n }, (_, i) => `sha256:${hex(i)}`);
const review = (reasons: { code: string; ids: string[] }[], receipts: string[] = ['sha256:' + '1'.repeat(64)]): Statement =>
  buildVsaStatement(sampleDecisionForVsa({ state: 'REVIEW_ONLY', reasons, receipts, authorities: [] })) as unknown as Statement;

describe('the VSA bounds: exactly at and around each bound', () => {
  it('pins the bounds', () => {
    expect(VSA_BOUNDS).toEqual({ maxReasons: 4096, maxIdsPerReason: 4096, maxInputAttestations: 4096 });
  });

  it('ids per reason: 4096 ok, 4097 refused (and the counts around them)', () => {
    for (const n of [0, 1, 64, 65, 130, 4095, 4096, 4097, 8192]) {
      const s = review([{ code: 'slot_blocked', ids: ids(n) }]);
      const want = n <= 4096 ? 'ok' : 'predicate_invalid';
      expect(agree(s, `ids ${n}`), `ids ${n}`).toBe(want);
      expect(vsaBoundExceeded(s.predicate as VsaPredicate)).toBe(n <= 4096 ? null : 'governed.reasons.ids');
    }
  });

  it('reasons: 4096 ok, 4097 refused', () => {
    for (const n of [4095, 4096, 4097]) {
      const s = review(Array.from({ length: n }, () => ({ code: 'slot_blocked', ids: ['integration.x'] })));
      expect(agree(s, `reasons ${n}`)).toBe(n <= 4096 ? 'ok' : 'predicate_invalid');
      expect(vsaBoundExceeded(s.predicate as VsaPredicate)).toBe(n <= 4096 ? null : 'governed.reasons');
    }
  });

  it('inputAttestations: 4096 ok, 4097 refused', () => {
    for (const n of [4095, 4096, 4097]) {
      const s = review([{ code: 'lease_active', ids: ['LSE-1'] }], ids(n));
      expect(agree(s, `inputs ${n}`)).toBe(n <= 4096 ? 'ok' : 'predicate_invalid');
      expect(vsaBoundExceeded(s.predicate as VsaPredicate)).toBe(n <= 4096 ? null : 'inputAttestations');
    }
  });

  it('judges every mutation of an id at either end of a reason at the bound', () => {
    const full = ids(4096);
    let n = 0;
    const seen = new Set<string>();
    for (const at of [0, 2048, 4095]) {
      for (const [label, m] of mutations(full[at] as string)) {
        const list = [...full] as Json[];
        list[at] = m;
        seen.add(agree(review([{ code: 'slot_blocked', ids: list as string[] }]), `ids[${at}] ${label}`));
        n++;
      }
    }
    expect(n).toBeGreaterThan(100);
    expect([...seen].sort()).toEqual(['ok', 'predicate_invalid']);
  });

  it('judges every mutation of the rest of a predicate whose reason holds 4096 ids', () => {
    // The ids array is held by a marker while the predicate is mutated (mutations of the array
    // itself are the test above), then put back: each mutation is judged with the reason at its bound.
    const MARK = '__ids_at_bound__';
    const full = ids(4096);
    const base = review([{ code: 'slot_blocked', ids: [MARK] }, { code: 'lease_active', ids: ['LSE-1'] }]);
    const inflate = (v: Json): Json => {
      if (Array.isArray(v)) return v.length === 1 && v[0] === MARK ? full : v.map(inflate);
      if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, inflate(x)]));
      return v;
    };
    let n = 0;
    let inflated = 0;
    const seen = new Set<string>();
    for (const [label, m] of mutations(base.predicate as Json)) {
      if (label.startsWith('governed.reasons.0.ids')) continue;
      const predicate = inflate(m);
      if (JSON.stringify(m).includes(MARK)) inflated++;
      seen.add(agree({ subject: base.subject, predicate }, label));
      n++;
    }
    expect(n).toBeGreaterThan(1000);
    expect(inflated).toBeGreaterThan(1000);
    expect([...seen]).toEqual(expect.arrayContaining(['ok', 'predicate_invalid']));
  }, 60_000);
});
