// The signed decision as a consumer of SLSA VSA v1 checks it, signed by the real shipped attestor
// with a real gate key: field by field against the VSA v1 spec, then verified by three independent
// verifiers — `governed verify --vsa`, openssl over the DSSE PAE bytes, and @sigstore/verify through
// the Sigstore bundle v0.3 governed writes — and one changed byte is refused by each. Also
// `governed verify --log-checkpoint`: one signature, the right role, the predicate's rules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createHash, createPublicKey, sign as nodeSign, createPrivateKey } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toSignedEntity, toTrustMaterial, Verifier } from '@sigstore/verify';
// @sigstore/verify's own bundle parser (its dependency): JSON bundle → the entity it verifies.
import { bundleFromJSON } from '@sigstore/bundle';
import { canonicalJson } from '../src/core/canonical.js';
import { IN_TOTO_PAYLOAD_TYPE } from '../src/core/dsse.js';
import { pae } from '../src/core/pae.js';
import { buildVsaStatement, VSA_EXTENSION_KEY, type DecisionForVsa } from '../src/core/vsa.js';
import { buildCheckpointStatement } from '../src/core/checkpoint.js';
import { containersOf } from '../src/core/sigstore-bundle.js';
import { jsonOut, REPO_ROOT, runCli } from './helpers/cli.js';
import { sampleDecisionForVsa, writeJson } from './helpers/receipts.js';
import { cleanupDirs, makeKeys, tempDir, trustDoc, type Keys } from './state-helpers.js';

const ATTESTOR = join(REPO_ROOT, 'attestors', 'ed25519-file.mjs');
const attestorSha = createHash('sha256').update(readFileSync(ATTESTOR)).digest('hex');
const COMMIT = 'b'.repeat(40);
let dir: string;
let keys: Keys;
let trustFile: string;

/** Sign a statement with the shipped attestor (as the gate does) and return the envelope JSON text. */
function attestorSign(statement: unknown, credential: 'gate' | 'log', kind: 'decision' | 'checkpoint'): string {
  const cfg = writeJson(join(dir, `${credential}.json`), { credential, kind, key_id: keys[credential].keyId, key_ref: keys[credential].privateKeyPath });
  const payload = Buffer.from(canonicalJson(statement), 'utf8');
  const r = spawnSync(process.execPath, [ATTESTOR, cfg], {
    input: JSON.stringify({ payloadType: IN_TOTO_PAYLOAD_TYPE, payload: payload.toString('base64') }),
    env: { PATH: '/usr/bin:/bin' },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`attestor refused: ${r.stderr}`);
  const { keyid, sig } = JSON.parse(r.stdout) as { keyid: string; sig: string };
  return `${JSON.stringify({ payloadType: IN_TOTO_PAYLOAD_TYPE, payload: payload.toString('base64'), signatures: [{ keyid, sig }] })}\n`;
}

const decision = (over: Partial<DecisionForVsa> = {}): DecisionForVsa =>
  sampleDecisionForVsa({
    attestorSha256: attestorSha,
    subject: { commit: COMMIT, manifestDigest: `sha256:${'3'.repeat(64)}` },
    verifierId: 'https://ci.example.org/governed-gate/prod',
    repositoryUri: 'git+https://git.example.org/team/product.git',
    ...over,
  });

/** The same envelope with one payload byte changed (a letter of the outcome). */
function flipped(envelopeText: string): string {
  const env = JSON.parse(envelopeText) as { payload: string };
  const payload = Buffer.from(env.payload, 'base64');
  const at = payload.indexOf(Buffer.from('"PASSED"')) + 1;
  payload[at] = (payload[at] as number) ^ 0x01;
  return `${JSON.stringify({ ...env, payload: payload.toString('base64') })}\n`;
}

function openssl(envelopeText: string, key: Keys['gate']): boolean {
  const env = JSON.parse(envelopeText) as { payloadType: string; payload: string; signatures: { sig: string }[] };
  writeFileSync(join(dir, 'pae.bin'), pae(env.payloadType, Buffer.from(env.payload, 'base64')));
  writeFileSync(join(dir, 'sig.bin'), Buffer.from(env.signatures[0]?.sig ?? '', 'base64'));
  const r = spawnSync('openssl', ['pkeyutl', '-verify', '-pubin', '-inkey', key.publicKeyPath, '-rawin', '-in', join(dir, 'pae.bin'), '-sigfile', join(dir, 'sig.bin')], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('Signature Verified Successfully');
}

/** @sigstore/verify over governed's Sigstore bundle v0.3, the public key given out of band (the trust root). */
function sigstoreVerify(envelopeText: string, key: Keys['gate']): { ok: boolean; error?: string } {
  const bundles = containersOf(Buffer.from(envelopeText), 'vsa');
  const bundle = JSON.parse((bundles.get('sigstore/vsa.0.sigstore.json') as Buffer).toString('utf8'));
  const der = createPublicKey(readFileSync(key.publicKeyPath, 'utf8')).export({ format: 'der', type: 'spki' });
  const trustedRoot = { mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1', tlogs: [], certificateAuthorities: [], ctlogs: [], timestampAuthorities: [] };
  const material = toTrustMaterial(trustedRoot as never, {
    [key.keyId]: { rawBytes: der, keyDetails: 'PKIX_ED25519', validFor: { start: new Date('2020-01-01T00:00:00Z') } } as never,
  });
  try {
    new Verifier(material, { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 }).verify(toSignedEntity(bundleFromJSON(bundle)));
    return { ok: true };
  } catch (e) {
    return { ok: false, error: `${(e as Error).name}: ${(e as Error).message}` };
  }
}

const verifyCli = (args: string[]) => {
  const r = runCli(['verify', ...args, '--trust', trustFile, '--json']);
  return { code: r.code, out: jsonOut(r) };
};

beforeAll(() => {
  dir = tempDir('gvd-eco-vsa-');
  keys = makeKeys(join(dir, 'keys'));
  trustFile = writeJson(join(dir, 'trust.json'), trustDoc(keys));
});
afterAll(() => cleanupDirs());

describe('the signed decision against SLSA VSA v1, field by field', () => {
  it('PASSED: statement, subject with gitCommit, verifier, resourceUri, policy, levels, extension key', () => {
    const st = buildVsaStatement(decision()) as unknown as Record<string, any>;
    // in-toto Statement v1
    expect(st._type).toBe('https://in-toto.io/Statement/v1');
    expect(st.predicateType).toBe('https://slsa.dev/verification_summary/v1');
    // subject: the artifact verified — digest set with the content digest and the commit (in-toto DigestSet names)
    expect(st.subject).toEqual([{ name: 'workspace', digest: { sha256: '3'.repeat(64), gitCommit: COMMIT } }]);
    const p = st.predicate;
    // verifier.id REQUIRED, a URI, per deployment (from the policy)
    expect(p.verifier).toEqual({ id: 'https://ci.example.org/governed-gate/prod', version: { governed: '0.1.0' } });
    // timeVerified: RFC 3339 timestamp
    expect(p.timeVerified).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    // resourceUri REQUIRED: the repository and commit (SPDX download-location style)
    expect(p.resourceUri).toBe(`git+https://git.example.org/team/product.git@${COMMIT}`);
    // policy REQUIRED: a ResourceDescriptor with uri and digest
    expect(p.policy).toEqual({ uri: 'https://governed.dev/policy', digest: { sha256: '1'.repeat(64) } });
    // inputAttestations: ResourceDescriptors (uri + digest)
    for (const a of p.inputAttestations) {
      expect(Object.keys(a).sort()).toEqual(['digest', 'uri']);
      expect(a.digest.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    // verificationResult REQUIRED: PASSED | FAILED; verifiedLevels REQUIRED, custom levels never SLSA_*
    expect(p.verificationResult).toBe('PASSED');
    expect(p.verifiedLevels).toEqual(['GOVERNED_RELEASE_ELIGIBLE']);
    expect(p.verifiedLevels.some((l: string) => l.startsWith('SLSA_'))).toBe(false);
    expect(p.slsaVersion).toBe('1.0');
    // Every other predicate key is an extension, and every extension key is a URI.
    const standard = ['verifier', 'timeVerified', 'resourceUri', 'policy', 'inputAttestations', 'verificationResult', 'verifiedLevels', 'dependencyLevels', 'slsaVersion'];
    const extensions = Object.keys(p).filter((k) => !standard.includes(k));
    expect(extensions).toEqual([VSA_EXTENSION_KEY]);
    for (const k of extensions) expect(() => new URL(k)).not.toThrow();
  });

  it('FAILED: verifiedLevels is ["FAILED"] as SLSA requires, and the reasons are in the extension', () => {
    const st = buildVsaStatement(decision({ state: 'REVIEW_ONLY', reasons: [{ code: 'streak_incomplete', ids: ['integration'] }] }));
    expect(st.predicate.verificationResult).toBe('FAILED');
    expect(st.predicate.verifiedLevels).toEqual(['FAILED']);
    expect(st.predicate[VSA_EXTENSION_KEY].reasons).toEqual([{ code: 'streak_incomplete', ids: ['integration'] }]);
  });

  it('without the policy fields: the governed verifier id and a git+commit resource', () => {
    const st = buildVsaStatement(decision({ verifierId: undefined, repositoryUri: undefined }));
    expect(st.predicate.verifier.id).toBe('https://governed.dev/gate/v1');
    expect(st.predicate.resourceUri).toBe(`git+commit:${COMMIT}`);
  });
});

describe('three independent verifiers accept the signed decision; one changed byte is refused by each', () => {
  let vsa: string;
  let tampered: string;
  beforeAll(() => {
    vsa = attestorSign(buildVsaStatement(decision()), 'gate', 'decision');
    tampered = flipped(vsa);
    writeFileSync(join(dir, 'vsa.json'), vsa);
    writeFileSync(join(dir, 'tampered.json'), tampered);
  });

  it('governed verify --vsa --subject', () => {
    const r = verifyCli(['--vsa', join(dir, 'vsa.json'), '--subject', COMMIT]);
    expect(r.code).toBe(0);
    expect(r.out).toMatchObject({ ok: true, kind: 'vsa', valid: true, verification_result: 'PASSED', state: 'RELEASE_ELIGIBLE', subject: { commit: COMMIT } });
    expect(r.out.signed_by).toEqual([{ role: 'gate', key_id: keys.gate.keyId }]);
    const other = verifyCli(['--vsa', join(dir, 'vsa.json'), '--subject', 'a'.repeat(40)]);
    expect(other.code).toBe(4);
    expect(other.out.error).toMatchObject({ code: 'vsa_subject_mismatch' });
    const bad = verifyCli(['--vsa', join(dir, 'tampered.json')]);
    expect(bad.code).toBe(4);
    expect(bad.out.error).toMatchObject({ code: 'signature_invalid' });
  });

  it('openssl pkeyutl -rawin over the PAE bytes', () => {
    expect(openssl(vsa, keys.gate)).toBe(true);
    expect(openssl(tampered, keys.gate)).toBe(false);
  });

  it('@sigstore/verify through the Sigstore bundle v0.3 (public-key hint)', () => {
    const bundle = JSON.parse((containersOf(Buffer.from(vsa), 'vsa').get('sigstore/vsa.0.sigstore.json') as Buffer).toString('utf8'));
    expect(bundle.mediaType).toBe('application/vnd.dev.sigstore.bundle.v0.3+json');
    expect(bundle.verificationMaterial.publicKey).toEqual({ hint: keys.gate.keyId });
    expect(sigstoreVerify(vsa, keys.gate)).toEqual({ ok: true });
    expect(sigstoreVerify(tampered, keys.gate).ok).toBe(false);
    // Positive control of the key check: the right bytes under another key are refused too.
    expect(sigstoreVerify(vsa, { ...keys.log, keyId: keys.gate.keyId }).ok).toBe(false);
  });

  it('the .intoto.jsonl line is the envelope itself', () => {
    const line = (containersOf(Buffer.from(vsa), 'vsa').get('intoto/vsa.intoto.jsonl') as Buffer).toString('utf8');
    expect(line.endsWith('\n')).toBe(true);
    expect(line.trimEnd().includes('\n')).toBe(false);
    expect(JSON.parse(line)).toEqual(JSON.parse(vsa));
  });

  it('refuses a second signature, a signature by a key without the gate role, and a receipt posing as a decision', () => {
    const env = JSON.parse(vsa) as { payloadType: string; payload: string; signatures: { keyid: string; sig: string }[] };
    const m = pae(env.payloadType, Buffer.from(env.payload, 'base64'));
    const logSig = nodeSign(null, m, createPrivateKey(readFileSync(keys.log.privateKeyPath))).toString('base64');
    writeFileSync(join(dir, 'two.json'), JSON.stringify({ ...env, signatures: [...env.signatures, { keyid: keys.log.keyId, sig: logSig }] }));
    expect(verifyCli(['--vsa', join(dir, 'two.json')]).out.error).toMatchObject({ code: 'signature_extra' });
    writeFileSync(join(dir, 'log-signed.json'), JSON.stringify({ ...env, signatures: [{ keyid: keys.log.keyId, sig: logSig }] }));
    const wrongRole = verifyCli(['--vsa', join(dir, 'log-signed.json')]);
    expect({ code: wrongRole.code, error: (wrongRole.out.error as { code: string }).code }).toEqual({ code: 6, error: 'key_wrong_role' });
    // The decision file given as a checkpoint: the gate key has no log role.
    expect(verifyCli(['--log-checkpoint', join(dir, 'vsa.json')]).out.error).toMatchObject({ code: 'key_wrong_role' });
  });
});

describe('governed verify --log-checkpoint', () => {
  it('verifies a checkpoint signed by the log attestor; a changed byte and a wrong kind are refused', () => {
    const st = buildCheckpointStatement({
      trust_mode: 'co-located',
      log_entries: 7,
      log_head: `sha256:${'a'.repeat(64)}`,
      state_digest: `sha256:${'b'.repeat(64)}`,
      policy_digest: `sha256:${'c'.repeat(64)}`,
      trust_digest: `sha256:${'d'.repeat(64)}`,
      attestor_sha256: attestorSha,
      made_at: '2026-12-01T00:00:00Z',
    });
    const text = attestorSign(st, 'log', 'checkpoint');
    writeFileSync(join(dir, 'cp.json'), text);
    const r = verifyCli(['--log-checkpoint', join(dir, 'cp.json')]);
    expect(r.code).toBe(0);
    expect(r.out).toMatchObject({ kind: 'checkpoint', valid: true, log_entries: 7, signed_by: [{ role: 'log', key_id: keys.log.keyId }] });
    const env = JSON.parse(text) as { payload: string };
    const payload = Buffer.from(env.payload, 'base64');
    payload[payload.indexOf(Buffer.from('"log_entries":7')) + 14] = '8'.charCodeAt(0);
    writeFileSync(join(dir, 'cp-bad.json'), JSON.stringify({ ...JSON.parse(text), payload: payload.toString('base64') }));
    expect(verifyCli(['--log-checkpoint', join(dir, 'cp-bad.json')]).out.error).toMatchObject({ code: 'signature_invalid' });
    // A checkpoint is not a decision: the log key has no gate role.
    expect(verifyCli(['--vsa', join(dir, 'cp.json')]).out.error).toMatchObject({ code: 'key_wrong_role' });
  });

  it('takes one kind at a time, and --subject only with --vsa', () => {
    const both = verifyCli(['--vsa', join(dir, 'cp.json'), '--log-checkpoint', join(dir, 'cp.json')]);
    expect(both.code).toBe(2);
    expect(both.out.error).toMatchObject({ code: 'verify_kind_conflict' });
    const subjectOnly = verifyCli(['--log-checkpoint', join(dir, 'cp.json'), '--subject', COMMIT]);
    expect(subjectOnly.out.error).toMatchObject({ code: 'usage_error', ids: ['--subject'] });
  });
});
