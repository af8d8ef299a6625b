// The gate's deploy record (gate --export) carries the newest stored checkpoint and the inclusion
// proof of every relied-on receipt it covers (docs/audit.md "Export and deploy record"); its
// manifest matches the published schema (src/core/gate-record-schema.ts). On another machine, a
// relied-on receipt is proved logged from the record alone. A stored checkpoint whose root is not
// the log's (signed by the real log key) makes the gate answer with tlog_root_mismatch and write
// no record; positive control: with no stored checkpoint the record holds neither.
import { createHash, createPrivateKey, sign } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployRecordManifestSchema } from '../src/core/deploy-record.js';
import { REPO_ROOT, jsonOut, runCli } from './helpers/cli.js';
import { tempDir, writeJson } from './helpers/receipts.js';
import { eligibleStory, gate, gateJson, planningRequiredPolicy, type Story } from './gate-world.js';
import { cleanupDirs, gov, makeKeys } from './state-helpers.js';

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
let s: Story;
let att: string;
let checkpointText: string;

beforeAll(() => {
  const keys = makeKeys();
  att = tempDir('governed-tlog-gate-att-');
  const cfg = writeJson(join(att, 'log.json'), { credential: 'log', kind: 'tlog-checkpoint', key_id: keys.log.keyId, key_ref: keys.log.privateKeyPath, origin: 'governed.example/gate' });
  const program = readFileSync(join(REPO_ROOT, 'attestors', 'tlog-note.mjs'));
  writeFileSync(join(att, 'log.mjs'), program);
  const doc = planningRequiredPolicy(keys) as { credentials: Record<string, unknown> };
  doc.credentials.log = { key_id: keys.log.keyId, attestor_sha256: [sha(program)], attestor_config_sha256: [sha(readFileSync(cfg))] };
  s = eligibleStory({ policy: doc, keys });
  // The checkpoint of the whole log, stored where the automatic checkpoints go (its file name is
  // its tree size), signed through the pinned attestor by `audit checkpoint`.
  const f = join(tempDir('governed-tlog-gate-cp-'), 'cp.note');
  const r = gov(s.w, ['audit', 'checkpoint', '--out', f, '--attestors', att, '--json']);
  expect(r.code, r.stderr).toBe(0);
  const size = (jsonOut(r) as { tree_size: number }).tree_size;
  checkpointText = readFileSync(f, 'utf8');
  mkdirSync(join(s.w.home, 'checkpoints'), { mode: 0o700 });
  chmodSync(join(s.w.home, 'checkpoints'), 0o700);
  writeFileSync(join(s.w.home, 'checkpoints', `${String(size).padStart(20, '0')}.note`), checkpointText);
}, 300_000);
afterAll(cleanupDirs);

const place = (): string => join(tempDir('governed-tlog-gate-out-'), 'record');

describe('gate --export: checkpoint and inclusion proofs in the deploy record', () => {
  it('the record holds the checkpoint and a proof per relied-on receipt; each proves its receipt logged elsewhere', () => {
    const out = place();
    const r = gate(s, { extra: ['--export', out] });
    const d = gateJson(r);
    expect(r.code, r.stdout).toBe(0);
    const relied = d.reliedOn?.receipts ?? [];
    expect(relied.length).toBeGreaterThan(0);
    expect(readFileSync(join(out, 'checkpoint.note'), 'utf8')).toBe(checkpointText);
    expect(readdirSync(join(out, 'proofs')).sort()).toEqual(relied.map((id) => `${id.slice(7)}.json`).sort());
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { files: { path: string }[] };
    expect(deployRecordManifestSchema.safeParse(manifest).success).toBe(true);
    expect(manifest.files.map((f) => f.path)).toContain('checkpoint.note');
    // Another machine: a copy of the record, no store.
    const away = join(tempDir('governed-tlog-gate-away-'), 'record');
    cpSync(out, away, { recursive: true });
    for (const id of relied.slice(0, 3)) {
      const h = id.slice(7);
      const v = runCli(['verify', join(away, 'receipts', `${h}.json`), '--inclusion-proof', join(away, 'proofs', `${h}.json`), '--checkpoint', join(away, 'checkpoint.note'), '--trust', join(away, 'trust.json'), '--json'], { cwd: tempDir('governed-elsewhere-') });
      expect(v.code, v.stdout).toBe(0);
    }
  }, 120_000);

  it('a stored checkpoint signed by the log key over another root: tlog_root_mismatch (4), no record', () => {
    const names = readdirSync(join(s.w.home, 'checkpoints'));
    const body = checkpointText.slice(0, checkpointText.indexOf('\n\n') + 1);
    const [origin, size] = body.split('\n') as [string, string];
    const forged = `${origin}\n${size}\n${Buffer.alloc(32, 7).toString('base64')}\n`;
    const key = createPrivateKey(readFileSync(s.w.keys.log.privateKeyPath));
    const sigLine = checkpointText.slice(checkpointText.indexOf('\n\n') + 2);
    const keyHash = Buffer.from(sigLine.trim().split(' ')[2] as string, 'base64').subarray(0, 4);
    const note = `${forged}\n\u2014 ${origin} ${Buffer.concat([keyHash, sign(null, Buffer.from(forged), key)]).toString('base64')}\n`;
    const file = join(s.w.home, 'checkpoints', names[0] as string);
    writeFileSync(file, note);
    try {
      const out = place();
      const r = gate(s, { extra: ['--export', out] });
      expect(r.code).toBe(4);
      expect(gateJson(r).error?.code).toBe('tlog_root_mismatch');
      expect(existsSync(out)).toBe(false);
      expect(readdirSync(join(out, '..'))).toEqual([]);
    } finally {
      writeFileSync(file, checkpointText);
    }
  }, 120_000);

  it('positive control: no stored checkpoint, the record holds neither checkpoint nor proofs', () => {
    rmSync(join(s.w.home, 'checkpoints'), { recursive: true });
    try {
      const out = place();
      const r = gate(s, { extra: ['--export', out] });
      expect(r.code, r.stdout).toBe(0);
      expect(existsSync(join(out, 'checkpoint.note'))).toBe(false);
      expect(existsSync(join(out, 'proofs'))).toBe(false);
    } finally {
      mkdirSync(join(s.w.home, 'checkpoints'), { mode: 0o700 });
    }
  }, 120_000);
});
