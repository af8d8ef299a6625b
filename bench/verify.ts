// bench/verify (issue core-1): verify 10,000 receipts in one process and compare with the raw
// node:crypto Ed25519 verify rate measured in the same run (two signatures per receipt).
// ratio = governed receipts/s ÷ (raw verifies/s ÷ 2). Bar: ≥ 0.75. Cases are interleaved per
// repetition and the median is reported (docs/performance.md#performance: compare ratios, not absolutes).
import { generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { canonicalJson } from '../src/core/canonical.js';
import { pae, encodeEnvelope, IN_TOTO_PAYLOAD_TYPE } from '../src/core/dsse.js';
import { buildStatement } from '../src/core/intoto.js';
import { REVIEW_RECEIPT_PREDICATE_TYPE, type ReviewReceiptPredicate } from '../src/core/receipt-predicate.js';
import { loadTrustRoot } from '../src/core/trust-root.js';
import { verifyReceiptBytes } from '../src/core/verify-receipt.js';
import { knob } from './lib/quick.js';

const N = knob('BENCH_RECEIPTS', 10_000, 200);
const REPS = knob('BENCH_REPS', 5, 1);

interface Signer {
  priv: KeyObject;
  pub: KeyObject;
  pem: string;
  keyId: string;
}
function signer(): Signer {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const der = publicKey.export({ format: 'der', type: 'spki' });
  const { createHash } = require('node:crypto') as typeof import('node:crypto');
  return {
    priv: privateKey,
    pub: publicKey,
    pem: publicKey.export({ format: 'pem', type: 'spki' }) as string,
    keyId: createHash('sha256').update(der).digest('hex'),
  };
}

// 4 reviewer and 4 runner keys, like a real trust root with rotation history.
const reviewers = Array.from({ length: 4 }, signer);
const runners = Array.from({ length: 4 }, signer);
const trust = loadTrustRoot({
  version: 1,
  expires: '2099-01-01T00:00:00Z',
  keys: [
    ...reviewers.map((s) => ({ key_id: s.keyId, public_key: s.pem, roles: ['reviewer'], not_before: '2020-01-01T00:00:00Z', not_after: '2099-01-01T00:00:00Z' })),
    ...runners.map((s) => ({ key_id: s.keyId, public_key: s.pem, roles: ['runner'], not_before: '2020-01-01T00:00:00Z', not_after: '2099-01-01T00:00:00Z' })),
  ],
});

const hex = (i: number, c: string): string => (i.toString(16).padStart(8, '0') + c.repeat(56)).slice(0, 64);
function predicate(i: number): ReviewReceiptPredicate {
  const id = i.toString(16).padStart(32, '0');
  return {
    trust_mode: 'co-located',
    unit: `UNIT-${id}`,
    stage: 'development',
    slot: 'coverage',
    challenge_id: `CHL-${id}`,
    run_id: `RUN-${id}`,
    execution_id: `EXE-${id}`,
    verdict: i % 3 === 0 ? 'DIRTY' : 'CLEAN',
    findings: i % 3 === 0 ? [{ code: 'test_gap', class: 'correctness', severity: 'MEDIUM', refs: ['AC-1', 'DIR-1'] }] : [],
    vetoes: [],
    coverage_matched: true,
    bundle_digest: `sha256:${hex(i, '1')}`,
    view_digest: `sha256:${hex(i, '2')}`,
    planning_state_digest: `sha256:${hex(i, '3')}`,
    content_digest: `sha256:${hex(i, '4')}`,
    work_state_digest: `sha256:${hex(i, '5')}`,
    inputs: {
      contract_digest: `sha256:${hex(i, '6')}`,
      sources_digest: `sha256:${hex(i, '7')}`,
      workspace_digest: `sha256:${hex(i, '8')}`,
      baseline: { commit: 'a'.repeat(40), tree: 'b'.repeat(40) },
      policy_digest: `sha256:${hex(0, '9')}`,
      trust_digest: `sha256:${hex(0, 'a')}`,
      scope_epoch: 1,
      work_revision: i,
    },
    reviewer: { name: 'coverage', sha256: 'c'.repeat(64), interpreter: '/usr/bin/node' },
    sandbox: { bwrap_sha256: 'd'.repeat(64), profile_digest: `sha256:${'e'.repeat(64)}`, seccomp_digest: `sha256:${'f'.repeat(64)}`, uid: 64500, uid_separated: false },
    attestors: { reviewer_sha256: '0'.repeat(64), runner_sha256: '0'.repeat(64) },
    reviewer_process: {
      boot_id: '01234567-89ab-cdef-0123-456789abcdef',
      pid: 2,
      start_time: String(1000 + i),
      namespaces: { cgroup: 1, ipc: 2, mnt: 3, net: 4, pid: 5, user: 6, uts: 7 },
    },
    writers: [{ writer_session: 'agent-1', boot_id: '01234567-89ab-cdef-0123-456789abcdef', pid: 100, start_time: '999' }],
    times: { issued_at: '2026-11-29T10:00:00Z', started_at: '2026-11-29T10:00:01Z', finished_at: '2026-11-29T10:00:02Z' },
  };
}

process.stdout.write(`generating ${N} signed receipts…\n`);
const receipts: Buffer[] = [];
const raw: { msg: Buffer; sig: Buffer; key: KeyObject }[] = [];
for (let i = 0; i < N; i++) {
  const p = predicate(i);
  const payload = Buffer.from(
    canonicalJson(buildStatement([{ name: 'workspace', digest: { sha256: p.inputs.workspace_digest.slice(7) } }], REVIEW_RECEIPT_PREDICATE_TYPE, p)),
  );
  const m = pae(IN_TOTO_PAYLOAD_TYPE, payload);
  const rv = reviewers[i % 4] as Signer;
  const rn = runners[(i >> 2) % 4] as Signer;
  const s1 = sign(null, m, rv.priv);
  const s2 = sign(null, m, rn.priv);
  receipts.push(Buffer.from(JSON.stringify(encodeEnvelope(IN_TOTO_PAYLOAD_TYPE, payload, [{ keyid: rv.keyId, sig: s1 }, { keyid: rn.keyId, sig: s2 }]))));
  raw.push({ msg: m, sig: s1, key: rv.pub }, { msg: m, sig: s2, key: rn.pub });
}

const opts = { at: '2026-11-29T12:00:00Z', offline: true };
function timeRaw(): number {
  const t = process.hrtime.bigint();
  for (const r of raw) if (!verify(null, r.msg, r.key, r.sig)) throw new Error('raw verify failed');
  return Number(process.hrtime.bigint() - t) / 1e9;
}
function timeGoverned(): number {
  const t = process.hrtime.bigint();
  for (const b of receipts) verifyReceiptBytes(b, trust, opts);
  return Number(process.hrtime.bigint() - t) / 1e9;
}

timeRaw();
timeGoverned(); // warm-up
const rawT: number[] = [];
const govT: number[] = [];
for (let r = 0; r < REPS; r++) {
  if (r % 2 === 0) {
    rawT.push(timeRaw());
    govT.push(timeGoverned());
  } else {
    govT.push(timeGoverned());
    rawT.push(timeRaw());
  }
}
const median = (a: number[]): number => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)] as number;
const rawRate = raw.length / median(rawT);
const govRate = N / median(govT);
const ratio = govRate / (rawRate / 2);
process.stdout.write(
  `raw node:crypto Ed25519 verify : ${rawRate.toFixed(0)} verifies/s (= ${(rawRate / 2).toFixed(0)} receipts/s at 2 signatures each)\n` +
    `governed verifyReceiptBytes     : ${govRate.toFixed(0)} receipts/s (${N} receipts, median of ${REPS})\n` +
    `ratio                           : ${ratio.toFixed(3)} (bar >= 0.75)\n`,
);
