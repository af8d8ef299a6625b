// The signed decision (docs/commands.md#what-each-command-guarantees `gate --attest`, docs/formats.md#receipt, docs/formats.md#attestors, docs/policy.md#policy-and-trust-root; acceptance tests of deploy_gate):
// the `decision` kind of the Ed25519 file-key attestor — bundled here from attestors/src exactly as
// scripts/build.mjs bundles it (one self-contained file) — signs only a SLSA VSA whose fields it can
// check, with the gate credential, naming its own sha256; the review-receipt path is unchanged; and
// `governed gate --attest` writes a DSSE envelope that verifies under the gate key of the deploy-side
// trust root (node:crypto and openssl), for exactly the decision it printed.
import { spawnSync, execFileSync } from 'node:child_process';
import { createHash, createPublicKey, verify as nodeVerify } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs build script without type declarations
import { buildPinned } from '../scripts/pinned-build.mjs';
import { canonicalJson } from '../src/core/canonical.js';
import { IN_TOTO_PAYLOAD_TYPE, pae } from '../src/core/dsse.js';
import { buildVsaStatement, VSA_EXTENSION_KEY, VSA_PREDICATE_TYPE, type DecisionForVsa } from '../src/core/vsa.js';
import { REPO_ROOT } from './helpers/cli.js';
import { sampleDecisionForVsa, samplePredicate, statementFor, trustRootDoc, writeJson } from './helpers/receipts.js';
import { cleanupDirs, govOk, makeKeys, policyDoc, tempDir, trustDoc, type Keys } from './state-helpers.js';
import { cloneHome, eligibleStory, expectGateRefused, gate, gateJson, SESSION, storeDigestAt, type Story } from './gate-world.js';
import { makeTempDir } from './helpers/temp.js';

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
let attestor: string;
let attestorSha: string;
let keys: Keys;
let gateCfg: string;
let dir: string;

beforeAll(async () => {
  // The pinned program, built like scripts/build.mjs builds attestors/ed25519-file.mjs.
  const out = makeTempDir('governed-attestor-build-');
  attestor = join(out, 'ed25519-file.mjs');
  await buildPinned('attestors/src/ed25519-file.ts', attestor, REPO_ROOT);
  attestorSha = sha(readFileSync(attestor));
  dir = tempDir('governed-gate-attest-');
  keys = makeKeys(join(dir, 'keys'));
  gateCfg = writeJson(join(dir, 'gate-attestor.json'), { credential: 'gate', kind: 'decision', key_id: keys.gate.keyId, key_ref: keys.gate.privateKeyPath });
}, 60_000);
afterAll(() => cleanupDirs());

const decision = (over: Partial<DecisionForVsa> = {}): DecisionForVsa => sampleDecisionForVsa({ authorities: [], attestorSha256: attestorSha, ...over });

/** Run the attestor directly (as the host does, from a config path); returns exit code and stderr. */
function sign(statement: unknown, cfg = gateCfg): { code: number | null; stdout: string; stderr: string } {
  const payload = Buffer.from(canonicalJson(statement), 'utf8');
  const r = spawnSync(process.execPath, [attestor, cfg], {
    input: JSON.stringify({ payloadType: IN_TOTO_PAYLOAD_TYPE, payload: payload.toString('base64') }),
    env: { PATH: '/usr/bin:/bin' },
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the decision kind of the attestor (docs/formats.md#attestors: not blind)', () => {
  it('signs a VSA of its kind with the gate key; the signature verifies under node:crypto', () => {
    const statement = buildVsaStatement(decision());
    const r = sign(statement);
    expect(r.code).toBe(0);
    const { keyid, sig } = JSON.parse(r.stdout) as { keyid: string; sig: string };
    expect(keyid).toBe(keys.gate.keyId);
    const m = pae(IN_TOTO_PAYLOAD_TYPE, Buffer.from(canonicalJson(statement)));
    expect(nodeVerify(null, m, createPublicKey(keys.gate.publicPem), Buffer.from(sig, 'base64'))).toBe(true);
  });

  it('signs a FAILED summary of a REVIEW_ONLY decision too', () => {
    const s = buildVsaStatement(decision({ state: 'REVIEW_ONLY', reasons: [{ code: 'streak_incomplete', ids: ['integration'] }] }));
    expect(s.predicate.verificationResult).toBe('FAILED');
    expect(sign(s).code).toBe(0);
  });

  it.each([
    ['another attestor named in the predicate', () => buildVsaStatement(decision({ attestorSha256: 'f'.repeat(64) })), 'self_digest_mismatch'],
    ['PASSED with a reason', () => {
      const s = buildVsaStatement(decision());
      return { ...s, predicate: { ...s.predicate, [VSA_EXTENSION_KEY]: { ...s.predicate[VSA_EXTENSION_KEY], reasons: [{ code: 'lease_active', ids: ['LSE-1'] }] } } };
    }, 'predicate_invalid'],
    ['FAILED for an eligible state', () => {
      const s = buildVsaStatement(decision());
      return { ...s, predicate: { ...s.predicate, verificationResult: 'FAILED', verifiedLevels: ['FAILED'] } };
    }, 'predicate_invalid'],
    ['a subject that is not the manifest it names', () => { const s = buildVsaStatement(decision()); return { ...s, subject: [{ name: 'workspace', digest: { ...s.subject[0]!.digest, sha256: '9'.repeat(64) } }] }; }, 'predicate_invalid'],
    ['a subject without its commit', () => { const s = buildVsaStatement(decision()); return { ...s, subject: [{ name: 'workspace', digest: { sha256: s.subject[0]!.digest.sha256 } }] }; }, 'predicate_invalid'],
    ['a FAILED result without the FAILED level', () => {
      const s = buildVsaStatement(decision({ state: 'REVIEW_ONLY', reasons: [{ code: 'streak_incomplete', ids: ['integration'] }] }));
      return { ...s, predicate: { ...s.predicate, verifiedLevels: [] } };
    }, 'predicate_invalid'],
    ['an unknown field', () => {
      const s = buildVsaStatement(decision());
      return { ...s, predicate: { ...s.predicate, note: 'x' } };
    }, 'predicate_invalid'],
    ['a reason id with text in it', () => buildVsaStatement(decision({ state: 'REVIEW_ONLY', reasons: [{ code: 'streak_incomplete', ids: ['some words here'] }] })), 'predicate_invalid'],
    ['a review receipt', () => statementFor(samplePredicate()), 'foreign_kind'],
  ])('refuses %s', (_name, make, code) => {
    const r = sign(make());
    expect(r.code).toBe(3);
    expect(r.stderr.trim()).toBe(`refused:${code}`);
    expect(r.stdout).toBe('');
  });

  it('refuses the decision kind under any credential but gate', () => {
    const cfg = writeJson(join(dir, 'reviewer-decision.json'), { credential: 'reviewer', kind: 'decision', key_id: keys.reviewer.keyId, key_ref: keys.reviewer.privateKeyPath });
    const r = sign(buildVsaStatement(decision()), cfg);
    expect(r.code).toBe(3);
    expect(r.stderr.trim()).toBe('refused:credential_role');
  });

  it('keeps the review-receipt path: a reviewer attestor signs its receipt and refuses a VSA', () => {
    const cfg = writeJson(join(dir, 'reviewer.json'), { credential: 'reviewer', kind: 'review-receipt', key_id: keys.reviewer.keyId, key_ref: keys.reviewer.privateKeyPath });
    expect(sign(statementFor(samplePredicate({ attestors: { reviewer_sha256: attestorSha, runner_sha256: '0'.repeat(64) } })), cfg).code).toBe(0);
    const r = sign(buildVsaStatement(decision()), cfg);
    expect(r.code).toBe(3);
    expect(r.stderr.trim()).toBe('refused:foreign_kind');
  });
});

describe('governed gate --attest', () => {
  let s: Story;
  let out: string;
  beforeAll(() => {
    const cred = (k: { keyId: string }, c: string) => ({ key_id: k.keyId, attestor_sha256: [c.repeat(64)], attestor_config_sha256: [c.repeat(64)] });
    const policy = policyDoc(keys, {
      credentials: {
        reviewer: cred(keys.reviewer, '5'),
        runner: cred(keys.runner, '6'),
        gate: { key_id: keys.gate.keyId, attestor_sha256: [attestorSha], attestor_config_sha256: [sha(readFileSync(gateCfg))] },
        log: cred(keys.log, '8'),
      },
    });
    s = eligibleStory({ policy, keys });
    out = join(tempDir(), 'decision.vsa.json');
  }, 120_000);

  const attestArgs = (file: string, cfg = gateCfg, prog = attestor): string[] => ['--attest', file, '--attestor', prog, '--attestor-config', cfg];

  it('writes the decision as a signed VSA for exactly the decision printed (exit 0)', () => {
    const before = storeDigestAt(s.w.home);
    const r = gate(s, { extra: attestArgs(out) });
    expect(r.code).toBe(0);
    const d = gateJson(r);
    expect(d.attestation?.path).toBe(out);
    expect(storeDigestAt(s.w.home)).toBe(before);
    const env = JSON.parse(readFileSync(out, 'utf8')) as { payloadType: string; payload: string; signatures: { keyid: string; sig: string }[] };
    expect(env.payloadType).toBe(IN_TOTO_PAYLOAD_TYPE);
    expect(env.signatures).toHaveLength(1);
    expect(env.signatures[0]?.keyid).toBe(keys.gate.keyId);
    const payload = Buffer.from(env.payload, 'base64');
    expect(`sha256:${sha(payload)}`).toBe(d.attestation?.payloadDigest);
    const m = pae(IN_TOTO_PAYLOAD_TYPE, payload);
    expect(nodeVerify(null, m, createPublicKey(keys.gate.publicPem), Buffer.from(env.signatures[0]?.sig ?? '', 'base64'))).toBe(true);
    const st = JSON.parse(payload.toString('utf8')) as ReturnType<typeof buildVsaStatement>;
    expect(canonicalJson(st)).toBe(payload.toString('utf8'));
    expect(st.predicateType).toBe(VSA_PREDICATE_TYPE);
    expect(st.subject).toEqual([{ name: 'workspace', digest: { sha256: d.subject.manifestDigest?.slice(7), gitCommit: s.subject } }]);
    expect(st.predicate).toMatchObject({
      verificationResult: 'PASSED',
      verifiedLevels: ['GOVERNED_RELEASE_ELIGIBLE'],
      resourceUri: `git+commit:${s.subject}`,
      timeVerified: d.evaluatedAt,
      policy: { digest: { sha256: s.policyDigest.slice(7) } },
    });
    expect(st.predicate[VSA_EXTENSION_KEY]).toMatchObject({
      unit: s.unit,
      state: 'RELEASE_ELIGIBLE',
      reasons: [],
      attestor_sha256: attestorSha,
      preservation_waiver: d.preservationWaiver,
      gate_trust_digest: d.gateTrustDigest,
    });
    expect(st.predicate.inputAttestations.map((a) => `sha256:${a.digest.sha256}`).sort()).toEqual([...(d.reliedOn?.receipts ?? [])].sort());
    // The signed verifier version is package.json's (src/core/version.ts, injected by the build).
    expect(st.predicate.verifier.version.governed).toBe((JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version);
  });

  it('the VSA verifies with a standard tool too (openssl pkeyutl -rawin over the PAE bytes)', () => {
    const env = JSON.parse(readFileSync(out, 'utf8')) as { payload: string; signatures: { sig: string }[] };
    const t = tempDir();
    writeFileSync(join(t, 'pae.bin'), pae(IN_TOTO_PAYLOAD_TYPE, Buffer.from(env.payload, 'base64')));
    writeFileSync(join(t, 'sig.bin'), Buffer.from(env.signatures[0]?.sig ?? '', 'base64'));
    const ok = execFileSync('openssl', ['pkeyutl', '-verify', '-pubin', '-inkey', keys.gate.publicKeyPath, '-rawin', '-in', join(t, 'pae.bin'), '-sigfile', join(t, 'sig.bin')], {
      encoding: 'utf8',
    });
    expect(ok).toContain('Signature Verified Successfully');
  });

  it('never overwrites an attestation (exit 2, file untouched)', () => {
    const bytes = readFileSync(out);
    expectGateRefused(s, { extra: attestArgs(out) }, 'gate_attest_output_exists', 2);
    expect(readFileSync(out)).toEqual(bytes);
  });

  it('a REVIEW_ONLY decision is attested as FAILED, with its reasons (exit 3)', () => {
    const home = cloneHome(s);
    const lease = govOk({ ...s.w, home }, ['lease', 'acquire', '--unit', s.unit, '--writer-session', SESSION]).lease as string;
    const file = join(tempDir(), 'failed.vsa.json');
    const r = gate(s, { home, extra: attestArgs(file) });
    expect(r.code).toBe(3);
    const st = JSON.parse(Buffer.from((JSON.parse(readFileSync(file, 'utf8')) as { payload: string }).payload, 'base64').toString('utf8')) as ReturnType<typeof buildVsaStatement>;
    expect(st.predicate.verificationResult).toBe('FAILED');
    expect(st.predicate.verifiedLevels).toEqual(['FAILED']);
    expect(st.predicate[VSA_EXTENSION_KEY].reasons).toEqual([{ code: 'lease_active', ids: [lease] }]);
  });

  it('finds the gate attestor where review-run finds its attestors: <home>/attestors/gate.json and gate.mjs', () => {
    const home = cloneHome(s);
    mkdirSync(join(home, 'attestors'), { mode: 0o700 });
    copyFileSync(gateCfg, join(home, 'attestors', 'gate.json'));
    copyFileSync(attestor, join(home, 'attestors', 'gate.mjs'));
    const file = join(tempDir(), 'default.vsa.json');
    const r = gate(s, { home, extra: ['--attest', file] });
    expect(r.code).toBe(0);
    expect(existsSync(file)).toBe(true);
    // --attestors names another directory: nothing there, nothing signed.
    const empty = tempDir();
    const d = expectGateRefused(s, { home, extra: ['--attest', join(tempDir(), 'none.json'), '--attestors', empty] }, 'gate_attestor_missing', 2);
    // It names what is missing (the gate credential's attestor config) and where it was looked for, never the path.
    expect(d.error?.ids).toEqual(['credentials.gate', 'attestor_config', '--attestors/gate.json']);
    expect(JSON.stringify(d)).not.toContain(empty);
  });

  it('refuses without an attestor config (2), an attestor or config not allowlisted (6), nothing run or written', () => {
    const file = join(tempDir(), 'x.json');
    const d = expectGateRefused(s, { extra: ['--attest', file, '--attestor', attestor] }, 'gate_attestor_missing', 2);
    expect(d.error?.ids).toEqual(['credentials.gate', 'attestor_config', '<home>/attestors/gate.json']);
    const p = expectGateRefused(s, { extra: attestArgs(file, gateCfg, join(tempDir(), 'absent.mjs')) }, 'gate_attestor_missing', 2);
    expect(p.error?.ids).toEqual(['credentials.gate', 'attestor', '--attestor']);
    const copy = join(tempDir(), 'attestor-copy.mjs');
    writeFileSync(copy, Buffer.concat([readFileSync(attestor), Buffer.from('\n// not the pinned bytes\n')]));
    expectGateRefused(s, { extra: attestArgs(file, gateCfg, copy) }, 'attestor_not_allowlisted', 6);
    const otherCfg = writeJson(join(tempDir(), 'gate.json'), { credential: 'gate', kind: 'decision', key_id: keys.gate.keyId, key_ref: keys.gate.privateKeyPath, });
    writeFileSync(otherCfg, `${readFileSync(otherCfg, 'utf8')}\n`);
    expectGateRefused(s, { extra: attestArgs(file, otherCfg) }, 'attestor_not_allowlisted', 6);
    expect(existsSync(file)).toBe(false);
  });

  it('refuses when the deploy-side trust root does not hold the gate key with role gate (6)', () => {
    const file = join(tempDir(), 'y.json');
    const noGate = writeJson(join(tempDir(), 'trust.json'), trustRootDoc([{ key: keys.reviewer, roles: ['reviewer'] }, { key: keys.runner, roles: ['runner'] }]));
    expectGateRefused(s, { trust: noGate, extra: attestArgs(file) }, 'key_unknown', 6);
    const wrongRole = writeJson(join(tempDir(), 'trust.json'), trustRootDoc([{ key: keys.reviewer, roles: ['reviewer'] }, { key: keys.runner, roles: ['runner'] }, { key: keys.gate, roles: ['log'] }]));
    expectGateRefused(s, { trust: wrongRole, extra: attestArgs(file) }, 'key_wrong_role', 6);
    const revoked = writeJson(join(tempDir(), 'trust.json'), trustRootDoc([{ key: keys.reviewer, roles: ['reviewer'] }, { key: keys.runner, roles: ['runner'] }, { key: keys.gate, roles: ['gate'], revoked_at: '2021-01-01T00:00:00Z' }]));
    expectGateRefused(s, { trust: revoked, extra: attestArgs(file) }, 'key_revoked', 6);
    expect(existsSync(file)).toBe(false);
    // Positive control: the full deploy trust root allows.
    expect(gate(s, { trust: writeJson(join(tempDir(), 'trust.json'), trustDoc(keys)), extra: attestArgs(join(tempDir(), 'z.json')) }).code).toBe(0);
  });
});
