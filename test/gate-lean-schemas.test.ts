// The lean gate path's hand-written checks (src/flows/decide/lean/*) have the SAME acceptance rule
// as their zod twins in src/core (one acceptance rule, docs/threat-model.md#rules-that-hold-everywhere "Closed objects"): over valid
// documents and systematic mutations of every field (removed, retyped, out of range, an unknown key
// added at every level) both accept with equal results or both refuse with the same error code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/core/canonical.js';
import { contractSchema } from '../src/core/contract/schema.js';
import { CONTROL_NAMES } from '../src/core/decision/index.js';
import { isGovernedError } from '../src/core/errors.js';
import { KNOWN_CONTROLS, loadPolicy, ROLES } from '../src/core/policy.js';
import { STAGES } from '../src/core/receipt-predicate.js';
import { parseStructured } from '../src/core/strict-parse.js';
import { KEY_ROLES, loadTrustRoot, type TrustRoot } from '../src/core/trust-root.js';
import { verifyReceiptBytes } from '../src/core/verify-receipt.js';
import { contractShape } from '../src/core/lean/contract.js';
import { CONTROLS_LEAN, loadPolicyLean, ROLES_LEAN, STAGES_LEAN } from '../src/core/lean/policy.js';
import { verifyReceiptLean } from '../src/core/lean/receipt.js';
import { KEY_ROLES_LEAN, loadTrustRootLean } from '../src/core/lean/trust-root.js';
import { policyDoc as decisionPolicyDoc } from './decision-fixtures.js';
import { specExample } from './contract-fixtures.js';
import { REPO_ROOT } from './helpers/cli.js';
import { makeKey, payloadOf, receiptWorld, samplePredicate, signEnvelope, statementFor, tempDir, trustRootDoc, type ReceiptWorld } from './helpers/receipts.js';
import { cleanupDirs, makeKeys, policyDoc as issuePolicyDoc } from './state-helpers.js';

import { mutations, type Json } from './lean-helpers.js';

type Outcome = { ok: unknown } | { code: string };
function outcome(fn: () => unknown): Outcome {
  try {
    return { ok: fn() };
  } catch (e) {
    if (isGovernedError(e)) return { code: e.code };
    throw e;
  }
}

function expectSame(label: string, a: Outcome, b: Outcome, normalize: (x: unknown) => unknown = (x) => x): void {
  const view = (o: Outcome): unknown => ('ok' in o ? { ok: normalize(o.ok) } : o);
  expect(view(b), label).toEqual(view(a));
}

afterAll(() => cleanupDirs());

describe('vocabularies of the lean modules equal their sources of truth', () => {
  it('roles, stages, controls, key roles', () => {
    expect(ROLES_LEAN).toEqual([...ROLES]);
    expect(STAGES_LEAN).toEqual([...STAGES]);
    expect([...CONTROLS_LEAN]).toEqual([...KNOWN_CONTROLS]);
    expect([...CONTROLS_LEAN]).toEqual([...CONTROL_NAMES]);
    expect(KEY_ROLES_LEAN).toEqual([...KEY_ROLES]);
  });
});

describe('policy: loadPolicyLean ≡ loadPolicy', () => {
  const bases: [string, Json][] = [];
  beforeAll(() => {
    const keys = makeKeys();
    bases.push(['decision fixture', decisionPolicyDoc() as unknown as Json]);
    bases.push(['issue fixture', issuePolicyDoc(keys) as unknown as Json]);
    bases.push(['with reuse_window and probe', { ...(issuePolicyDoc(keys) as object), reuse_window: '7d' } as Json]);
    for (const f of ['default.yaml', 'strict.yaml']) {
      bases.push([f, parseStructured(readFileSync(join(REPO_ROOT, 'policies', f), 'utf8'), f) as Json]);
    }
  });

  it('accepts the valid policies with equal results', () => {
    for (const [name, doc] of bases) {
      const a = outcome(() => loadPolicy(structuredClone(doc)));
      expect('ok' in a, name).toBe(true);
      expectSame(name, a, outcome(() => loadPolicyLean(structuredClone(doc))));
    }
  });

  it('agrees on every mutation of every field', () => {
    let n = 0;
    let refused = 0;
    for (const [name, doc] of bases.slice(0, 2)) {
      for (const [label, m] of mutations(doc)) {
        const a = outcome(() => loadPolicy(structuredClone(m)));
        expectSame(`${name}: ${label}`, a, outcome(() => loadPolicyLean(structuredClone(m))));
        n++;
        if ('code' in a) refused++;
      }
    }
    // The mutation set is large and mostly refused: the comparison is not vacuous.
    expect(n).toBeGreaterThan(1000);
    expect(refused).toBeGreaterThan(n / 2);
  });

  it('agrees on the cross-field rules, each with its own code', () => {
    const base = bases[0]?.[1] as { stages: Record<string, { slots: Record<string, string> }>; reviewers: Record<string, { env: Record<string, string> }>; credentials: Record<string, { key_id: string }> };
    const cases: [string, (d: typeof base) => void, string][] = [
      ['role missing', (d) => delete d.stages.planning?.slots.source_fidelity, 'policy_roles_incomplete'],
      ['reviewer unknown', (d) => ((d.stages.development as { slots: Record<string, string> }).slots.lint = 'nobody'), 'policy_reviewer_unknown'],
      ['integration without planning', (d) => delete d.stages.planning, 'policy_invalid'],
      ['fixed env name', (d) => ((d.reviewers.coverage as { env: Record<string, string> }).env.PATH = '/x'), 'policy_invalid'],
      ['duplicate credential keys', (d) => ((d.credentials.gate as { key_id: string }).key_id = (d.credentials.log as { key_id: string }).key_id), 'policy_credentials_not_distinct'],
      ['no stage', (d) => (d.stages = {}), 'policy_invalid'],
      ['empty slots', (d) => ((d.stages.development as { slots: Record<string, string> }).slots = {}), 'policy_invalid'],
    ];
    for (const [label, mutate, code] of cases) {
      const d = structuredClone(base);
      mutate(d);
      const a = outcome(() => loadPolicy(structuredClone(d)));
      expect(a, label).toEqual({ code });
      expectSame(label, a, outcome(() => loadPolicyLean(structuredClone(d))));
    }
  });
});

describe('trust root: loadTrustRootLean ≡ loadTrustRoot', () => {
  let doc: Json;
  beforeAll(() => {
    const dir = tempDir();
    const a = makeKey(dir, 'reviewer');
    const b = makeKey(dir, 'runner');
    doc = trustRootDoc([
      { key: a, roles: ['reviewer'] },
      { key: b, roles: ['runner', 'gate'], revoked_at: '2030-01-01T00:00:00Z' },
    ]) as Json;
  });
  const normalize = (t: unknown): unknown => {
    const r = t as TrustRoot;
    return { digest: r.digest, expires: r.expires, keys: [...r.keys.values()].map((k) => ({ ...k, publicKey: k.publicKey.keyId, roles: [...k.roles] })) };
  };

  it('agrees on the valid root and on every mutation', () => {
    expectSame('valid', outcome(() => loadTrustRoot(structuredClone(doc))), outcome(() => loadTrustRootLean(structuredClone(doc))), normalize);
    let n = 0;
    for (const [label, m] of mutations(doc)) {
      expectSame(label, outcome(() => loadTrustRoot(structuredClone(m))), outcome(() => loadTrustRootLean(structuredClone(m))), normalize);
      n++;
    }
    expect(n).toBeGreaterThan(200);
  });

  it('agrees on a key whose id is not its key, a small-order key, duplicate roles, an empty window', () => {
    const keys = (doc as { keys: Record<string, Json>[] }).keys;
    const variants: Json[] = [
      { ...(doc as object), keys: [{ ...keys[0], key_id: keys[1]?.key_id ?? '' }] } as Json,
      { ...(doc as object), keys: [{ ...keys[0], public_key: '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAAQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n-----END PUBLIC KEY-----\n' }] } as Json,
      { ...(doc as object), keys: [{ ...keys[0], roles: ['reviewer', 'reviewer'] }] } as Json,
      { ...(doc as object), keys: [{ ...keys[0], not_after: keys[0]?.not_before ?? '' }] } as Json,
      { ...(doc as object), keys: [keys[0] as Json, keys[0] as Json] } as Json,
    ];
    for (const v of variants) {
      const a = outcome(() => loadTrustRoot(structuredClone(v)));
      expect('code' in a).toBe(true);
      expectSame(canonicalJson(v).slice(0, 40), a, outcome(() => loadTrustRootLean(structuredClone(v))), normalize);
    }
  });
});

describe('receipts: verifyReceiptLean ≡ verifyReceiptBytes', () => {
  let w: ReceiptWorld;
  let trust: TrustRoot;
  const opts = { at: '2026-12-01T00:00:00Z', offline: false };
  beforeAll(() => {
    w = receiptWorld();
    trust = loadTrustRoot(JSON.parse(readFileSync(w.trustPath, 'utf8')));
  });
  const both = (label: string, bytes: Buffer, o = opts): void => {
    expectSame(
      label,
      outcome(() => verifyReceiptBytes(bytes, trust, o)),
      outcome(() => verifyReceiptLean(bytes, trust, o)),
      (r) => ({ id: (r as { id: string }).id, predicate: canonicalJson((r as { predicate: unknown }).predicate) }),
    );
  };
  const signed = (statement: unknown): Buffer => Buffer.from(signEnvelope(payloadOf(statement), [w.reviewer, w.runner]));

  it('agrees on valid receipts (CLEAN and DIRTY with a veto)', () => {
    both('clean', signed(statementFor(samplePredicate())));
    const veto = { code: 'scope_omission' as const, class: 'scope' as const, severity: 'CRITICAL' as const, refs: ['DIR-1'] };
    const dirty = samplePredicate({ verdict: 'DIRTY', findings: [veto], vetoes: [veto] });
    both('dirty', signed(statementFor(dirty)));
    const a = outcome(() => verifyReceiptLean(signed(statementFor(dirty)), trust, opts));
    expect('ok' in a).toBe(true);
    // A policy slot name with a hyphen (docs/policy.md#policy-and-trust-root names: [a-z][a-z0-9_-]): the gate must count it.
    const hyphen = outcome(() => verifyReceiptLean(signed(statementFor(samplePredicate({ slot: 'lint-strict' }))), trust, opts));
    expect('ok' in hyphen).toBe(true);
  });

  it('agrees on every mutation of the statement and predicate (re-signed, so the schema decides)', () => {
    let n = 0;
    let refused = 0;
    for (const [label, m] of mutations(statementFor(samplePredicate()) as Json)) {
      let bytes: Buffer;
      try {
        bytes = signed(m);
      } catch {
        continue; // outside the canonical domain: cannot be a payload at all
      }
      const a = outcome(() => verifyReceiptBytes(bytes, trust, opts));
      both(label, bytes);
      n++;
      if ('code' in a) refused++;
    }
    expect(n).toBeGreaterThan(500);
    expect(refused).toBeGreaterThan(n / 2);
  });

  it('agrees on envelope-level tampering, signatures, keys and times', () => {
    const good = signed(statementFor(samplePredicate()));
    const env = JSON.parse(good.toString('utf8')) as { payloadType: string; payload: string; signatures: { keyid: string; sig: string }[] };
    const variants: [string, Buffer][] = [
      ['not json', Buffer.from('{')],
      ['duplicate key', Buffer.from(good.toString('utf8').replace('{"payloadType"', '{"payload":"","payloadType"'))],
      ['extra field', Buffer.from(JSON.stringify({ ...env, extra: 1 }))],
      ['payload type', Buffer.from(JSON.stringify({ ...env, payloadType: 'text/plain' }))],
      ['payload byte flipped', Buffer.from(JSON.stringify({ ...env, payload: Buffer.from(Buffer.from(env.payload, 'base64').toString('utf8').replace('CLEAN', 'CLEAM')).toString('base64') }))],
      ['non-canonical base64', Buffer.from(JSON.stringify({ ...env, payload: `${env.payload}\n` }))],
      ['one signature', Buffer.from(JSON.stringify({ ...env, signatures: env.signatures.slice(0, 1) }))],
      ['three signatures', Buffer.from(JSON.stringify({ ...env, signatures: [...env.signatures, env.signatures[0]] }))],
      ['same key twice', Buffer.from(JSON.stringify({ ...env, signatures: [env.signatures[0], env.signatures[0]] }))],
      ['no signature', Buffer.from(JSON.stringify({ ...env, signatures: [] }))],
      ['unknown key', Buffer.from(signEnvelope(payloadOf(statementFor(samplePredicate())), [w.reviewer, makeKey(tempDir(), 'stranger')]))],
      ['non-canonical payload', Buffer.from(signEnvelope(Buffer.from(JSON.stringify(statementFor(samplePredicate()), null, 1)), [w.reviewer, w.runner]))],
    ];
    for (const [label, bytes] of variants) both(label, bytes);
    both('before not_before', good, { at: '2019-01-01T00:00:00Z', offline: false });
    both('offline', good, { at: '2026-12-01T00:00:00Z', offline: true });
  });
});

describe('stored contract shape: contractShape ≡ contractSchema', () => {
  it('agrees on the SPEC example and every mutation of it', () => {
    const base = structuredClone(specExample().contract) as unknown as Json;
    expect(contractShape(base, '$')).toBeNull();
    let n = 0;
    for (const [label, m] of mutations(base)) {
      expect(contractShape(m, '$') === null, label).toBe(contractSchema.safeParse(m).success);
      n++;
    }
    expect(n).toBeGreaterThan(500);
  });
});
