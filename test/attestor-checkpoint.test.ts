// The `checkpoint` kind of the shipped attestor program (docs/formats.md#attestors: not blind): it signs a log
// checkpoint only with the `log` credential, only when the statement is a closed checkpoint whose
// one subject is the head it names, and only when it names this program's own sha256. The
// signature it returns verifies under node:crypto over the DSSE PAE.
import { spawnSync } from 'node:child_process';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/core/canonical.js';
import { buildCheckpointStatement, type CheckpointPredicate } from '../src/core/checkpoint.js';
import { IN_TOTO_PAYLOAD_TYPE, pae } from '../src/core/dsse.js';
import { REPO_ROOT } from './helpers/cli.js';
import { makeKey, tempDir, writeJson, type TestKey } from './helpers/receipts.js';
import { cleanupDirs } from './state-helpers.js';

const ATTESTOR = join(REPO_ROOT, 'attestors', 'ed25519-file.mjs');
const SELF = createHash('sha256').update(readFileSync(ATTESTOR)).digest('hex');
let dir: string;
let log: TestKey;
let logCfg: string;

function predicate(over: Partial<CheckpointPredicate> = {}): CheckpointPredicate {
  return {
    trust_mode: 'co-located',
    log_entries: 12,
    log_head: `sha256:${'a'.repeat(64)}`,
    state_digest: `sha256:${'b'.repeat(64)}`,
    policy_digest: `sha256:${'c'.repeat(64)}`,
    trust_digest: `sha256:${'d'.repeat(64)}`,
    attestor_sha256: SELF,
    made_at: '2026-11-30T00:00:00Z',
    ...over,
  };
}

function sign(statement: unknown, cfg = logCfg): { code: number | null; stdout: string; stderr: string; payload: Buffer } {
  const payload = Buffer.from(canonicalJson(statement as never), 'utf8');
  const r = spawnSync(process.execPath, [ATTESTOR, cfg], {
    input: JSON.stringify({ payloadType: IN_TOTO_PAYLOAD_TYPE, payload: payload.toString('base64') }),
    env: { PATH: '/usr/bin:/bin' },
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, payload };
}

beforeAll(() => {
  dir = tempDir('governed-attestor-checkpoint-');
  log = makeKey(dir, 'log');
  logCfg = writeJson(join(dir, 'log.json'), { credential: 'log', kind: 'checkpoint', key_id: log.keyId, key_ref: log.privateKeyPath });
});
afterAll(cleanupDirs);

describe('the checkpoint kind of the attestor', () => {
  it('signs a checkpoint naming itself with the log key; node:crypto verifies it over the PAE', () => {
    const r = sign(buildCheckpointStatement(predicate()));
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { keyid: string; sig: string };
    expect(out.keyid).toBe(log.keyId);
    const key = createPublicKey(readFileSync(log.publicKeyPath, 'utf8'));
    expect(verify(null, pae(IN_TOTO_PAYLOAD_TYPE, r.payload), key, Buffer.from(out.sig, 'base64'))).toBe(true);
  });

  it.each([
    ['a subject that is not the head it names', { ...buildCheckpointStatement(predicate()), subject: [{ name: 'governed-log', digest: { sha256: 'e'.repeat(64) } }] }, 'predicate_invalid'],
    ['another subject name', { ...buildCheckpointStatement(predicate()), subject: [{ name: 'workspace', digest: { sha256: 'a'.repeat(64) } }] }, 'predicate_invalid'],
    ['an unknown predicate field', { ...buildCheckpointStatement(predicate()), predicate: { ...predicate(), extra: 1 } }, 'predicate_invalid'],
    ['zero entries', buildCheckpointStatement(predicate({ log_entries: 0 })), 'predicate_invalid'],
    ['another attestor named', buildCheckpointStatement(predicate({ attestor_sha256: 'f'.repeat(64) })), 'self_digest_mismatch'],
    ['another predicate type', { ...buildCheckpointStatement(predicate()), predicateType: 'https://governed.dev/review-receipt/v1' }, 'foreign_kind'],
  ])('refuses %s', (_label, statement, code) => {
    const r = sign(statement);
    expect(r.code).toBe(3);
    expect(r.stderr.trim()).toBe(`refused:${code}`);
    expect(r.stdout).toBe('');
  });

  it('refuses to sign a checkpoint with any credential but log (credential_role)', () => {
    const gate = makeKey(dir, 'gate');
    const cfg = writeJson(join(dir, 'gate-checkpoint.json'), { credential: 'gate', kind: 'checkpoint', key_id: gate.keyId, key_ref: gate.privateKeyPath });
    const r = sign(buildCheckpointStatement(predicate()), cfg);
    expect(r.code).toBe(3);
    expect(r.stderr.trim()).toBe('refused:credential_role');
  });
});
