// The attestor protocol (docs/formats.md#attestors) with the real bundled program, attacked.
import { describe, it, expect, beforeAll } from 'vitest';
import { writeFileSync, chmodSync, existsSync, readFileSync, copyFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { runAttestor, type AttestorRun } from '../runner/attestor-host.js';
import { publicKeyFromPem } from '../src/core/ed25519.js';
import { GovernedError } from '../src/core/errors.js';
import { IN_TOTO_PAYLOAD_TYPE } from '../src/core/dsse.js';
import { receiptWorld, samplePredicate, statementFor, payloadOf, writeJson, type ReceiptWorld } from './helpers/receipts.js';
import { ATTESTOR } from './helpers/cli.js';

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'signed';
  } catch (e) {
    if (e instanceof GovernedError) return e.code;
    throw e;
  }
}

describe('ed25519-file attestor', () => {
  let w: ReceiptWorld;
  let attestorSha: string;
  let reviewerCfg: string;
  let runnerCfg: string;
  let base: (over?: Partial<AttestorRun>) => AttestorRun;
  beforeAll(() => {
    w = receiptWorld();
    attestorSha = sha(readFileSync(ATTESTOR));
    reviewerCfg = writeJson(join(w.dir, 'reviewer-attestor.json'), {
      credential: 'reviewer',
      kind: 'review-receipt',
      key_id: w.reviewer.keyId,
      key_ref: w.reviewer.privateKeyPath,
    });
    runnerCfg = writeJson(join(w.dir, 'runner-attestor.json'), {
      credential: 'runner',
      kind: 'review-receipt',
      key_id: w.runner.keyId,
      key_ref: w.runner.privateKeyPath,
    });
    const payload = payloadOf(statementFor(samplePredicate({ attestors: { reviewer_sha256: attestorSha, runner_sha256: attestorSha } })));
    base = (over = {}) => ({
      attestorPath: ATTESTOR,
      configPath: reviewerCfg,
      allow: { attestorSha256: [attestorSha], configSha256: [sha(readFileSync(reviewerCfg)), sha(readFileSync(runnerCfg))] },
      expectedKey: publicKeyFromPem(w.reviewer.publicPem),
      payloadType: IN_TOTO_PAYLOAD_TYPE,
      payload,
      ...over,
    });
  });

  it('signs a receipt statement of its kind; the signature verifies under node:crypto', async () => {
    const r = await runAttestor(base());
    expect(r.keyid).toBe(w.reviewer.keyId);
    expect(r.sig.length).toBe(64);
    const r2 = await runAttestor(base({ configPath: runnerCfg, expectedKey: publicKeyFromPem(w.runner.publicPem) }));
    expect(r2.keyid).toBe(w.runner.keyId);
  });

  it('an attestor not on the allowlist is never executed (marker file proves it)', async () => {
    const marker = join(w.dir, 'marker-attestor');
    const evil = join(w.dir, 'evil.mjs');
    writeFileSync(evil, `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(marker)}, 'ran');\n`);
    expect(await codeOf(runAttestor(base({ attestorPath: evil })))).toBe('attestor_not_allowlisted');
    expect(existsSync(marker)).toBe(false);
  });

  it('an attestor config not on the allowlist is refused before running', async () => {
    const marker = join(w.dir, 'marker-config');
    const cfg = writeJson(join(w.dir, 'other-cfg.json'), {
      credential: 'reviewer',
      kind: 'review-receipt',
      key_id: w.reviewer.keyId,
      key_ref: w.reviewer.privateKeyPath,
      x: marker,
    });
    expect(await codeOf(runAttestor(base({ configPath: cfg })))).toBe('attestor_not_allowlisted');
  });

  it('runs the pinned bytes, not the path: swapping the file after pinning cannot inject code', async () => {
    // A copy with an allowlisted digest is accepted from any path; an edited copy is not.
    const copy = join(w.dir, 'copy.mjs');
    copyFileSync(ATTESTOR, copy);
    expect(await codeOf(runAttestor(base({ attestorPath: copy })))).toBe('signed');
    writeFileSync(copy, readFileSync(ATTESTOR, 'utf8') + '\n// edited\n');
    expect(await codeOf(runAttestor(base({ attestorPath: copy })))).toBe('attestor_not_allowlisted');
  });

  it('refuses a foreign kind (a statement of another predicate type)', async () => {
    const st = { ...statementFor(samplePredicate({ attestors: { reviewer_sha256: attestorSha, runner_sha256: attestorSha } })), predicateType: 'https://slsa.dev/verification_summary/v1' };
    expect(await codeOf(runAttestor(base({ payload: payloadOf(st) })))).toBe('attestor_refused');
  });

  it('refuses a predicate naming another attestor digest for its credential (not blind)', async () => {
    const p = payloadOf(statementFor(samplePredicate({ attestors: { reviewer_sha256: 'e'.repeat(64), runner_sha256: attestorSha } })));
    expect(await codeOf(runAttestor(base({ payload: p })))).toBe('attestor_refused');
  });

  it('refuses non-canonical payloads, wrong payloadType, arbitrary bytes', async () => {
    const st = statementFor(samplePredicate({ attestors: { reviewer_sha256: attestorSha, runner_sha256: attestorSha } }));
    expect(await codeOf(runAttestor(base({ payload: Buffer.from(JSON.stringify(st, null, 2)) })))).toBe('attestor_refused');
    expect(await codeOf(runAttestor(base({ payloadType: 'text/plain' })))).toBe('attestor_refused');
    expect(await codeOf(runAttestor(base({ payload: Buffer.from('sign me') })))).toBe('attestor_refused');
  });

  it('refuses a private key file with mode 0644', async () => {
    chmodSync(w.reviewer.privateKeyPath, 0o644);
    try {
      expect(await codeOf(runAttestor(base()))).toBe('attestor_refused');
    } finally {
      chmodSync(w.reviewer.privateKeyPath, 0o600);
    }
    expect(await codeOf(runAttestor(base()))).toBe('signed');
  });

  it('a signature under a key other than the expected one is rejected by the host', async () => {
    expect(await codeOf(runAttestor(base({ expectedKey: publicKeyFromPem(w.runner.publicPem) })))).toBe('attestor_signature_invalid');
  });

  it('a config whose key_id does not match the key file is refused', async () => {
    const cfg = writeJson(join(w.dir, 'mismatch.json'), {
      credential: 'reviewer',
      kind: 'review-receipt',
      key_id: w.runner.keyId,
      key_ref: w.reviewer.privateKeyPath,
    });
    const allow = { attestorSha256: [attestorSha], configSha256: [sha(readFileSync(cfg))] };
    expect(await codeOf(runAttestor(base({ configPath: cfg, allow })))).toBe('attestor_refused');
  });

  it('runs with an empty environment (no secrets leak in through env)', async () => {
    process.env.GOVERNED_CANARY = 'x';
    try {
      expect(await codeOf(runAttestor(base()))).toBe('signed');
    } finally {
      delete process.env.GOVERNED_CANARY;
    }
  });
});
