// An audit export carries the newest stored checkpoint and the inclusion proof of every exported
// receipt it covers (docs/audit.md "Export and deploy record"): a COPY of the export, with no
// store anywhere, proves one receipt was logged with `governed verify R --inclusion-proof P
// --checkpoint C --trust T`; `audit verify --export` checks the checkpoint and every proof against
// the exported log. Attacks: a proof of another receipt, proofs swapped with the manifest
// recomputed, a checkpoint signed by another key; positive control: without a stored checkpoint the
// export holds neither and verifies as before.
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/core/canonical.js';
import { REPO_ROOT, jsonOut, runCli } from './helpers/cli.js';
import { tempDir, writeJson } from './helpers/receipts.js';
import { planningRequiredPolicy, rounds, type Story } from './gate-world.js';
import { cleanupDirs, errorOf, gov, makeKeys, makeWorld, setupUnit } from './state-helpers.js';

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
const hexOf = (id: string): string => id.replace(/^sha256:/, '');
let s: Story;
let n = 0;

function story(withCheckpoints: boolean): Story {
  const keys = makeKeys();
  const doc = planningRequiredPolicy(keys) as { credentials: Record<string, unknown>; tlog_checkpoints?: unknown };
  const w = makeWorld({ policy: doc, keys });
  mkdirSync(w.home, { mode: 0o700 });
  chmodSync(w.home, 0o700);
  const att = join(w.home, 'attestors');
  mkdirSync(att, { mode: 0o700 });
  const cfg = writeJson(join(att, 'log.json'), { credential: 'log', kind: 'tlog-checkpoint', key_id: keys.log.keyId, key_ref: keys.log.privateKeyPath, origin: 'governed.example/export' });
  const program = readFileSync(join(REPO_ROOT, 'attestors', 'tlog-note.mjs'));
  writeFileSync(join(att, 'log.mjs'), program);
  doc.credentials.log = { key_id: keys.log.keyId, attestor_sha256: [sha(program)], attestor_config_sha256: [sha(readFileSync(cfg))] };
  if (withCheckpoints) doc.tlog_checkpoints = { every_entries: 1 };
  writeJson(w.policyFile, doc);
  const unit = setupUnit(w, 'agent-1');
  return { w, unit, policyDigest: '', baseline: w.baseline, subject: w.baseline, receipts: [] };
}

/** Run the CLI with no store anywhere: another machine, the copied export only. */
const elsewhere = (args: string[]) => runCli([...args, '--json'], { cwd: tempDir('governed-elsewhere-') });

/** Rewrite manifest.json for the files now in DIR (what someone who edits an export would do). */
function remanifest(dir: string): void {
  const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { files: { path: string; sha256: string }[] };
  for (const f of m.files) f.sha256 = sha(readFileSync(join(dir, f.path)));
  writeFileSync(join(dir, 'manifest.json'), `${canonicalJson(m as never)}\n`);
}

let exportDir: string;
let copy: string;

beforeAll(() => {
  s = story(true);
  // Every CLI append writes the due checkpoint (every_entries: 1); the receipts are recorded at
  // store level by the test, so the last challenge's checkpoint is the first to cover them all.
  rounds(s, 'planning', 1);
  const last = gov(s.w, ['review-challenge', '--unit', s.unit, '--writer-session', 'agent-1', '--stage', 'planning', '--slot', 'source_fidelity', '--json']);
  expect(last.code, last.stderr).toBe(0);
  exportDir = join(tempDir('governed-tlog-export-'), 'export');
  const r = gov(s.w, ['audit', 'export', '--out', exportDir, '--json']);
  expect(r.code, r.stderr).toBe(0);
  const out = jsonOut(r) as { checkpoint_size: number; proofs: number; receipts: number };
  expect(out.proofs).toBe(out.receipts);
  expect(out.checkpoint_size).toBeGreaterThan(0);
  // Another machine: a copy of the export, no store, no attestors.
  copy = join(tempDir('governed-tlog-export-copy-'), 'export');
  cpSync(exportDir, copy, { recursive: true });
}, 240_000);
afterAll(cleanupDirs);

const fresh = (): string => {
  const d = join(tempDir('governed-tlog-export-edit-'), `e${n++}`);
  cpSync(copy, d, { recursive: true });
  return d;
};

describe('audit export: the newest checkpoint and an inclusion proof per receipt', () => {
  it('one receipt is proved logged on another machine from the copied export alone', () => {
    expect(readdirSync(join(copy, 'proofs')).sort()).toEqual(s.receipts.map((r) => `${hexOf(r.receiptId)}.json`).sort());
    for (const r of s.receipts.slice(0, 2)) {
      const h = hexOf(r.receiptId);
      const v = elsewhere(['verify', join(copy, 'receipts', `${h}.json`), '--inclusion-proof', join(copy, 'proofs', `${h}.json`), '--checkpoint', join(copy, 'checkpoint.note'), '--trust', join(copy, 'trust.pinned.json')]);
      expect(v.code, v.stdout + v.stderr).toBe(0);
    }
    const a = elsewhere(['audit', 'verify', '--export', copy]);
    expect(a.code, a.stdout).toBe(0);
    const rep = jsonOut(a) as { checkpoints: { file: string; matches: boolean }[]; export: { contents: string } };
    expect(rep.checkpoints).toEqual([{ file: 'checkpoint.note', log_entries: expect.any(Number), matches: true }]);
    expect(rep.export.contents).toBe('matches');
  }, 120_000);

  it("another receipt's proof is refused for this receipt (tlog_proof_entry_mismatch)", () => {
    const [r1, r2] = s.receipts as [(typeof s.receipts)[0], (typeof s.receipts)[0]];
    const v = elsewhere(['verify', join(copy, 'receipts', `${hexOf(r1.receiptId)}.json`), '--inclusion-proof', join(copy, 'proofs', `${hexOf(r2.receiptId)}.json`), '--checkpoint', join(copy, 'checkpoint.note'), '--trust', join(copy, 'trust.pinned.json')]);
    expect(errorOf(v).code).toBe('tlog_proof_entry_mismatch');
  }, 60_000);

  it('two proofs swapped, the manifest recomputed: audit verify --export names both (audit_export_mismatch)', () => {
    const d = fresh();
    const [r1, r2] = s.receipts as [(typeof s.receipts)[0], (typeof s.receipts)[0]];
    const p1 = join(d, 'proofs', `${hexOf(r1.receiptId)}.json`);
    const p2 = join(d, 'proofs', `${hexOf(r2.receiptId)}.json`);
    const t = join(d, 'proofs', 'tmp');
    renameSync(p1, t);
    renameSync(p2, p1);
    renameSync(t, p2);
    remanifest(d);
    const a = elsewhere(['audit', 'verify', '--export', d]);
    expect(a.code).toBe(4);
    const f = (jsonOut(a) as { failures: { code: string; ids: string[] }[] }).failures;
    expect(f).toEqual([
      { code: 'audit_export_mismatch', exit: 4, ids: [`proofs/${hexOf(r1.receiptId)}.json`] },
      { code: 'audit_export_mismatch', exit: 4, ids: [`proofs/${hexOf(r2.receiptId)}.json`] },
    ].sort((x, y) => (x.ids[0] as string).localeCompare(y.ids[0] as string)));
  }, 120_000);

  it('a checkpoint signed by another key: refused by verify and by audit verify --export (tlog_checkpoint_untrusted, 6)', () => {
    const d = fresh();
    const text = readFileSync(join(d, 'checkpoint.note'), 'utf8');
    const body = text.slice(0, text.indexOf('\n\n') + 1);
    const origin = body.split('\n')[0] as string;
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
    const keyHash = createHash('sha256').update(Buffer.concat([Buffer.from(`${origin}\n`), Buffer.of(1), raw])).digest().subarray(0, 4);
    const sig = sign(null, Buffer.from(body), privateKey);
    writeFileSync(join(d, 'checkpoint.note'), `${body}\n\u2014 ${origin} ${Buffer.concat([keyHash, sig]).toString('base64')}\n`);
    remanifest(d);
    const h = hexOf((s.receipts[0] as { receiptId: string }).receiptId);
    const v = elsewhere(['verify', join(d, 'receipts', `${h}.json`), '--inclusion-proof', join(d, 'proofs', `${h}.json`), '--checkpoint', join(d, 'checkpoint.note'), '--trust', join(d, 'trust.pinned.json')]);
    expect(errorOf(v).code).toBe('tlog_checkpoint_untrusted');
    const a = elsewhere(['audit', 'verify', '--export', d]);
    expect(a.code).toBe(6);
    expect((jsonOut(a) as { failures: { code: string }[] }).failures.map((x) => x.code)).toEqual(['tlog_checkpoint_untrusted']);
  }, 120_000);

  it('positive control: a store without a stored checkpoint exports neither, and the export verifies', () => {
    const t = story(false);
    rounds(t, 'planning', 1);
    const d = join(tempDir('governed-tlog-export-none-'), 'export');
    const r = gov(t.w, ['audit', 'export', '--out', d, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect((jsonOut(r) as { checkpoint_size: null }).checkpoint_size).toBeNull();
    expect(existsSync(join(d, 'checkpoint.note'))).toBe(false);
    expect(existsSync(join(d, 'proofs'))).toBe(false);
    expect(elsewhere(['audit', 'verify', '--export', d]).code).toBe(0);
  }, 180_000);
});
