// The bounds of the signed decision (VSA, docs/decision.md#8-delivery-state-and-reason-codes, docs/review-pass.md#review-protocols; docs/gate.md#3-the-signed-decision---attest-file "Bounds"): the decision
// rules may list many ids in one reason — `slot_blocked` one per standing block of a slot,
// `veto_standing` its receipt, its slot and every ref of up to 32 findings x 4 refs — and
// `governed gate --attest` must attest such a REVIEW_ONLY decision (exit 3, a FAILED VSA signed by the
// gate key, every id inside), not stop with internal_error. A decision beyond the VSA's bounds is a
// coded refusal (`gate_attest_decision_too_large`, 2): nothing signed or written, never exit 0.
//
// Real world: a real repository and store made by the built CLI (test/gate-world.ts), the many
// receipts signed with the real test keys and committed through the store's own mutate/log path
// (test/helpers/store-receipts.ts, as the runner commits them), the gate attestor built from
// attestors/src exactly as scripts/pinned-build.mjs builds the shipped one.
import { createHash, createPublicKey, verify as nodeVerify } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs build script without type declarations
import { buildPinned } from '../scripts/pinned-build.mjs';
import { canonicalJson } from '../src/core/canonical.js';
import { IN_TOTO_PAYLOAD_TYPE, pae } from '../src/core/dsse.js';
import { isGovernedError } from '../src/core/errors.js';
import { loadPolicy } from '../src/core/policy.js';
import { loadTrustRoot } from '../src/core/trust-root.js';
import { ERROR_CODES } from '../src/core/errors.js';
import { buildVsaStatement, VSA_BOUNDS, VSA_MAX_PAYLOAD_BYTES, type DecisionForVsa } from '../src/core/vsa.js';
import type { Finding } from '../src/core/receipt-predicate.js';
import { attestDecision } from '../src/flows/decide/attest.js';
import { closeStore, mutate, openStore } from '../src/store/index.js';
import { REPO_ROOT } from './helpers/cli.js';
import { sampleDecisionForVsa, writeJson } from './helpers/receipts.js';
import { syntheticReceiptIn, type SyntheticUnit } from './helpers/store-receipts.js';
import { cleanupDirs, makeKeys, policyDoc, tempDir, trustDoc, type Keys } from './state-helpers.js';
import { cloneHome, eligibleStory, expectGateRefused, gate, gateJson, SESSION, storeDigestAt, type Story } from './gate-world.js';
import { makeTempDir } from './helpers/temp.js';

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
const nowSeconds = (): number => Math.floor(Date.now() / 1000);

let attestor: string;
let attestorSha: string;
let keys: Keys;
let gateCfg: string;
let policy: Record<string, unknown>;
let s: Story;

beforeAll(async () => {
  const out = makeTempDir('governed-vsa-attestor-');
  attestor = join(out, 'ed25519-file.mjs');
  await buildPinned('attestors/src/ed25519-file.ts', attestor, REPO_ROOT);
  attestorSha = sha(readFileSync(attestor));
  keys = makeKeys(tempDir('governed-vsa-keys-'));
  gateCfg = writeJson(join(tempDir(), 'gate-attestor.json'), { credential: 'gate', kind: 'decision', key_id: keys.gate.keyId, key_ref: keys.gate.privateKeyPath });
  const cred = (k: { keyId: string }, c: string) => ({ key_id: k.keyId, attestor_sha256: [c.repeat(64)], attestor_config_sha256: [c.repeat(64)] });
  policy = policyDoc(keys, {
    // The synthetic receipts below pile up to 1000 runs on one content; challenges are issued under
    // the pinned policy's run budget (replay refuses an ordinal beyond it), so the policy allows them.
    max_runs_per_content: 1000,
    credentials: {
      reviewer: cred(keys.reviewer, '5'),
      runner: cred(keys.runner, '6'),
      gate: { key_id: keys.gate.keyId, attestor_sha256: [attestorSha], attestor_config_sha256: [sha(readFileSync(gateCfg))] },
      log: cred(keys.log, '8'),
    },
  });
  s = eligibleStory({ policy, keys });
}, 180_000);
afterAll(() => cleanupDirs());

const attestArgs = (file: string): string[] => ['--attest', file, '--attestor', attestor, '--attestor-config', gateCfg];

/** The unit's current state and bindings, as its newest (integration, current) receipt bound them. */
function unitAt(home: string): { u: SyntheticUnit; state: { planning: string; content: string; work: string; workspace: string } } {
  const p = s.receipts[s.receipts.length - 1]?.predicate;
  if (p === undefined) throw new Error('story without receipts');
  const store = openStore(home);
  try {
    const scopeVersion = store.db.prepare('SELECT MAX(version) FROM scope_versions WHERE unit = ?').pluck().get(s.unit) as number;
    return {
      u: {
        unit: s.unit,
        writerSession: SESSION,
        scopeVersion,
        scopeEpoch: p.inputs.scope_epoch,
        baseline: p.inputs.baseline,
        contractDigest: p.inputs.contract_digest,
        sourcesDigest: p.inputs.sources_digest,
        policyDigest: p.inputs.policy_digest,
        trustDigest: p.inputs.trust_digest,
        keys: { reviewer: keys.reviewer, runner: keys.runner },
      },
      state: { planning: p.planning_state_digest, content: p.content_digest, work: p.work_state_digest, workspace: p.inputs.workspace_digest },
    };
  } finally {
    closeStore(store);
  }
}

/** `n` signed receipts of one slot on the current state, committed through mutate (one log entry set each). */
function addReceipts(home: string, slot: string, n: number, findings: readonly Finding[], contents = 1): string[] {
  const { u, state } = unitAt(home);
  const store = openStore(home);
  try {
    const ids: string[] = [];
    mutate(store, nowSeconds(), (tx) => {
      // More than one content only to stay under the per-content run budget (1000 runs): a DIRTY
      // receipt blocks its slot on any content until a later CLEAN on another content lifts it.
      for (let i = 0; i < n; i++) {
        const c = i % contents;
        const on = c === 0 ? state : { ...state, content: `sha256:${sha(`other-content-${c}`)}`, work: `sha256:${sha(`other-work-${c}`)}` };
        ids.push(syntheticReceiptIn(tx, u, 'integration', slot, on, { findings }).receiptId);
      }
    });
    return ids;
  } finally {
    closeStore(store);
  }
}

interface Vsa {
  predicate: { verificationResult: string; verifiedLevels: string[]; 'https://governed.dev/vsa/decision/v1': { state: string; unit: string; reasons: { code: string; ids: string[] }[]; attestor_sha256: string } };
}

/** The envelope at `file`: one signature by the gate key over the PAE of its payload; its statement. */
function verifiedVsa(file: string, payloadDigest: string | undefined): Vsa {
  const env = JSON.parse(readFileSync(file, 'utf8')) as { payloadType: string; payload: string; signatures: { keyid: string; sig: string }[] };
  expect(env.payloadType).toBe(IN_TOTO_PAYLOAD_TYPE);
  expect(env.signatures).toHaveLength(1);
  expect(env.signatures[0]?.keyid).toBe(keys.gate.keyId);
  const payload = Buffer.from(env.payload, 'base64');
  expect(`sha256:${sha(payload)}`).toBe(payloadDigest);
  expect(nodeVerify(null, pae(IN_TOTO_PAYLOAD_TYPE, payload), createPublicKey(keys.gate.publicPem), Buffer.from(env.signatures[0]?.sig ?? '', 'base64'))).toBe(true);
  const st = JSON.parse(payload.toString('utf8')) as Vsa;
  expect(canonicalJson(st)).toBe(payload.toString('utf8'));
  return st;
}

describe('gate --attest with reasons of many ids (the red-team finding)', () => {
  it('attests 70 standing blocks of one slot: exit 3, a FAILED VSA that verifies, all 71 ids of slot_blocked inside', () => {
    const home = cloneHome(s);
    const bug: Finding = { code: 'test_gap', class: 'correctness', severity: 'MEDIUM', refs: ['AC-1'] };
    const dirty = addReceipts(home, 'source_fidelity', 70, [bug]);
    const file = join(tempDir(), 'blocked.vsa.json');
    const before = storeDigestAt(home);
    const r = gate(s, { home, extra: attestArgs(file) });
    const d = gateJson(r);
    expect({ exit: r.code, error: d.error?.code ?? null, state: d.state }).toEqual({ exit: 3, error: null, state: 'REVIEW_ONLY' });
    expect(storeDigestAt(home)).toBe(before);
    const blocked = d.reasons.find((x) => x.code === 'slot_blocked');
    expect(blocked?.ids).toHaveLength(71);
    expect(blocked?.ids[0]).toBe('integration.source_fidelity');
    expect([...(blocked?.ids.slice(1) ?? [])].sort()).toEqual([...dirty].sort());
    const st = verifiedVsa(file, d.attestation?.payloadDigest);
    expect(st.predicate.verificationResult).toBe('FAILED');
    expect(st.predicate.verifiedLevels).toEqual(['FAILED']);
    expect(st.predicate['https://governed.dev/vsa/decision/v1'].state).toBe('REVIEW_ONLY');
    expect(st.predicate['https://governed.dev/vsa/decision/v1'].attestor_sha256).toBe(attestorSha);
    // Every reason the gate printed, every id of it, is what the gate key signed.
    expect(st.predicate['https://governed.dev/vsa/decision/v1'].reasons).toEqual(d.reasons);
  });

  it('attests a veto of 32 findings x 4 refs: veto_standing carries its 130 ids (receipt, slot, 128 refs)', () => {
    const home = cloneHome(s);
    const findings: Finding[] = [];
    const refs: string[] = [];
    for (let i = 0; i < 32; i++) {
      const mine = [0, 1, 2, 3].map((j) => `DIR-${String(i * 4 + j).padStart(3, '0')}`);
      refs.push(...mine);
      findings.push({ code: 'scope_omission', class: 'scope', severity: 'CRITICAL', refs: mine });
    }
    const [veto] = addReceipts(home, 'authority_release', 1, findings);
    const file = join(tempDir(), 'veto.vsa.json');
    const r = gate(s, { home, extra: attestArgs(file) });
    const d = gateJson(r);
    expect({ exit: r.code, error: d.error?.code ?? null, state: d.state }).toEqual({ exit: 3, error: null, state: 'REVIEW_ONLY' });
    const standing = d.reasons.find((x) => x.code === 'veto_standing');
    expect(standing?.ids).toEqual([veto, 'integration.authority_release', ...refs.sort()]);
    expect(standing?.ids).toHaveLength(130);
    const st = verifiedVsa(file, d.attestation?.payloadDigest);
    expect(st.predicate.verificationResult).toBe('FAILED');
    expect(st.predicate['https://governed.dev/vsa/decision/v1'].reasons).toEqual(d.reasons);
  });
});

describe('a decision beyond the VSA bounds: a coded refusal, nothing attested', () => {
  const policyObj = () => loadPolicy(policy);
  const trustObj = () => loadTrustRoot(trustDoc(keys));
  const atIso = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const decisionOf = (over: Partial<DecisionForVsa>): Omit<DecisionForVsa, 'attestorSha256'> => {
    const { attestorSha256: _a, ...rest } = sampleDecisionForVsa({ authorities: [], state: 'REVIEW_ONLY', reasons: [{ code: 'slot_blocked', ids: ['integration.source_fidelity'] }], ...over });
    return rest;
  };
  const id = (i: number): string => `sha256:${i.toString(16).padStart(64, '0')}`;

  async function attempt(decision: Omit<DecisionForVsa, 'attestorSha256'>): Promise<{ code: string | null; ids: readonly string[]; written: boolean }> {
    const out = join(tempDir(), 'bounded.vsa.json');
    try {
      await attestDecision({ out, home: tempDir(), attestorPath: attestor, attestorConfigPath: gateCfg, policy: policyObj(), trust: trustObj(), atIso, decision });
      return { code: null, ids: [], written: existsSync(out) };
    } catch (e) {
      if (!isGovernedError(e)) throw e;
      return { code: e.code, ids: e.ids, written: existsSync(out) };
    }
  }

  it('signs a reason at the bound exactly (4096 ids) and refuses 4097 ids with gate_attest_decision_too_large (exit 2)', async () => {
    const at = Array.from({ length: VSA_BOUNDS.maxIdsPerReason }, (_, i) => id(i));
    expect(await attempt(decisionOf({ reasons: [{ code: 'slot_blocked', ids: ['integration.source_fidelity', ...at.slice(1)] }] }))).toEqual({ code: null, ids: [], written: true });
    const over = await attempt(decisionOf({ reasons: [{ code: 'slot_blocked', ids: ['integration.source_fidelity', ...at] }] }));
    expect(over).toEqual({ code: 'gate_attest_decision_too_large', ids: ['governed.reasons.ids'], written: false });
    expect(ERROR_CODES.gate_attest_decision_too_large.exit).toBe(2);
  }, 60_000);

  it('refuses more than 4096 reasons and more than 4096 inputs, nothing written', async () => {
    const reasons = Array.from({ length: VSA_BOUNDS.maxReasons + 1 }, () => ({ code: 'slot_blocked', ids: [] as string[] }));
    expect(await attempt(decisionOf({ reasons }))).toEqual({ code: 'gate_attest_decision_too_large', ids: ['governed.reasons'], written: false });
    const receipts = Array.from({ length: VSA_BOUNDS.maxInputAttestations + 1 }, (_, i) => id(i));
    expect(await attempt(decisionOf({ receipts }))).toEqual({ code: 'gate_attest_decision_too_large', ids: ['inputAttestations'], written: false });
  });

  it('refuses a statement over VSA_MAX_PAYLOAD_BYTES even within every count bound, nothing written', async () => {
    // 16 reasons of 1000 ids of 200 characters: ~3.2 MB of statement, every count far below its bound.
    const long = (i: number): string => `A${i.toString().padStart(199, '0')}`;
    const reasons = Array.from({ length: 16 }, (_, r) => ({ code: 'slot_blocked', ids: Array.from({ length: 1000 }, (_, i) => long(r * 1000 + i)) }));
    const size = Buffer.byteLength(canonicalJson(buildVsaStatement({ ...decisionOf({ reasons }), attestorSha256: attestorSha })));
    expect(size).toBeGreaterThan(VSA_MAX_PAYLOAD_BYTES);
    expect(await attempt(decisionOf({ reasons }))).toEqual({ code: 'gate_attest_decision_too_large', ids: ['payload'], written: false });
  });

  it('through the CLI: 4096 standing blocks (4097 ids) → gate_attest_decision_too_large, exit 2, DENY, no VSA, no record, store unchanged', () => {
    const home = cloneHome(s);
    const bug: Finding = { code: 'test_gap', class: 'correctness', severity: 'MEDIUM', refs: ['AC-1'] };
    addReceipts(home, 'baseline_preservation', VSA_BOUNDS.maxIdsPerReason, [bug], 5);
    const file = join(tempDir(), 'too-large.vsa.json');
    const recordParent = tempDir();
    const record = join(recordParent, 'record');
    const d = expectGateRefused(s, { home, extra: [...attestArgs(file), '--export', record] }, 'gate_attest_decision_too_large', 2);
    expect(d.error?.ids).toEqual(['governed.reasons.ids']);
    expect(d.attestation).toBeNull();
    expect(existsSync(file)).toBe(false);
    expect(existsSync(record)).toBe(false);
    expect(readdirSync(recordParent)).toEqual([]); // the record's private directory was removed too
  }, 120_000);
});
