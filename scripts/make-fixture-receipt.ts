// Makes test/fixtures/receipt/ ONCE: a review receipt signed by the real attestor program with
// THROWAWAY keys (generated in a temp dir and deleted afterwards; no private key is kept).
// Real receipts are only ever made by `governed review-run`. Run: node dist/make-fixture-receipt.mjs
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keygen } from '../src/flows/keygen.js';
import { runAttestor } from '../runner/attestor-host.js';
import { publicKeyFromPem } from '../src/core/ed25519.js';
import { canonicalJson } from '../src/core/canonical.js';
import { encodeEnvelope, IN_TOTO_PAYLOAD_TYPE } from '../src/core/dsse.js';
import { buildStatement } from '../src/core/intoto.js';
import { REVIEW_RECEIPT_PREDICATE_TYPE, type ReviewReceiptPredicate } from '../src/core/receipt-predicate.js';

const out = join(process.cwd(), 'test', 'fixtures', 'receipt');
const tmp = mkdtempSync(join(tmpdir(), 'governed-fixture-'));
try {
  const attestor = join(process.cwd(), 'attestors', 'ed25519-file.mjs');
  const attestorSha = createHash('sha256').update(readFileSync(attestor)).digest('hex');
  const keys = { reviewer: keygen('reviewer', tmp), runner: keygen('runner', tmp) };
  const H = (c: string): string => c.repeat(64);
  const predicate: ReviewReceiptPredicate = {
    trust_mode: 'co-located',
    unit: 'UNIT-5f0c1e2d3b4a59687766554433221100',
    stage: 'development',
    slot: 'coverage',
    challenge_id: 'CHL-9a8b7c6d5e4f30211203948576afbecd',
    run_id: 'RUN-00112233445566778899aabbccddeeff',
    execution_id: 'EXE-ffeeddccbbaa99887766554433221100',
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
      work_revision: 2,
    },
    reviewer: { name: 'coverage', sha256: H('c'), interpreter: '/usr/bin/node' },
    sandbox: { bwrap_sha256: H('d'), profile_digest: `sha256:${H('e')}`, seccomp_digest: `sha256:${H('f')}`, uid: 64500, uid_separated: false },
    attestors: { reviewer_sha256: attestorSha, runner_sha256: attestorSha },
    reviewer_process: {
      boot_id: '0f0e0d0c-0b0a-0908-0706-050403020100',
      pid: 2,
      start_time: '4242',
      namespaces: { cgroup: 4026531835, ipc: 4026532001, mnt: 4026532002, net: 4026532003, pid: 4026532004, user: 4026532005, uts: 4026532006 },
    },
    writers: [{ writer_session: 'fixture-writer', boot_id: '0f0e0d0c-0b0a-0908-0706-050403020100', pid: 1000, start_time: '4000' }],
    times: { issued_at: '2026-11-29T10:00:00Z', started_at: '2026-11-29T10:00:01Z', finished_at: '2026-11-29T10:00:03Z' },
  };
  const payload = Buffer.from(
    canonicalJson(buildStatement([{ name: 'workspace', digest: { sha256: H('8') } }], REVIEW_RECEIPT_PREDICATE_TYPE, predicate)),
    'utf8',
  );
  const sigs = [];
  for (const role of ['reviewer', 'runner'] as const) {
    const k = keys[role];
    const cfgPath = join(tmp, `${role}-attestor.json`);
    writeFileSync(cfgPath, JSON.stringify({ credential: role, kind: 'review-receipt', key_id: k.keyId, key_ref: k.privateKeyPath }));
    const cfgSha = createHash('sha256').update(readFileSync(cfgPath)).digest('hex');
    const s = await runAttestor({
      attestorPath: attestor,
      configPath: cfgPath,
      allow: { attestorSha256: [attestorSha], configSha256: [cfgSha] },
      expectedKey: publicKeyFromPem(readFileSync(k.publicKeyPath, 'utf8')),
      payloadType: IN_TOTO_PAYLOAD_TYPE,
      payload,
    });
    sigs.push({ keyid: s.keyid, sig: s.sig });
  }
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'receipt.json'), `${JSON.stringify(encodeEnvelope(IN_TOTO_PAYLOAD_TYPE, payload, sigs), null, 2)}\n`);
  const trust = {
    version: 1,
    expires: '2031-01-01T00:00:00Z',
    keys: (['reviewer', 'runner'] as const).map((role) => ({
      key_id: keys[role].keyId,
      public_key: readFileSync(keys[role].publicKeyPath, 'utf8'),
      roles: [role],
      not_before: '2026-01-01T00:00:00Z',
      not_after: '2031-01-01T00:00:00Z',
    })),
  };
  writeFileSync(join(out, 'trust.json'), `${JSON.stringify(trust, null, 2)}\n`);
  for (const role of ['reviewer', 'runner'] as const) writeFileSync(join(out, `${role}.pub`), readFileSync(keys[role].publicKeyPath));
  writeFileSync(
    join(out, 'README.md'),
    '# Fixture receipt\n\nMade once by `scripts/make-fixture-receipt.ts` with the real attestor program and THROWAWAY keys\n' +
      '(generated in a temp dir and deleted: no private key exists any more). Its predicate values are\n' +
      'synthetic. Real receipts are only ever made by `governed review-run`. Used by the demo and tests.\n',
  );
  process.stdout.write(`fixture written to ${out}\n`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
