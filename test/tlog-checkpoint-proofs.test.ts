// The transparency log end to end through the built CLI and the shipped tlog-note attestor:
// `audit checkpoint` writes a C2SP checkpoint, `audit prove` inclusion and consistency proofs, and
// an independent verifier built on Go's golang.org/x/mod/sumdb/note and sumdb/tlog
// (test/fixtures/tlog-verify/main.go) accepts them — and refuses each with one byte changed.
// Then the tamper matrix, each with its exact code and the store unchanged by the audit, and a
// witness's cosignatures (audit cosign refuses a fork; audit verify --witness-key requires them).
import { createHash, createPrivateKey, sign } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { canonicalJson, digestOf } from '../src/core/canonical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, jsonOut, runCli } from './helpers/cli.js';
import { makeKey, tempDir, writeJson } from './helpers/receipts.js';
import { edit, rewriteLog, truncateLog } from './audit-helpers.js';
import { cleanupDirs, errorOf, gov, govOk, makeKeys, makeWorld, policyDoc, setupUnit, storeDigest, type World } from './state-helpers.js';
import { noteVerifierKey, signatureLine } from '../src/core/signed-note.js';

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
const HAVE_GO = spawnSync('go', ['version']).status === 0 && existsSync('/usr/share/gocode/src/golang.org/x/mod/sumdb/tlog/tlog.go');
const ORIGIN = 'governed.example/tlog-test';

let w: World;
let attestorsDir: string;
let out: string;
let goBin: string;
let vkey: string;

function world(): { w: World; attestorsDir: string } {
  const dir = tempDir('governed-tlog-');
  const keys = makeKeys(join(dir, 'keys'));
  const attestors = join(dir, 'attestors');
  mkdirSync(attestors, { mode: 0o700 });
  const cfg = writeJson(join(attestors, 'log.json'), { credential: 'log', kind: 'tlog-checkpoint', key_id: keys.log.keyId, key_ref: keys.log.privateKeyPath, origin: ORIGIN });
  const program = join(REPO_ROOT, 'attestors', 'tlog-note.mjs');
  writeFileSync(join(attestors, 'log.mjs'), readFileSync(program));
  const doc = policyDoc(keys) as { credentials: Record<string, Record<string, unknown>> };
  doc.credentials.log = { key_id: keys.log.keyId, attestor_sha256: [sha(readFileSync(program))], attestor_config_sha256: [sha(readFileSync(cfg))] };
  return { w: makeWorld({ policy: doc, keys }), attestorsDir: attestors };
}

let n = 0;
const file = (name: string): string => join(out, `${n++}-${name}`);

function checkpoint(x: World = w): string {
  const f = file('cp.note');
  const r = gov(x, ['audit', 'checkpoint', '--out', f, '--attestors', attestorsDir, '--json']);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return f;
}

function prove(args: string[], x: World = w): string {
  const f = file('proof.json');
  const r = gov(x, ['audit', 'prove', ...args, '--out', f, '--json']);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return f;
}

/** k more log entries (one unit_create each). */
function addEntries(k: number, x: World = w): void {
  for (let i = 0; i < k; i++) govOk(x, ['unit', 'create', '--contract', x.contractFile, '--baseline', x.baseline]);
}

/** Swap two whole entries (time, type, unit, payload) and recompute every hash and table from the first. */
function swapEntries(home: string, a: number, b: number): void {
  edit(home, (db) => {
    const get = db.prepare('SELECT time, type, unit, payload, payload_digest FROM log WHERE seq = ?');
    const ra = get.get(a) as { time: number; unit: string; payload: Buffer };
    const rb = get.get(b) as { time: number; unit: string; payload: Buffer };
    // Contents trade places; each keeps its own time (the payload's created_at is the entry time).
    const moved = (from: typeof ra, to: typeof ra) => {
      const p = { ...(JSON.parse(from.payload.toString('utf8')) as Record<string, unknown>), created_at: to.time };
      return { unit: from.unit, payload: Buffer.from(canonicalJson(p as never)), payload_digest: digestOf(p as never) };
    };
    const set = db.prepare('UPDATE log SET unit = @unit, payload = @payload, payload_digest = @payload_digest WHERE seq = @seq');
    set.run({ ...moved(rb, ra), seq: a });
    set.run({ ...moved(ra, rb), seq: b });
  });
  // The chain is recomputed; the tables cannot be rebuilt from a swapped history of units (replay
  // refuses it: log_entry_not_applicable), so the stored tables stay as they were.
  try {
    rewriteLog(home, a, () => {});
  } catch (e) {
    expect((e as { code?: string }).code).toBe('log_entry_not_applicable');
  }
}

function audit(home: string, extra: string[]) {
  const r = gov({ ...w, home }, ['audit', 'verify', ...extra, '--json']);
  return { code: r.code, out: jsonOut(r) as { failures: { code: string; exit: number; ids: string[] }[]; checkpoints: { matches: boolean }[] } };
}

function goVerify(args: string[]): { code: number | null; out: string } {
  const r = spawnSync(goBin, args, { encoding: 'utf8' });
  return { code: r.status, out: r.stdout + r.stderr };
}

/** A copy of the file with one byte changed at `at` (a base64 or digit character swapped for another). */
function flipByte(path: string, at: (text: string) => number): string {
  const text = readFileSync(path, 'utf8');
  const i = at(text);
  const c = text[i] as string;
  const f = file('flipped');
  writeFileSync(f, text.slice(0, i) + (c === 'A' ? 'B' : c === '1' ? '2' : 'A') + text.slice(i + 1));
  return f;
}

function seqOf(home: string, type: string): number {
  const db = new Database(join(home, 'governed.db'), { readonly: true });
  try {
    return db.prepare('SELECT seq FROM log WHERE type = ? ORDER BY seq LIMIT 1').pluck().get(type) as number;
  } finally {
    db.close();
  }
}

function cloneState(home: string): string {
  const copy = join(tempDir('governed-tlog-clone-'), 'state');
  execFileSync('cp', ['-a', home, copy]);
  return copy;
}

beforeAll(() => {
  ({ w, attestorsDir } = world());
  setupUnit(w);
  out = tempDir('governed-tlog-out-');
  const pub = readFileSync(w.keys.log.publicKeyPath, 'utf8');
  const der = Buffer.from(pub.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  vkey = noteVerifierKey(ORIGIN, der.subarray(12));
}, 120_000);
afterAll(cleanupDirs);

describe('audit checkpoint (C2SP) and audit prove', () => {
  it('writes a C2SP signed note of origin, size and root; audit verify accepts it; the store is unchanged', () => {
    const before = storeDigest(w);
    const cp = checkpoint();
    const text = readFileSync(cp, 'utf8');
    const [origin, size, root, blank, sigLine] = text.split('\n');
    expect(origin).toBe(ORIGIN);
    expect(Number(size)).toBeGreaterThanOrEqual(3);
    expect(Buffer.from(root as string, 'base64')).toHaveLength(32);
    expect(blank).toBe('');
    expect(sigLine?.startsWith(`\u2014 ${ORIGIN} `)).toBe(true);
    const a = audit(w.home, ['--checkpoint', cp]);
    expect(a.out.failures).toEqual([]);
    expect(a.code).toBe(0);
    expect(a.out.checkpoints[0]?.matches).toBe(true);
    expect(storeDigest(w)).toBe(before);
  });

  it.skipIf(!HAVE_GO)('Go sumdb/note and sumdb/tlog verify the checkpoint, an inclusion and a consistency proof, and refuse each with one byte changed', () => {
    const gocache = tempDir('governed-gocache-');
    goBin = join(gocache, 'tlog-verify');
    execFileSync('go', ['build', '-o', goBin, 'main.go'], {
      cwd: join(REPO_ROOT, 'test', 'fixtures', 'tlog-verify'),
      env: { ...process.env, GOPATH: '/usr/share/gocode', GO111MODULE: 'off', GOFLAGS: '', GOCACHE: join(gocache, 'cache'), GOTOOLCHAIN: 'local', GOPROXY: 'off' },
      stdio: 'pipe',
    });
    const cp1 = checkpoint();
    addEntries(5);
    const cp2 = checkpoint();
    expect(goVerify(['note', vkey, cp1]).code).toBe(0);
    const size2 = Number(readFileSync(cp2, 'utf8').split('\n')[1]);
    for (let seq = 1; seq <= size2; seq++) {
      const p = prove(['--entry', String(seq), '--checkpoint', cp2]);
      const r = goVerify(['inclusion', vkey, cp2, p]);
      expect(r.code, r.out).toBe(0);
    }
    const inc = prove(['--entry', '2', '--checkpoint', cp2]);
    const con = prove(['--from', cp1, '--to', cp2]);
    expect(goVerify(['consistency', vkey, cp1, cp2, con]).code).toBe(0);
    // One byte changed: the checkpoint's root, its signature, a proof hash, the proved entry.
    const badRoot = flipByte(cp2, (t) => t.indexOf('\n', t.indexOf('\n') + 1) + 3);
    expect(goVerify(['note', vkey, badRoot]).code).toBe(1);
    const badSig = flipByte(cp2, (t) => t.length - 10);
    expect(goVerify(['note', vkey, badSig]).code).toBe(1);
    const badHash = flipByte(inc, (t) => t.indexOf('"hashes"') + 16);
    expect(goVerify(['inclusion', vkey, cp2, badHash]).code).toBe(1);
    const badEntry = flipByte(inc, (t) => t.indexOf('"time": ') + 9);
    expect(goVerify(['inclusion', vkey, cp2, badEntry]).code).toBe(1);
    const badCon = flipByte(con, (t) => t.indexOf('"hashes"') + 16);
    expect(goVerify(['consistency', vkey, cp1, cp2, badCon]).code).toBe(1);
    // Positive controls: the unflipped files still verify (the refusals are the byte, not the harness).
    expect(goVerify(['inclusion', vkey, cp2, inc]).code).toBe(0);
    // Another key's verifier refuses a genuine checkpoint.
    const other = makeKey(tempDir('governed-tlog-k-'), 'other');
    const otherDer = Buffer.from(readFileSync(other.publicKeyPath, 'utf8').replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
    expect(goVerify(['note', noteVerifierKey(ORIGIN, otherDer.subarray(12)), cp2]).code).toBe(1);
  }, 300_000);
});

describe('tamper matrix (each with its exact code; the audit leaves the store unchanged)', () => {
  let cp: string;
  beforeAll(() => {
    addEntries(3);
    cp = checkpoint();
  }, 120_000);

  function codes(home: string, extra: string[] = ['--checkpoint', cp]): string[] {
    return audit(home, extra).out.failures.map((f) => f.code);
  }

  it('an entry edited (every hash recomputed, the tables and tree rebuilt): tlog_root_mismatch; the plain audit passes', () => {
    const h = cloneState(w.home);
    rewriteLog(h, seqOf(h, 'writer_register'), (p) => {
      p.writer_session = 'agent-rewritten';
    });
    expect(codes(h, [])).toEqual([]);
    expect(codes(h, [])).toEqual([]);
    const before = readFileSync(join(h, 'governed.db'));
    expect(codes(h)).toEqual(['tlog_root_mismatch']);
    expect(audit(h, ['--checkpoint', cp]).code).toBe(4);
    expect(readFileSync(join(h, 'governed.db')).equals(before)).toBe(true);
  });

  it('an entry removed (a later log re-chained without it): tlog_root_mismatch', () => {
    const h = cloneState(w.home);
    const size = Number(readFileSync(cp, 'utf8').split('\n')[1]);
    // Remove the last covered entry and re-append a different one at its seq: same size, other root.
    truncateLog(h, size - 1);
    addEntries(1, { ...w, home: h });
    expect(codes(h, [])).toEqual([]);
    expect(codes(h)).toEqual(['tlog_root_mismatch']);
  });

  it('two entries swapped (chain recomputed; replay refuses the swapped history): the checkpoint adds tlog_root_mismatch', () => {
    const h = cloneState(w.home);
    const size = Number(readFileSync(cp, 'utf8').split('\n')[1]);
    const db = new Database(join(h, 'governed.db'), { readonly: true });
    const [b, a] = db.prepare("SELECT seq FROM log WHERE type = 'unit_create' AND seq <= ? ORDER BY seq DESC LIMIT 2").pluck().all(size) as number[];
    db.close();
    swapEntries(h, a as number, b as number);
    expect(codes(h, [])).not.toContain('tlog_root_mismatch');
    expect(codes(h)).toContain('tlog_root_mismatch');
  });

  it('the tree table edited: log_tree_mismatch (positive control: the untouched copy passes)', () => {
    const h = cloneState(w.home);
    expect(codes(h, [])).toEqual([]);
    edit(h, (db) => {
      db.exec('DROP TRIGGER IF EXISTS tlog_hashes_no_update');
      db.prepare('UPDATE tlog_hashes SET hash = ? WHERE idx = 2').run(Buffer.alloc(32, 7));
    });
    expect(codes(h, [])).toContain('log_tree_mismatch');
  });

  it('a truncated log against an older checkpoint: tlog_log_truncated', () => {
    const h = cloneState(w.home);
    const size = Number(readFileSync(cp, 'utf8').split('\n')[1]);
    truncateLog(h, size - 2);
    expect(codes(h)).toEqual(['tlog_log_truncated']);
  });

  it('a forked log (two checkpoints of the same size with different roots): tlog_fork', () => {
    const h = cloneState(w.home);
    rewriteLog(h, seqOf(h, 'writer_register'), (p) => {
      p.writer_session = 'agent-fork';
    });
    const forked = file('fork.note');
    const r = gov({ ...w, home: h }, ['audit', 'checkpoint', '--out', forked, '--attestors', attestorsDir, '--json']);
    expect(r.code, r.stdout).toBe(0);
    expect(codes(w.home, ['--checkpoint', cp, '--checkpoint', forked])).toEqual(['tlog_fork', 'tlog_root_mismatch']);
  });

  it('a checkpoint signed by another key: tlog_checkpoint_untrusted (exit 6)', () => {
    const text = readFileSync(cp, 'utf8');
    const body = text.slice(0, text.indexOf('\n\n') + 1);
    const other = makeKey(tempDir('governed-tlog-k-'), 'other');
    const sig = sign(null, Buffer.from(body), createPrivateKey(readFileSync(other.privateKeyPath)));
    const der = Buffer.from(readFileSync(other.publicKeyPath, 'utf8').replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
    const f = file('other.note');
    writeFileSync(f, `${body}\n${signatureLine(ORIGIN, der.subarray(12), sig)}`);
    const a = audit(w.home, ['--checkpoint', f]);
    expect(a.out.failures.map((x) => x.code)).toEqual(['tlog_checkpoint_untrusted']);
    expect(a.code).toBe(6);
  });

  it('a proof for another tree size: tlog_proof_size_mismatch', () => {
    const older = cp;
    addEntries(1);
    const newer = checkpoint();
    const p = prove(['--entry', '1', '--checkpoint', older]);
    const r = gov(w, ['verify', '--inclusion-proof', p, '--checkpoint', newer, '--json']);
    expect(errorOf(r).code).toBe('tlog_proof_size_mismatch');
    const ok = gov(w, ['verify', '--inclusion-proof', p, '--checkpoint', older, '--json']);
    expect(ok.code, ok.stdout).toBe(0);
  });
});

describe('witnesses: audit cosign and audit verify --witness-key', () => {
  it('cosigns after a consistency check, refuses a fork, and audit verify requires the cosignature', () => {
    const wdir = tempDir('governed-witness-');
    const wkey = makeKey(wdir, 'witness');
    const state = join(wdir, 'state.json');
    const cosign = (cp: string, extra: string[] = []) => {
      const f = file('cosigned.note');
      const r = runCli(['audit', 'cosign', '--checkpoint', cp, '--log-key', vkey, '--key', wkey.privateKeyPath, '--name', 'witness.example', '--state', state, '--out', f, ...extra, '--json'], { cwd: w.repo.root });
      return { r, f };
    };
    const cp1 = checkpoint();
    const first = cosign(cp1);
    expect(first.r.code, first.r.stdout).toBe(0);
    const witnessKey = (jsonOut(first.r) as { witness_key: string }).witness_key;
    addEntries(2);
    const cp2 = checkpoint();
    // The tree grew: a consistency proof from the cosigned one is required.
    expect(errorOf(cosign(cp2).r).code).toBe('usage_error');
    const proof = prove(['--from', cp1, '--to', cp2]);
    const second = cosign(cp2, ['--proof', proof]);
    expect(second.r.code, second.r.stdout).toBe(0);
    // A fork of the same size as the one cosigned: refused, the state file unchanged.
    const h = cloneState(w.home);
    rewriteLog(h, seqOf(h, 'writer_register'), (p) => {
      p.writer_session = 'agent-witness-fork';
    });
    const forked = file('fork.note');
    expect(gov({ ...w, home: h }, ['audit', 'checkpoint', '--out', forked, '--attestors', attestorsDir, '--json']).code).toBe(0);
    const stateBefore = readFileSync(state);
    expect(errorOf(cosign(forked).r).code).toBe('tlog_fork');
    expect(readFileSync(state).equals(stateBefore)).toBe(true);
    // audit verify: the cosigned checkpoint passes with the witness key; the uncosigned one does not;
    // a cosignature by an unknown key counts for nothing.
    expect(audit(w.home, ['--checkpoint', second.f, '--witness-key', witnessKey]).code).toBe(0);
    const a = audit(w.home, ['--checkpoint', cp2, '--witness-key', witnessKey]);
    expect(a.out.failures.map((f) => f.code)).toEqual(['tlog_witness_insufficient']);
    expect(a.code).toBe(6);
    const stranger = makeKey(tempDir('governed-witness-2-'), 'stranger');
    const sDer = Buffer.from(readFileSync(stranger.publicKeyPath, 'utf8').replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
    const b = audit(w.home, ['--checkpoint', second.f, '--witness-key', noteVerifierKey('witness.example', sDer.subarray(12))]);
    expect(b.out.failures.map((f) => f.code)).toEqual(['tlog_witness_insufficient']);
  }, 120_000);
});
