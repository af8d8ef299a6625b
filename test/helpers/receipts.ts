// Test helpers that make REAL keys (governed's keygen flow), real trust roots and real signed
// envelopes. Signing here uses node:crypto directly so tests can forge the odd cases (one key
// twice, wrong role) that the attestor would never produce; attestor tests use the real program.
import { createPrivateKey, sign as nodeSign, type KeyObject } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { keygen } from '../../src/flows/keygen.js';
import { canonicalJson } from '../../src/core/canonical.js';
import { pae, encodeEnvelope, IN_TOTO_PAYLOAD_TYPE } from '../../src/core/dsse.js';
import { buildStatement } from '../../src/core/intoto.js';
import { REVIEW_RECEIPT_PREDICATE_TYPE, type ReviewReceiptPredicate } from '../../src/core/receipt-predicate.js';
import type { KeyRole } from '../../src/core/trust-root.js';
import type { DecisionForVsa } from '../../src/core/vsa.js';
import { makeTempDir } from './temp.js';

export interface TestKey {
  readonly credential: string;
  readonly keyId: string;
  readonly privateKeyPath: string;
  readonly publicKeyPath: string;
  readonly privateKey: KeyObject;
  readonly publicPem: string;
}

export function tempDir(prefix = 'governed-test-'): string {
  return makeTempDir(prefix);
}

export function makeKey(dir: string, credential: string): TestKey {
  const r = keygen(credential, dir);
  return {
    ...r,
    privateKey: createPrivateKey(readFileSync(r.privateKeyPath)),
    publicPem: readFileSync(r.publicKeyPath, 'utf8'),
  };
}

export interface TrustKeySpec {
  readonly key: TestKey;
  readonly roles: readonly KeyRole[];
  readonly not_before?: string;
  readonly not_after?: string;
  readonly revoked_at?: string;
}

export function trustRootDoc(specs: readonly TrustKeySpec[], expires = '2099-01-01T00:00:00Z'): Record<string, unknown> {
  return {
    version: 1,
    expires,
    keys: specs.map((s) => ({
      key_id: s.key.keyId,
      public_key: s.key.publicPem,
      roles: [...s.roles],
      not_before: s.not_before ?? '2020-01-01T00:00:00Z',
      not_after: s.not_after ?? '2099-01-01T00:00:00Z',
      ...(s.revoked_at ? { revoked_at: s.revoked_at, reason: 'test' } : {}),
    })),
  };
}

export function writeJson(path: string, value: unknown): string {
  writeFileSync(path, JSON.stringify(value, null, 2));
  return path;
}

const H = (c: string): string => c.repeat(64);

export function samplePredicate(over: Partial<ReviewReceiptPredicate> = {}): ReviewReceiptPredicate {
  return {
    trust_mode: 'co-located',
    unit: 'UNIT-0123456789abcdef0123456789abcdef',
    stage: 'development',
    slot: 'coverage',
    challenge_id: 'CHL-0123456789abcdef0123456789abcdef',
    run_id: 'RUN-0123456789abcdef0123456789abcdef',
    execution_id: 'EXE-0123456789abcdef0123456789abcdef',
    verdict: 'CLEAN',
    findings: [],
    vetoes: [],
    coverage_matched: true,
    bundle_digest: `sha256:${H('1')}`,
    view_digest: `sha256:${H('2')}`,
    planning_state_digest: `sha256:${H('3')}`,
    content_digest: `sha256:${H('4')}`,
    work_state_digest: `sha256:${H('5')}`,
    inputs: {
      contract_digest: `sha256:${H('6')}`,
      sources_digest: `sha256:${H('7')}`,
      workspace_digest: `sha256:${H('8')}`,
      baseline: { commit: 'a'.repeat(40), tree: 'b'.repeat(40) },
      policy_digest: `sha256:${H('9')}`,
      trust_digest: `sha256:${H('a')}`,
      scope_epoch: 1,
      work_revision: 0,
    },
    reviewer: { name: 'coverage', sha256: H('c'), interpreter: '/usr/bin/node' },
    sandbox: { bwrap_sha256: H('d'), profile_digest: `sha256:${H('e')}`, seccomp_digest: `sha256:${H('f')}`, uid: 64500, uid_separated: false },
    attestors: { reviewer_sha256: H('0'), runner_sha256: H('0') },
    reviewer_process: {
      boot_id: '01234567-89ab-cdef-0123-456789abcdef',
      pid: 2,
      start_time: '12345',
      namespaces: { cgroup: 1, ipc: 2, mnt: 3, net: 4, pid: 5, user: 6, uts: 7 },
    },
    writers: [{ writer_session: 'agent-1', boot_id: '01234567-89ab-cdef-0123-456789abcdef', pid: 100, start_time: '999' }],
    times: { issued_at: '2026-11-29T10:00:00Z', started_at: '2026-11-29T10:00:01Z', finished_at: '2026-11-29T10:00:02Z' },
    ...over,
  };
}

export function statementFor(predicate: ReviewReceiptPredicate): Record<string, unknown> {
  return buildStatement(
    [{ name: 'workspace', digest: { sha256: predicate.inputs.workspace_digest.slice(7) } }],
    REVIEW_RECEIPT_PREDICATE_TYPE,
    predicate as unknown as Record<string, unknown>,
  );
}

export function payloadOf(statement: unknown): Buffer {
  return Buffer.from(canonicalJson(statement), 'utf8');
}

/** Sign raw payload bytes with the given keys (node:crypto), returning envelope JSON text. */
export function signEnvelope(payload: Buffer, signers: readonly TestKey[], payloadType = IN_TOTO_PAYLOAD_TYPE): string {
  const m = pae(payloadType, payload);
  const sigs = signers.map((k) => ({ keyid: k.keyId, sig: nodeSign(null, m, k.privateKey) }));
  return JSON.stringify(encodeEnvelope(payloadType, payload, sigs));
}

export interface ReceiptWorld {
  readonly dir: string;
  readonly reviewer: TestKey;
  readonly runner: TestKey;
  readonly trustPath: string;
}

/** Two keys (reviewer, runner) and a trust root naming them. */
export function receiptWorld(): ReceiptWorld {
  const dir = tempDir();
  const reviewer = makeKey(join(dir, 'keys'), 'reviewer');
  const runner = makeKey(join(dir, 'keys'), 'runner');
  const trustPath = writeJson(
    join(dir, 'trust.json'),
    trustRootDoc([
      { key: reviewer, roles: ['reviewer'] },
      { key: runner, roles: ['runner'] },
    ]),
  );
  return { dir, reviewer, runner, trustPath };
}

/** A valid decision for a VSA (src/core/vsa.ts), with one authority record; `over` replaces fields. */
export function sampleDecisionForVsa(over: Partial<DecisionForVsa> = {}): DecisionForVsa {
  const d = (c: string): string => `sha256:${c.repeat(64)}`;
  return {
    version: '0.1.0',
    evaluatedAt: '2026-11-30T00:00:00Z',
    unit: `UNIT-${'a'.repeat(32)}`,
    state: 'RELEASE_ELIGIBLE',
    reasons: [],
    trustMode: 'co-located',
    policyDigest: d('1'),
    trustDigest: d('2'),
    gateTrustDigest: d('2'),
    subject: { commit: 'c'.repeat(40), manifestDigest: d('3') },
    current: { planningStateDigest: d('4'), contentDigest: d('5'), workStateDigest: d('6') },
    preservationWaiver: 'waived for the test',
    receipts: [d('7'), d('8')],
    authorities: [{ recordId: `REC-${'0'.repeat(24)}`, payloadDigest: d('9') }],
    attestorSha256: 'e'.repeat(64),
    ...over,
  };
}
