// Attacks on receipt verification (docs/formats.md#receipt, docs/policy.md#policy-and-trust-root): each asserts its exact error code and exit.
import { describe, it, expect, beforeAll } from 'vitest';
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { loadTrustRoot } from '../src/core/trust-root.js';
import { verifyReceiptBytes } from '../src/core/verify-receipt.js';
import { pae } from '../src/core/dsse.js';
import { GovernedError } from '../src/core/errors.js';
import type { Finding } from '../src/core/receipt-predicate.js';
import {
  receiptWorld,
  makeKey,
  trustRootDoc,
  samplePredicate,
  statementFor,
  payloadOf,
  signEnvelope,
  writeJson,
  type ReceiptWorld,
  type TestKey,
} from './helpers/receipts.js';
import { runCli, jsonOut } from './helpers/cli.js';

const NOW = { at: '2026-11-29T12:00:00Z', offline: true };

function verifyCode(envelope: string, trustDoc: unknown): string {
  try {
    verifyReceiptBytes(Buffer.from(envelope), loadTrustRoot(trustDoc), NOW);
    return 'valid';
  } catch (e) {
    if (e instanceof GovernedError) return e.code;
    throw e;
  }
}

describe('verifyReceiptBytes', () => {
  let w: ReceiptWorld;
  let other: TestKey;
  let trust: Record<string, unknown>;
  let payload: Buffer;
  beforeAll(() => {
    w = receiptWorld();
    other = makeKey(join(w.dir, 'keys'), 'other');
    trust = JSON.parse(readFileSync(w.trustPath, 'utf8'));
    payload = payloadOf(statementFor(samplePredicate()));
  });

  it('accepts reviewer + runner signatures, in either order, and reports the receipt id', () => {
    const env = signEnvelope(payload, [w.reviewer, w.runner]);
    const r = verifyReceiptBytes(Buffer.from(env), loadTrustRoot(trust), NOW);
    expect(r.id).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(r.signedBy.map((s) => s.role).sort()).toEqual(['reviewer', 'runner']);
    expect(verifyCode(signEnvelope(payload, [w.runner, w.reviewer]), trust)).toBe('valid');
  });

  it('wrong key: a signature by a key outside the trust root → key_unknown', () => {
    expect(verifyCode(signEnvelope(payload, [w.reviewer, other]), trust)).toBe('key_unknown');
  });

  it('a forged signature under a trusted key id → signature_invalid', () => {
    const env = JSON.parse(signEnvelope(payload, [w.reviewer, other]));
    env.signatures[1].keyid = w.runner.keyId; // claims to be the runner, signed by another key
    expect(verifyCode(JSON.stringify(env), trust)).toBe('signature_invalid');
  });

  it('revoked key → key_revoked (offline: any revocation counts)', () => {
    const t = trustRootDoc([
      { key: w.reviewer, roles: ['reviewer'] },
      { key: w.runner, roles: ['runner'], revoked_at: '2027-01-01T00:00:00Z' },
    ]);
    expect(verifyCode(signEnvelope(payload, [w.reviewer, w.runner]), t)).toBe('key_revoked');
  });

  it('key outside its validity window → key_outside_validity (before and after)', () => {
    const before = trustRootDoc([
      { key: w.reviewer, roles: ['reviewer'], not_before: '2027-01-01T00:00:00Z' },
      { key: w.runner, roles: ['runner'] },
    ]);
    const after = trustRootDoc([
      { key: w.reviewer, roles: ['reviewer'] },
      { key: w.runner, roles: ['runner'], not_after: '2026-11-29T12:00:00Z' },
    ]);
    const env = signEnvelope(payload, [w.reviewer, w.runner]);
    expect(verifyCode(env, before)).toBe('key_outside_validity');
    expect(verifyCode(env, after)).toBe('key_outside_validity');
  });

  it('wrong role → key_wrong_role', () => {
    const t = trustRootDoc([
      { key: w.reviewer, roles: ['reviewer'] },
      { key: w.runner, roles: ['gate'] },
    ]);
    expect(verifyCode(signEnvelope(payload, [w.reviewer, w.runner]), t)).toBe('key_wrong_role');
  });

  it('one key with both roles signing twice counts once → signature_missing', () => {
    const t = trustRootDoc([{ key: w.reviewer, roles: ['reviewer', 'runner'] }]);
    expect(verifyCode(signEnvelope(payload, [w.reviewer, w.reviewer]), t)).toBe('signature_missing');
  });

  it('missing runner signature → signature_missing; no signatures → signature_missing', () => {
    expect(verifyCode(signEnvelope(payload, [w.reviewer]), trust)).toBe('signature_missing');
    expect(verifyCode(signEnvelope(payload, []), trust)).toBe('signature_missing');
  });

  it('three signatures → signature_extra', () => {
    expect(verifyCode(signEnvelope(payload, [w.reviewer, w.runner, w.runner]), trust)).toBe('signature_extra');
  });

  it('extra envelope field → envelope_invalid', () => {
    const env = JSON.parse(signEnvelope(payload, [w.reviewer, w.runner]));
    env.comment = 'hi';
    expect(verifyCode(JSON.stringify(env), trust)).toBe('envelope_invalid');
  });

  it('non-canonical payload (whitespace, key order) signed by both keys → payload_not_canonical', () => {
    const st = statementFor(samplePredicate());
    expect(verifyCode(signEnvelope(Buffer.from(JSON.stringify(st, null, 1)), [w.reviewer, w.runner]), trust)).toBe('payload_not_canonical');
    const reordered = Buffer.from(JSON.stringify({ subject: st.subject, _type: st._type, predicateType: st.predicateType, predicate: st.predicate }));
    expect(verifyCode(signEnvelope(reordered, [w.reviewer, w.runner]), trust)).toBe('payload_not_canonical');
    const dup = Buffer.from(payload.toString().replace('{"_type"', '{"_type":"x","_type"'));
    expect(verifyCode(signEnvelope(dup, [w.reviewer, w.runner]), trust)).toBe('payload_not_canonical');
  });

  it('wrong payloadType → payload_type_invalid (checked before signatures)', () => {
    expect(verifyCode(signEnvelope(payload, [w.reviewer, w.runner], 'application/json'), trust)).toBe('payload_type_invalid');
  });

  it('predicate and statement schema violations', () => {
    const sign = (p: unknown): string => signEnvelope(payloadOf(p), [w.reviewer, w.runner]);
    const st = statementFor(samplePredicate());
    expect(verifyCode(sign({ ...st, predicateType: 'https://example.com/other' }), trust)).toBe('statement_invalid');
    expect(verifyCode(sign({ ...st, extra: 1 }), trust)).toBe('statement_invalid');
    expect(verifyCode(sign(statementFor({ ...samplePredicate(), stage: 'bogus' as never })), trust)).toBe('predicate_invalid');
    expect(verifyCode(sign(statementFor({ ...samplePredicate(), note: 'free text' } as never)), trust)).toBe('predicate_invalid');
    // CLEAN with a finding, DIRTY without, a veto not listed as a veto
    const f: Finding = { code: 'scope_omission', class: 'scope', severity: 'CRITICAL', refs: ['DIR-1'] };
    expect(verifyCode(sign(statementFor(samplePredicate({ findings: [f] }))), trust)).toBe('predicate_invalid');
    expect(verifyCode(sign(statementFor(samplePredicate({ verdict: 'DIRTY' }))), trust)).toBe('predicate_invalid');
    expect(verifyCode(sign(statementFor(samplePredicate({ verdict: 'DIRTY', findings: [f] }))), trust)).toBe('predicate_invalid');
    expect(verifyCode(sign(statementFor(samplePredicate({ verdict: 'DIRTY', findings: [f], vetoes: [f] }))), trust)).toBe('valid');
    // subject must be the workspace digest the predicate binds
    const wrongSubject = { ...st, subject: [{ name: 'workspace', digest: { sha256: 'f'.repeat(64) } }] };
    expect(verifyCode(sign(wrongSubject), trust)).toBe('statement_invalid');
  });

  it('one flipped payload byte fails', () => {
    const env = JSON.parse(signEnvelope(payload, [w.reviewer, w.runner]));
    const p = Buffer.from(env.payload, 'base64');
    const i = p.indexOf(Buffer.from('"CLEAN"'));
    p[i + 1] = 'D'.charCodeAt(0); // "CLEAN" → "DLEAN"
    env.payload = p.toString('base64');
    expect(verifyCode(JSON.stringify(env), trust)).toBe('signature_invalid');
    const q = Buffer.from(payload);
    q[q.indexOf(Buffer.from('coverage'))] = 'd'.charCodeAt(0);
    const env2 = JSON.parse(signEnvelope(payload, [w.reviewer, w.runner]));
    env2.payload = q.toString('base64');
    expect(verifyCode(JSON.stringify(env2), trust)).toBe('signature_invalid');
  });
});

describe('governed verify (CLI) and openssl interop', () => {
  let w: ReceiptWorld;
  let receiptPath: string;
  beforeAll(() => {
    w = receiptWorld();
    receiptPath = join(w.dir, 'receipt.json');
    writeFileSync(receiptPath, signEnvelope(payloadOf(statementFor(samplePredicate())), [w.reviewer, w.runner]));
  });

  it('exit 0 for a valid receipt, one JSON object with --json', () => {
    const r = runCli(['verify', receiptPath, '--trust', w.trustPath, '--json']);
    expect(r.code).toBe(0);
    const out = jsonOut(r);
    expect(out.ok).toBe(true);
    expect((out.receipts as { valid: boolean }[])[0]?.valid).toBe(true);
  });

  it('a receipt verifies with openssl pkeyutl over PAE bytes built independently; a flipped byte fails there and exits 4 here', () => {
    const env = JSON.parse(readFileSync(receiptPath, 'utf8'));
    const payload = Buffer.from(env.payload, 'base64');
    // Build PAE by hand, not with governed's pae(): "DSSEv1 <len> <type> <len> <body>".
    const type = env.payloadType as string;
    const paeBytes = Buffer.concat([Buffer.from(`DSSEv1 ${Buffer.byteLength(type)} ${type} ${payload.length} `), payload]);
    expect(paeBytes.equals(pae(type, payload))).toBe(true);
    for (const s of env.signatures as { keyid: string; sig: string }[]) {
      const key = s.keyid === w.reviewer.keyId ? w.reviewer.publicKeyPath : w.runner.publicKeyPath;
      writeFileSync(join(w.dir, 'pae.bin'), paeBytes);
      writeFileSync(join(w.dir, 'sig.bin'), Buffer.from(s.sig, 'base64'));
      const ok = spawnSync('openssl', ['pkeyutl', '-verify', '-pubin', '-inkey', key, '-rawin', '-in', join(w.dir, 'pae.bin'), '-sigfile', join(w.dir, 'sig.bin')], { encoding: 'utf8' });
      expect(ok.status).toBe(0);
      const flipped = Buffer.from(paeBytes);
      flipped[flipped.length - 5] = (flipped[flipped.length - 5] as number) ^ 1;
      writeFileSync(join(w.dir, 'pae.bin'), flipped);
      const bad = spawnSync('openssl', ['pkeyutl', '-verify', '-pubin', '-inkey', key, '-rawin', '-in', join(w.dir, 'pae.bin'), '-sigfile', join(w.dir, 'sig.bin')], { encoding: 'utf8' });
      expect(bad.status).not.toBe(0);
    }
    const p = Buffer.from(env.payload, 'base64');
    p[p.length - 5] = (p[p.length - 5] as number) ^ 1;
    env.payload = p.toString('base64');
    const tampered = join(w.dir, 'tampered.json');
    writeFileSync(tampered, JSON.stringify(env));
    const r = runCli(['verify', tampered, '--trust', w.trustPath]);
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('INVALID');
  });

  it('exit codes: 6 untrusted key, 5 expired trust root, 2 usage and missing trust, precedence over several receipts', () => {
    const other = makeKey(join(w.dir, 'k2'), 'x');
    const untrusted = join(w.dir, 'untrusted.json');
    writeFileSync(untrusted, signEnvelope(payloadOf(statementFor(samplePredicate())), [w.reviewer, other]));
    expect(runCli(['verify', untrusted, '--trust', w.trustPath]).code).toBe(6);
    const tampered = join(w.dir, 'tampered.json');
    // 4 wins over 6 when both occur (docs/commands.md#exit-codes precedence)
    expect(runCli(['verify', untrusted, tampered, '--trust', w.trustPath]).code).toBe(4);
    const expired = writeJson(join(w.dir, 'expired.json'), { ...JSON.parse(readFileSync(w.trustPath, 'utf8')), expires: '2020-01-01T00:00:00Z' });
    const e = runCli(['verify', receiptPath, '--trust', expired, '--json']);
    expect(e.code).toBe(5);
    expect((jsonOut(e).error as { code: string }).code).toBe('trust_root_expired');
    expect(runCli(['verify', receiptPath]).code).toBe(2);
    expect(runCli(['verify']).code).toBe(2);
    expect(runCli(['verify', receiptPath, '--trust', w.trustPath, '--bogus']).code).toBe(2);
    const badTrust = writeJson(join(w.dir, 'bad-trust.json'), { version: 1, keys: [] });
    const b = runCli(['verify', receiptPath, '--trust', badTrust, '--json']);
    expect(b.code).toBe(2);
    expect((jsonOut(b).error as { code: string }).code).toBe('trust_root_invalid');
  });

  it('never prints receipt or payload content on failure', () => {
    const secret = 'SECRET-CANARY-7f3a';
    const env = { payloadType: 'application/vnd.in-toto+json', payload: Buffer.from(`{"x":"${secret}"}`).toString('base64'), signatures: [] };
    const p = writeJson(join(w.dir, 'canary.json'), env);
    const r = runCli(['verify', p, '--trust', w.trustPath, '--json']);
    expect(r.code).toBe(4);
    expect(r.stdout + r.stderr).not.toContain(secret);
    expect(r.stdout + r.stderr).not.toContain(env.payload);
  });
});

describe('a UTF-8 byte order mark is content, never silently dropped', () => {
  it('a payload with a leading BOM signed by both keys is not canonical (TextDecoder ignoreBOM: true)', () => {
    const w = receiptWorld();
    const payload = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), payloadOf(statementFor(samplePredicate()))]);
    const env = signEnvelope(payload, [w.reviewer, w.runner]);
    expect(verifyCode(env, JSON.parse(readFileSync(w.trustPath, 'utf8')))).toBe('payload_not_canonical');
  });
});
