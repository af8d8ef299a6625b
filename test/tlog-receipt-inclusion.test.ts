// One receipt checked on "another machine" with only its envelope, an inclusion proof and a signed
// C2SP checkpoint (docs/audit.md "Proofs"): governed verify --inclusion-proof --checkpoint accepts
// it, and refuses a proof of another receipt's entry (tlog_proof_entry_mismatch), a proof with one
// hash changed (tlog_proof_invalid) and a checkpoint the trust root's log key did not sign.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/cli.js';
import { tempDir, writeJson } from './helpers/receipts.js';
import { newStory, planningRequiredPolicy, rounds, type Story } from './gate-world.js';
import { cleanupDirs, errorOf, gov, makeKeys } from './state-helpers.js';

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
let s: Story;
let attestors: string;
let out: string;
let n = 0;

beforeAll(() => {
  const keys = makeKeys();
  attestors = tempDir('governed-tlog-rcpt-att-');
  const cfg = writeJson(join(attestors, 'log.json'), { credential: 'log', kind: 'tlog-checkpoint', key_id: keys.log.keyId, key_ref: keys.log.privateKeyPath, origin: 'governed.example/receipts' });
  const program = readFileSync(join(REPO_ROOT, 'attestors', 'tlog-note.mjs'));
  writeFileSync(join(attestors, 'log.mjs'), program);
  const doc = planningRequiredPolicy(keys) as { credentials: Record<string, unknown> };
  doc.credentials.log = { key_id: keys.log.keyId, attestor_sha256: [sha(program)], attestor_config_sha256: [sha(readFileSync(cfg))] };
  s = newStory({ policy: doc, keys });
  rounds(s, 'planning', 1);
  out = tempDir('governed-tlog-rcpt-out-');
  mkdirSync(join(out, 'x'), { recursive: true });
}, 120_000);
afterAll(cleanupDirs);

const file = (name: string): string => join(out, `${n++}-${name}`);

function run(args: string[]) {
  const r = gov(s.w, [...args, '--json']);
  return r;
}

describe('governed verify RECEIPT --inclusion-proof P --checkpoint F', () => {
  it('proves a receipt was logged without the log; refuses another entry, a changed hash, an untrusted checkpoint', () => {
    expect(s.receipts.length).toBeGreaterThanOrEqual(2);
    const cp = file('cp.note');
    expect(run(['audit', 'checkpoint', '--out', cp, '--attestors', attestors]).code).toBe(0);
    const [r1, r2] = s.receipts as [(typeof s.receipts)[0], (typeof s.receipts)[0]];
    const receipt = file('receipt.json');
    writeFileSync(receipt, r1.envelope);
    const proof = file('proof.json');
    expect(run(['audit', 'prove', '--receipt', r1.receiptId, '--checkpoint', cp, '--out', proof]).code).toBe(0);
    const ok = run(['verify', receipt, '--inclusion-proof', proof, '--checkpoint', cp, '--trust', s.w.trustFile]);
    expect(ok.code, ok.stdout).toBe(0);
    // A valid proof, but of another receipt's entry.
    const other = file('proof2.json');
    expect(run(['audit', 'prove', '--receipt', r2.receiptId, '--checkpoint', cp, '--out', other]).code).toBe(0);
    expect(errorOf(run(['verify', receipt, '--inclusion-proof', other, '--checkpoint', cp, '--trust', s.w.trustFile])).code).toBe('tlog_proof_entry_mismatch');
    // One hash of the proof changed.
    const p = JSON.parse(readFileSync(proof, 'utf8')) as { hashes: string[] };
    expect(p.hashes.length).toBeGreaterThan(0);
    const h = Buffer.from(p.hashes[0] as string, 'base64');
    h[0] = (h[0] as number) ^ 1;
    p.hashes[0] = h.toString('base64');
    const bad = file('bad.json');
    writeFileSync(bad, JSON.stringify(p));
    expect(errorOf(run(['verify', receipt, '--inclusion-proof', bad, '--checkpoint', cp, '--trust', s.w.trustFile])).code).toBe('tlog_proof_invalid');
    // A trust root without this log key: the checkpoint is not trusted (exit 6).
    const trust = JSON.parse(readFileSync(s.w.trustFile, 'utf8')) as { keys: { roles: string[] }[] };
    trust.keys = trust.keys.filter((k) => !k.roles.includes('log'));
    const noLog = writeJson(file('trust.json'), trust);
    const e = errorOf(run(['verify', receipt, '--inclusion-proof', proof, '--checkpoint', cp, '--trust', noLog]));
    expect(e.code).toBe('tlog_checkpoint_untrusted');
    expect(e.exit).toBe(6);
  }, 120_000);
});
