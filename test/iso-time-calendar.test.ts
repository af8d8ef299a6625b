// Impossible calendar dates (docs/formats.md#receipt times in whole seconds, docs/policy.md#policy-and-trust-root trust-root times):
// `2026-02-30T00:00:00Z` has the shape every schema's regex asked for, and `Date.parse` rolls it over
// to Mar 2. src/core/iso-time.ts is the ONE check; the one schema of every format that accepts a time
// (src/core/schema-primitives.ts `isoSeconds`) refuses them with the codes it already uses. The rule itself is checked
// against an independent oracle (the host's Date arithmetic, used only here, in the test).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { authorityPredicateSchema } from '../src/core/authority/predicate.js';
import { scopeHistoryEntrySchema } from '../src/core/bundle/schema.js';
import { buildCheckpointStatement, checkpointViolation, type CheckpointPredicate } from '../src/core/checkpoint.js';
import { checkpointPredicateSchema } from '../src/core/checkpoint-schema.js';
import { isGovernedError } from '../src/core/errors.js';
import { isIsoSeconds, ISO_SECONDS_SHAPE, secondsOfIsoTime } from '../src/core/iso-time.js';
import { type ReviewReceiptPredicate } from '../src/core/receipt-predicate.js';
import { reviewReceiptPredicateSchema } from '../src/core/receipt-predicate-schema.js';
import { loadTrustRoot } from '../src/core/trust-root.js';
import { verifyReceiptBytes } from '../src/core/verify-receipt.js';
import { buildVsaStatement, type DecisionForVsa } from '../src/core/vsa.js';
import { vsaPredicateSchema } from '../src/core/vsa-schema.js';
import { makeKey, payloadOf, receiptWorld, samplePredicate, signEnvelope, statementFor, tempDir, trustRootDoc } from './helpers/receipts.js';
import { EDGE_VALID_ISO_TIMES, IMPOSSIBLE_ISO_TIMES } from './schema-mutations.js';

/** Oracle: the instant the host's calendar gives for these fields, or null when it rolls over. */
function oracle(y: number, mo: number, d: number, h: number, mi: number, s: number): number | null {
  if (h > 23 || mi > 59 || s > 59) return null; // Date would roll these over too; POSIX has no :60
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d); // setUTCFullYear: no two-digit-year mapping (Date.UTC maps 0–99 to 19xx)
  t.setUTCHours(h, mi, s, 0);
  if (t.getUTCFullYear() !== y || t.getUTCMonth() !== mo - 1 || t.getUTCDate() !== d) return null;
  return t.getTime() / 1000;
}
const p2 = (n: number): string => String(n).padStart(2, '0');
const p4 = (n: number): string => String(n).padStart(4, '0');
const text = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0): string => `${p4(y)}-${p2(mo)}-${p2(d)}T${p2(h)}:${p2(mi)}:${p2(s)}Z`;

function codeOf(fn: () => unknown): string {
  try {
    fn();
    return 'ok';
  } catch (e) {
    if (isGovernedError(e)) return e.code;
    throw e;
  }
}
function errorOf(fn: () => unknown): { code: string; ids: readonly string[] } {
  try {
    fn();
  } catch (e) {
    if (isGovernedError(e)) return { code: e.code, ids: e.ids };
    throw e;
  }
  return { code: 'ok', ids: [] };
}

describe('secondsOfIsoTime: strict shape, real calendar, epoch seconds', () => {
  it('agrees with the calendar oracle on every day 0–32 of every month 0–13 of leap and common years', () => {
    const years = [0, 1, 4, 99, 100, 400, 1600, 1700, 1899, 1900, 1904, 1969, 1970, 1972, 1999, 2000, 2001, 2024, 2025, 2026, 2028, 2100, 2400, 9996, 9999];
    let valid = 0;
    let refused = 0;
    for (const y of years) {
      for (let mo = 0; mo <= 13; mo++) {
        for (let d = 0; d <= 32; d++) {
          const want = mo < 1 || mo > 12 || d < 1 ? null : oracle(y, mo, d, 12, 34, 56);
          expect(secondsOfIsoTime(text(y, mo, d, 12, 34, 56)), text(y, mo, d, 12, 34, 56)).toBe(want);
          if (want === null) refused++;
          else valid++;
        }
      }
    }
    expect(valid).toBe(years.reduce((n, y) => n + ((y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 366 : 365), 0));
    expect(refused).toBe(years.length * 14 * 33 - valid); // every other combination refused
  });

  it('agrees with the oracle on every hour 0–24, minute and second 0–60 of a day', () => {
    for (let h = 0; h <= 24; h++) expect(secondsOfIsoTime(text(2026, 11, 30, h)), `h${h}`).toBe(oracle(2026, 11, 30, h, 0, 0));
    for (let m = 0; m <= 60; m++) expect(secondsOfIsoTime(text(2026, 11, 30, 23, m, 59)), `m${m}`).toBe(oracle(2026, 11, 30, 23, m, 59));
    for (let s = 0; s <= 60; s++) expect(secondsOfIsoTime(text(2026, 11, 30, 23, 59, s)), `s${s}`).toBe(oracle(2026, 11, 30, 23, 59, s));
  });

  it('gives the epoch seconds the rest of governed writes (isoSecondsOf round trip)', () => {
    for (const t of [0, 1, 86399, 951782400, 1_700_000_000, 1_795_000_000, 4_102_444_800, 253402300799]) {
      const iso = new Date(t * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      expect(secondsOfIsoTime(iso), iso).toBe(t);
    }
    expect(secondsOfIsoTime('1969-12-31T23:59:59Z')).toBe(-1);
  });

  it('refuses every impossible date of the mutation set and accepts the edge dates', () => {
    for (const t of IMPOSSIBLE_ISO_TIMES) {
      expect(ISO_SECONDS_SHAPE.test(t), t).toBe(true); // the shape alone would pass it
      expect(isIsoSeconds(t), t).toBe(false);
    }
    for (const t of EDGE_VALID_ISO_TIMES) expect(isIsoSeconds(t), t).toBe(true);
  });

  it('refuses every other shape: fractions, offsets, lowercase, spaces, signs, extra digits, non-strings', () => {
    const bad: unknown[] = [
      '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00+00:00', '2026-01-01t00:00:00z', '2026-01-01 00:00:00Z', '2026-01-01T00:00:00',
      '+2026-01-01T00:00:00Z', '-2026-01-01T00:00:00Z', '12026-01-01T00:00:00Z', '2026-1-01T00:00:00Z', '2026-01-01T00:00:00Z\n',
      ' 2026-01-01T00:00:00Z', '２０２６-01-01T00:00:00Z', '2026-01-01T00:00Z', '', null, 1_700_000_000, ['2026-01-01T00:00:00Z'],
    ];
    for (const b of bad) expect(secondsOfIsoTime(b), JSON.stringify(b)).toBeNull();
  });

  it('is pure: the module reads no clock and builds no Date', () => {
    const src = readFileSync(new URL('../src/core/iso-time.ts', import.meta.url), 'utf8').replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
    expect(src).not.toMatch(/\bDate\b|performance|process\.|import /);
  });
});

describe('every accepted time field refuses impossible dates', () => {
  it('trust root: expires, not_before, not_after, revoked_at — trust_root_invalid naming the field', () => {
    const dir = tempDir();
    const doc = trustRootDoc([
      { key: makeKey(dir, 'reviewer'), roles: ['reviewer'] },
      { key: makeKey(dir, 'runner'), roles: ['runner'], revoked_at: '2030-01-01T00:00:00Z' },
    ]) as { expires: string; keys: Record<string, string>[] };
    expect(codeOf(() => loadTrustRoot(structuredClone(doc)))).toBe('ok');
    const fields: [string, (d: typeof doc, t: string) => void][] = [
      ['expires', (d, t) => (d.expires = t)],
      ['keys.0.not_before', (d, t) => ((d.keys[0] as Record<string, string>).not_before = t)],
      ['keys.0.not_after', (d, t) => ((d.keys[0] as Record<string, string>).not_after = t)],
      ['keys.1.revoked_at', (d, t) => ((d.keys[1] as Record<string, string>).revoked_at = t)],
    ];
    for (const [path, set] of fields) {
      for (const t of IMPOSSIBLE_ISO_TIMES) {
        const d = structuredClone(doc);
        set(d, t);
        const z = errorOf(() => loadTrustRoot(structuredClone(d)));
        expect(z, `${path}=${t}`).toEqual({ code: 'trust_root_invalid', ids: [path] });
        expect(z.ids.join(' ')).not.toContain(t); // the rejected value is never echoed
      }
    }
    // Feb 29 of a leap year is a real day: accepted.
    const leap = structuredClone(doc);
    (leap.keys[0] as Record<string, string>).not_before = '2028-02-29T00:00:00Z';
    expect(codeOf(() => loadTrustRoot(structuredClone(leap)))).toBe('ok');
  });

  it('review-receipt predicate times: the schema names the field; a signed receipt is predicate_invalid', () => {
    const w = receiptWorld();
    const trust = loadTrustRoot(JSON.parse(readFileSync(w.trustPath, 'utf8')));
    const opts = { at: '2026-12-01T00:00:00Z', offline: false };
    for (const field of ['issued_at', 'started_at', 'finished_at'] as const) {
      for (const t of IMPOSSIBLE_ISO_TIMES) {
        const base = samplePredicate();
        const p = { ...base, times: { ...base.times, [field]: t } } as ReviewReceiptPredicate;
        expect(reviewReceiptPredicateSchema.safeParse(p).success, `${field}=${t}`).toBe(false);
        expect(reviewReceiptPredicateSchema.safeParse(p).error?.issues[0]?.path.join('.'), `${field}=${t}`).toBe(`times.${field}`);
        const bytes = Buffer.from(signEnvelope(payloadOf(statementFor(p)), [w.reviewer, w.runner]));
        expect(codeOf(() => verifyReceiptBytes(bytes, trust, opts)), `${field}=${t}`).toBe('predicate_invalid');
      }
    }
    // The valid receipt still verifies (the control).
    const good = Buffer.from(signEnvelope(payloadOf(statementFor(samplePredicate())), [w.reviewer, w.runner]));
    expect(codeOf(() => verifyReceiptBytes(good, trust, opts))).toBe('ok');
  });

  it('signed decision (VSA) timeVerified: the schema names the field', () => {
    const d = (c: string): string => `sha256:${c.repeat(64)}`;
    const decision: DecisionForVsa = {
      version: '0.1.0', evaluatedAt: '2026-11-30T00:00:00Z', unit: `UNIT-${'a'.repeat(32)}`, state: 'RELEASE_ELIGIBLE', reasons: [],
      trustMode: 'co-located', policyDigest: d('1'), trustDigest: d('2'), gateTrustDigest: d('2'),
      subject: { commit: 'c'.repeat(40), manifestDigest: d('3') }, current: { planningStateDigest: d('4'), contentDigest: d('5'), workStateDigest: d('6') },
      preservationWaiver: null, receipts: [d('7')], authorities: [], attestorSha256: 'e'.repeat(64),
    };
    const good = buildVsaStatement(decision).predicate as unknown as Record<string, unknown>;
    expect(vsaPredicateSchema.safeParse(good).success).toBe(true);
    for (const t of IMPOSSIBLE_ISO_TIMES) {
      const p = { ...good, timeVerified: t };
      expect(vsaPredicateSchema.safeParse(p).success, t).toBe(false);
      expect(vsaPredicateSchema.safeParse(p).error?.issues[0]?.path.join('.'), t).toBe('timeVerified');
    }
  });

  it('log checkpoint made_at (one schema, also run by the attestor): predicate_invalid path', () => {
    const c: CheckpointPredicate = {
      trust_mode: 'co-located', log_entries: 3, log_head: `sha256:${'a'.repeat(64)}`, state_digest: `sha256:${'b'.repeat(64)}`,
      policy_digest: `sha256:${'c'.repeat(64)}`, trust_digest: `sha256:${'d'.repeat(64)}`, attestor_sha256: 'e'.repeat(64), made_at: '2026-11-30T00:00:00Z',
    };
    expect(checkpointViolation(buildCheckpointStatement(c))).toBeNull();
    for (const t of IMPOSSIBLE_ISO_TIMES) {
      expect(checkpointPredicateSchema.safeParse({ ...c, made_at: t }).success, t).toBe(false);
      expect(checkpointViolation(buildCheckpointStatement({ ...c, made_at: t })), t).toBe('predicate.made_at');
    }
  });

  it('authority predicate issued_at/expires_at and the bundle scope history bound_at (their one schema each)', () => {
    const auth = {
      operation: 'policy_update', ids: [], unit: null, state_before: null, state_after: null,
      nonce: 'a'.repeat(64), request_id: `ARQ-${'b'.repeat(32)}`, issued_at: '2026-11-30T00:00:00Z', expires_at: '2026-11-30T01:00:00Z',
    };
    expect(authorityPredicateSchema.safeParse(auth).success).toBe(true);
    const scope = {
      id: 'SCOPE-1', version: 1, scope_epoch: 1, work_revision: 0, contract_digest: `sha256:${'a'.repeat(64)}`, sources_digest: `sha256:${'b'.repeat(64)}`,
      bound_at: '2026-11-30T00:00:00Z', additions: [], narrowing: [], progress: [], authorities: [],
    };
    expect(scopeHistoryEntrySchema.safeParse(scope).success).toBe(true);
    for (const t of IMPOSSIBLE_ISO_TIMES) {
      expect(scopeHistoryEntrySchema.safeParse({ ...scope, bound_at: t }).success, t).toBe(false);
      for (const f of ['issued_at', 'expires_at']) {
        const r = authorityPredicateSchema.safeParse({ ...auth, [f]: t });
        expect(r.success, `${f}=${t}`).toBe(false);
        // Only the time field is wrong: any other issue would mean the base was not valid.
        expect(r.error?.issues.map((i) => i.path.join('.')), `${f}=${t}`).toEqual([f]);
      }
    }
  });
});
