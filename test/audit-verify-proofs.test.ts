// `governed audit verify --checkpoint F... --inclusion-proof P... [--consistency-proof C...]`
// (docs/audit.md#checking-proofs-without-the-log): proofs checked with no log — the store is never
// read (the command runs against a state directory that does not exist, with --trust). Go's
// golang.org/x/mod/sumdb/note + sumdb/tlog (test/fixtures/tlog-verify/main.go) judge the same files
// and must agree on every accept and every refusal. Then the attacks, each with its exact code and
// a positive control: a proof for a different leaf, a truncated proof, a checkpoint signed by a
// wrong key, a forked checkpoint, a proof for another tree size, another origin.
import { createHash, createPrivateKey, sign } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, jsonOut } from './helpers/cli.js';
import { makeKey, tempDir, writeJson } from './helpers/receipts.js';
import { newStory, planningRequiredPolicy, rounds, type Story } from './gate-world.js';
import { cleanupDirs, errorOf, gov, govOk, makeKeys, storeDigest } from './state-helpers.js';
import { noteVerifierKey, signatureLine } from '../src/core/signed-note.js';
import { auditVerifyProofsSchema } from '../src/core/command-output.js';
import { printedSchema } from '../src/core/json-style-schema.js';

/** The proofs shape as printed (with schema_version and exit: src/core/json-style-schema.ts). */
const printedAuditVerify = printedSchema(auditVerifyProofsSchema);

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
const HAVE_GO = spawnSync('go', ['version']).status === 0 && existsSync('/usr/share/gocode/src/golang.org/x/mod/sumdb/tlog/tlog.go');
const ORIGIN = 'governed.example/audit-proofs';

let s: Story;
let attestors: string;
let out: string;
let n = 0;
let vkey: string;
const f = (name: string): string => join(out, `${n++}-${name}`);

// The two checkpoints a week apart, the proofs, and the receipts they are about.
let cp1: string;
let cp2: string;
let p1: string; // receipt 1's entry in cp2's tree
let p2: string; // receipt 2's entry in cp2's tree
let p1old: string; // receipt 1's entry in cp1's tree
let con: string; // cp1 → cp2
let r1: string;
let r2: string;

function cli(args: string[]) {
  return gov(s.w, [...args, '--json']);
}

function prove(args: string[]): string {
  const p = f('proof.json');
  const r = cli(['audit', 'prove', ...args, '--out', p]);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return p;
}

function checkpoint(): string {
  const c = f('cp.note');
  const r = cli(['audit', 'checkpoint', '--out', c, '--attestors', attestors]);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return c;
}

/** `audit verify` in proofs mode, against a state directory that does not exist (no log anywhere). */
function verifyProofs(args: string[], trust = s.w.trustFile) {
  const r = gov({ ...s.w, home: join(out, 'no-store-here') }, ['audit', 'verify', '--trust', trust, ...args, '--json']);
  const o = jsonOut(r) as {
    ok: boolean;
    mode?: string;
    exit: number;
    failures?: { code: string; exit: number; ids: string[] }[];
    checkpoints?: { verified: boolean }[];
    inclusion?: { seq: number | null; verified: boolean; checkpoint: string | null }[];
    consistency?: { verified: boolean }[];
    error?: { code: string };
  };
  return { code: r.code, o, codes: (o.failures ?? []).map((x) => x.code), raw: r };
}

function rewrite(path: string, change: (p: Record<string, unknown>) => void): string {
  const p = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  change(p);
  const g = f('changed.json');
  writeFileSync(g, JSON.stringify(p));
  return g;
}

/** A note with `body` signed under ORIGIN by the key at `pem` (public key `pub`). */
function signedNote(body: string, privPath: string, pubPath: string): string {
  const der = Buffer.from(readFileSync(pubPath, 'utf8').replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  const sig = sign(null, Buffer.from(body), createPrivateKey(readFileSync(privPath)));
  const g = f('signed.note');
  writeFileSync(g, `${body}\n${signatureLine(ORIGIN, der.subarray(12), sig)}`);
  return g;
}

beforeAll(() => {
  const keys = makeKeys();
  attestors = tempDir('governed-auditproofs-att-');
  const cfg = writeJson(join(attestors, 'log.json'), { credential: 'log', kind: 'tlog-checkpoint', key_id: keys.log.keyId, key_ref: keys.log.privateKeyPath, origin: ORIGIN });
  const program = readFileSync(join(REPO_ROOT, 'attestors', 'tlog-note.mjs'));
  writeFileSync(join(attestors, 'log.mjs'), program);
  const doc = planningRequiredPolicy(keys) as { credentials: Record<string, unknown> };
  doc.credentials.log = { key_id: keys.log.keyId, attestor_sha256: [sha(program)], attestor_config_sha256: [sha(readFileSync(cfg))] };
  s = newStory({ policy: doc, keys });
  out = tempDir('governed-auditproofs-out-');
  rounds(s, 'planning', 1);
  cp1 = checkpoint();
  // "A week later": more entries, a second checkpoint.
  for (let i = 0; i < 3; i++) govOk(s.w, ['unit', 'create', '--contract', s.w.contractFile, '--baseline', s.w.baseline]);
  cp2 = checkpoint();
  [r1, r2] = [s.receipts[0]?.receiptId as string, s.receipts[1]?.receiptId as string];
  p1 = prove(['--receipt', r1, '--checkpoint', cp2]);
  p2 = prove(['--receipt', r2, '--checkpoint', cp2]);
  p1old = prove(['--receipt', r1, '--checkpoint', cp1]);
  con = prove(['--from', cp1, '--to', cp2]);
  const der = Buffer.from(readFileSync(keys.log.publicKeyPath, 'utf8').replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  vkey = noteVerifierKey(ORIGIN, der.subarray(12));
}, 180_000);
afterAll(cleanupDirs);

describe('audit verify --inclusion-proof / --consistency-proof: proofs without the log', () => {
  it('accepts a receipt proof and a consistency proof between two checkpoints, without reading any store; the real store is untouched', () => {
    const before = storeDigest(s.w);
    const v = verifyProofs(['--checkpoint', cp1, cp2, '--inclusion-proof', p1, '--consistency-proof', con, '--receipt', r1]);
    expect(v.o.failures, v.raw.stdout).toEqual([]);
    expect(v.code).toBe(0);
    expect(v.o.ok).toBe(true);
    expect(v.o.mode).toBe('proofs');
    // The printed object is of its published schema (docs/schemas/audit-verify.schema.json), and so is a failed one.
    expect(printedAuditVerify.safeParse(v.o).success).toBe(true);
    expect(printedAuditVerify.safeParse(verifyProofs(['--checkpoint', cp1, '--inclusion-proof', p1]).o).success).toBe(true);
    expect(v.o.checkpoints?.map((c) => c.verified)).toEqual([true, true]);
    expect(v.o.inclusion?.[0], v.raw.stdout).toMatchObject({ verified: true, checkpoint: cp2 });
    expect(v.o.consistency?.[0]?.verified).toBe(true);
    // No log was read: the state directory the command was pointed at does not exist, and was not made.
    expect(existsSync(join(out, 'no-store-here'))).toBe(false);
    expect(storeDigest(s.w)).toBe(before);
    // The same proof of receipt 1 in the older tree, against the older checkpoint.
    expect(verifyProofs(['--checkpoint', cp1, '--inclusion-proof', p1old, '--receipt', r1]).code).toBe(0);
    // Without --trust, the pinned trust root of --home is used (only the pin is read).
    const pinned = gov(s.w, ['audit', 'verify', '--checkpoint', cp2, '--inclusion-proof', p1, '--json']);
    expect(pinned.code, pinned.stdout).toBe(0);
  });

  it('a proof for a different leaf: another receipt\'s entry, another --entry, another entry under the same hashes — tlog_proof_entry_mismatch / tlog_proof_invalid (4)', () => {
    // Positive control: receipt 2's own proof verifies for receipt 2.
    const own = verifyProofs(['--checkpoint', cp2, '--inclusion-proof', p2, '--receipt', r2]);
    expect(own.code, own.raw.stdout).toBe(0);
    const other = verifyProofs(['--checkpoint', cp2, '--inclusion-proof', p2, '--receipt', r1]);
    expect(other.codes).toEqual(['tlog_proof_entry_mismatch']);
    expect(other.code).toBe(4);
    const seq = verifyProofs(['--checkpoint', cp2, '--inclusion-proof', p1]).o.inclusion?.[0]?.seq as number;
    expect(verifyProofs(['--checkpoint', cp2, '--inclusion-proof', p1, '--entry', String(seq)]).code).toBe(0);
    expect(verifyProofs(['--checkpoint', cp2, '--inclusion-proof', p1, '--entry', String(seq + 1)]).codes).toEqual(['tlog_proof_entry_mismatch']);
    // Receipt 2's entry (and leaf index) with receipt 1's path: the leaf is not on that path.
    const p2doc = JSON.parse(readFileSync(p2, 'utf8')) as Record<string, unknown>;
    const swapped = rewrite(p1, (p) => {
      p.entry = p2doc.entry;
      p.leaf_index = p2doc.leaf_index;
      p.payload = p2doc.payload;
    });
    const sw = verifyProofs(['--checkpoint', cp2, '--inclusion-proof', swapped]);
    expect(sw.codes).toEqual(['tlog_proof_invalid']);
    expect(sw.o.inclusion?.[0]?.verified).toBe(false);
    // One field of the proved entry changed (its time): another leaf hash, refused.
    const retimed = rewrite(p1, (p) => {
      (p.entry as { time: number }).time += 1;
    });
    expect(verifyProofs(['--checkpoint', cp2, '--inclusion-proof', retimed]).codes).toEqual(['tlog_proof_invalid']);
  });

  it('a truncated proof (a hash removed, or the file cut short): tlog_proof_invalid (4)', () => {
    const doc = JSON.parse(readFileSync(p1, 'utf8')) as { hashes: string[] };
    expect(doc.hashes.length).toBeGreaterThan(1);
    const short = rewrite(p1, (p) => {
      (p.hashes as string[]).pop();
    });
    expect(verifyProofs(['--checkpoint', cp2, '--inclusion-proof', short]).codes).toEqual(['tlog_proof_invalid']);
    const cut = f('cut.json');
    const text = readFileSync(p1, 'utf8');
    writeFileSync(cut, text.slice(0, Math.floor(text.length / 2)));
    expect(verifyProofs(['--checkpoint', cp2, '--inclusion-proof', cut]).codes).toEqual(['tlog_proof_invalid']);
    const conShort = rewrite(con, (p) => {
      (p.hashes as string[]).pop();
    });
    expect(verifyProofs(['--checkpoint', cp1, cp2, '--consistency-proof', conShort]).codes).toEqual(['tlog_fork']);
  });

  it('a checkpoint signed by a wrong key: tlog_checkpoint_untrusted (6), and no proof is judged against it', () => {
    const body = readFileSync(cp2, 'utf8').split('\n').slice(0, 3).join('\n') + '\n';
    // Positive control: the same body signed by the real log key verifies (the harness makes a valid note).
    const real = signedNote(body, s.w.keys.log.privateKeyPath, s.w.keys.log.publicKeyPath);
    expect(verifyProofs(['--checkpoint', real, '--inclusion-proof', p1]).code).toBe(0);
    const other = makeKey(tempDir('governed-auditproofs-k-'), 'other');
    const forged = signedNote(body, other.privateKeyPath, other.publicKeyPath);
    const v = verifyProofs(['--checkpoint', forged, '--inclusion-proof', p1]);
    expect(v.code).toBe(6);
    expect(v.codes).toEqual(['tlog_checkpoint_untrusted']);
    expect(v.o.checkpoints?.[0]?.verified).toBe(false);
    expect(v.o.inclusion?.[0]).toMatchObject({ verified: false, checkpoint: null });
    // A trust root without the log key: the genuine checkpoint is not trusted either.
    const trust = JSON.parse(readFileSync(s.w.trustFile, 'utf8')) as { keys: { roles: string[] }[] };
    trust.keys = trust.keys.filter((k) => !k.roles.includes('log'));
    const noLog = writeJson(f('trust.json'), trust);
    expect(verifyProofs(['--checkpoint', cp2, '--inclusion-proof', p1], noLog).codes[0]).toBe('tlog_checkpoint_untrusted');
  });

  it('a forked checkpoint (same size, another root, signed by the real log key): tlog_fork (4), and the consistency proof to it fails', () => {
    const lines = readFileSync(cp2, 'utf8').split('\n');
    const root = Buffer.from(lines[2] as string, 'base64');
    root[0] = (root[0] as number) ^ 1;
    const forked = signedNote(`${lines[0]}\n${lines[1]}\n${root.toString('base64')}\n`, s.w.keys.log.privateKeyPath, s.w.keys.log.publicKeyPath);
    expect(verifyProofs(['--checkpoint', cp2, forked, '--inclusion-proof', p1]).codes).toEqual(['tlog_fork']);
    // Alone, the forked checkpoint verifies (it is signed) — but neither proof leads to its root.
    const alone = verifyProofs(['--checkpoint', cp1, forked, '--inclusion-proof', p1, '--consistency-proof', con]);
    expect(alone.codes).toEqual(['tlog_proof_invalid', 'tlog_fork']);
    expect(alone.o.checkpoints?.map((c) => c.verified)).toEqual([true, true]);
  });

  it('a proof for another tree size or another origin: tlog_proof_size_mismatch / tlog_origin_mismatch (4)', () => {
    const v = verifyProofs(['--checkpoint', cp2, '--inclusion-proof', p1old]);
    expect(v.codes).toEqual(['tlog_proof_size_mismatch']);
    expect(verifyProofs(['--checkpoint', cp2, '--consistency-proof', con]).codes).toEqual(['tlog_proof_size_mismatch']);
    const foreign = rewrite(p1, (p) => {
      p.origin = 'elsewhere.example/log';
    });
    expect(verifyProofs(['--checkpoint', cp2, '--inclusion-proof', foreign]).codes).toEqual(['tlog_origin_mismatch']);
  });

  it('refuses usage it cannot act on, never echoing a rejected value', () => {
    const cases: [string[], string][] = [
      [['--inclusion-proof', p1], '--checkpoint'],
      [['--checkpoint', cp2, '--inclusion-proof', p1, p2, '--receipt', r1], '--inclusion-proof'],
      [['--checkpoint', cp2, '--inclusion-proof', p1, '--receipt', 'not-a-receipt-CANARY'], '--receipt'],
      [['--checkpoint', cp2, '--inclusion-proof', p1, '--entry', '0x1'], '--entry'],
      [['--checkpoint', cp2, '--inclusion-proof', p1, '--unit', 'UNIT-x'], '--unit'],
      [['--checkpoint', cp2, '--receipt', r1], '--inclusion-proof'],
    ];
    for (const [args, id] of cases) {
      const v = verifyProofs(args);
      const e = errorOf(v.raw);
      expect(e.code, args.join(' ')).toBe('usage_error');
      expect(e.ids).toEqual([id]);
      expect(v.raw.stdout + v.raw.stderr).not.toContain('CANARY');
    }
  });

  it.skipIf(!HAVE_GO)('Go sumdb/note + sumdb/tlog agree with it on every file: valid ones accepted, each attacked one refused', () => {
    const gocache = tempDir('governed-auditproofs-go-');
    const goBin = join(gocache, 'tlog-verify');
    execFileSync('go', ['build', '-o', goBin, 'main.go'], {
      cwd: join(REPO_ROOT, 'test', 'fixtures', 'tlog-verify'),
      env: { ...process.env, GOPATH: '/usr/share/gocode', GO111MODULE: 'off', GOFLAGS: '', GOCACHE: join(gocache, 'cache'), GOTOOLCHAIN: 'local', GOPROXY: 'off' },
      stdio: 'pipe',
    });
    const go = (args: string[]): boolean => spawnSync(goBin, args, { encoding: 'utf8' }).status === 0;
    const flipHash = rewrite(p1, (p) => {
      const h = Buffer.from((p.hashes as string[])[0] as string, 'base64');
      h[31] = (h[31] as number) ^ 0x80;
      (p.hashes as string[])[0] = h.toString('base64');
    });
    const truncated = rewrite(p1, (p) => {
      (p.hashes as string[]).pop();
    });
    const p2doc = JSON.parse(readFileSync(p2, 'utf8')) as Record<string, unknown>;
    const otherLeaf = rewrite(p1, (p) => {
      p.entry = p2doc.entry;
      p.leaf_index = p2doc.leaf_index;
    });
    const inclusion: [string, string, boolean][] = [
      [cp2, p1, true],
      [cp2, p2, true],
      [cp1, p1old, true],
      [cp2, flipHash, false],
      [cp2, truncated, false],
      [cp2, otherLeaf, false],
      [cp2, p1old, false],
    ];
    for (const [cp, proof, valid] of inclusion) {
      const ours = verifyProofs(['--checkpoint', cp, '--inclusion-proof', proof]).code === 0;
      expect({ proof, ours, go: go(['inclusion', vkey, cp, proof]) }).toEqual({ proof, ours: valid, go: valid });
    }
    const conFlip = rewrite(con, (p) => {
      const h = Buffer.from((p.hashes as string[])[0] as string, 'base64');
      h[0] = (h[0] as number) ^ 1;
      (p.hashes as string[])[0] = h.toString('base64');
    });
    for (const [proof, valid] of [[con, true], [conFlip, false]] as [string, boolean][]) {
      const ours = verifyProofs(['--checkpoint', cp1, cp2, '--consistency-proof', proof]).code === 0;
      expect({ proof, ours, go: go(['consistency', vkey, cp1, cp2, proof]) }).toEqual({ proof, ours: valid, go: valid });
    }
  }, 300_000);
});
