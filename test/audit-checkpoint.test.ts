// `governed audit checkpoint` and `audit verify --checkpoint` (docs/threat-model.md#trust-modes, docs/commands.md#what-each-command-guarantees, docs/state.md#the-store) through the
// built CLI with the real shipped attestor program (the `log` credential, pinned by the policy):
// a checkpoint that left the machine makes a CONSISTENT rewrite of the entries it covers detectable
// — the attack the plain audit cannot see in co-located mode — and a truncated history too; later
// appends still extend it. Refusals: output exists, attestor not pinned, tampered checkpoint, a
// trust root without the log key. The store is never written by either command.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKPOINT_PREDICATE_TYPE } from '../src/core/checkpoint.js';
import { REPO_ROOT, jsonOut } from './helpers/cli.js';
import { makeKey, tempDir, trustRootDoc, writeJson } from './helpers/receipts.js';
import { rewriteLog, truncateLog } from './audit-helpers.js';
import { cleanupDirs, errorOf, gov, govOk, makeKeys, makeWorld, policyDoc, setupUnit, storeDigest, type World } from './state-helpers.js';

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

let w: World;
let attestorsDir: string;

function world(o: { pinConfig?: boolean } = {}): { w: World; attestorsDir: string } {
  const dir = tempDir('governed-checkpoint-');
  const keys = makeKeys(join(dir, 'keys'));
  const attestors = join(dir, 'attestors');
  mkdirSync(attestors, { mode: 0o700 });
  const cfg = writeJson(join(attestors, 'log.json'), { credential: 'log', kind: 'checkpoint', key_id: keys.log.keyId, key_ref: keys.log.privateKeyPath });
  const program = sha(readFileSync(join(REPO_ROOT, 'attestors', 'ed25519-file.mjs')));
  const doc = policyDoc(keys) as { credentials: Record<string, Record<string, unknown>> };
  doc.credentials.log = { key_id: keys.log.keyId, attestor_sha256: [program], attestor_config_sha256: [o.pinConfig === false ? 'e'.repeat(64) : sha(readFileSync(cfg))] };
  return { w: makeWorld({ policy: doc, keys }), attestorsDir: attestors };
}

function checkpoint(out: string, x: { w: World; attestorsDir: string } = { w, attestorsDir }) {
  return gov(x.w, ['audit', 'checkpoint', '--out', out, '--attestors', x.attestorsDir, '--json']);
}

function auditWith(home: string, files: string[], extra: string[] = []) {
  const r = gov({ ...w, home }, ['audit', 'verify', ...files.flatMap((f) => ['--checkpoint', f]), ...extra, '--json']);
  return { code: r.code, out: jsonOut(r) as unknown as { checkpoints: { matches: boolean; log_entries: number | null }[]; failures: { code: string; exit: number }[] }, r };
}

/** The seq of the (first) log entry of a type. */
function seqOf(home: string, type: string): number {
  const db = new Database(join(home, 'governed.db'), { readonly: true });
  try {
    return db.prepare('SELECT seq FROM log WHERE type = ? ORDER BY seq LIMIT 1').pluck().get(type) as number;
  } finally {
    db.close();
  }
}

/** An independent copy of the state directory (cp -a keeps modes). */
function cloneState(home: string): string {
  const dir = tempDir('governed-checkpoint-clone-');
  const copy = join(dir, 'state');
  mkdirSync(copy, { mode: 0o700 });
  mkdirSync(join(copy, 'bundles'), { mode: 0o700 });
  for (const f of ['governed.db', 'governed.db-wal', 'governed.db-shm']) if (existsSync(join(home, f))) copyFileSync(join(home, f), join(copy, f));
  return copy;
}

beforeAll(() => {
  ({ w, attestorsDir } = world());
  setupUnit(w);
}, 60_000);
afterAll(cleanupDirs);

describe('governed audit checkpoint', () => {
  it('signs the log head through the pinned log attestor; the store is not written', () => {
    const before = storeDigest(w);
    const out = join(tempDir('governed-checkpoint-out-'), 'cp.json');
    const r = checkpoint(out);
    expect(r.code, r.stderr).toBe(0);
    const j = jsonOut(r) as { log_entries: number; log_head: string };
    expect(j.log_entries).toBeGreaterThanOrEqual(3);
    const env = JSON.parse(readFileSync(out, 'utf8')) as { payload: string; signatures: { keyid: string }[] };
    expect(env.signatures.map((s) => s.keyid)).toEqual([w.keys.log.keyId]);
    const st = JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8')) as { predicateType: string; predicate: { log_head: string; attestor_sha256: string } };
    expect(st.predicateType).toBe(CHECKPOINT_PREDICATE_TYPE);
    expect(st.predicate.log_head).toBe(j.log_head);
    expect(st.predicate.attestor_sha256).toBe(sha(readFileSync(join(REPO_ROOT, 'attestors', 'ed25519-file.mjs'))));
    expect(storeDigest(w)).toBe(before);
    // The same store, verified against it: the log extends it.
    const a = auditWith(w.home, [out]);
    expect(a.code).toBe(0);
    expect(a.out.checkpoints).toEqual([{ file: out, log_entries: j.log_entries, matches: true }]);
  });

  it('later appends still extend an earlier checkpoint', () => {
    const x = world();
    setupUnit(x.w);
    const out = join(tempDir('governed-checkpoint-out-'), 'cp.json');
    expect(checkpoint(out, x).code).toBe(0);
    govOk(x.w, ['unit', 'create', '--contract', x.w.contractFile, '--baseline', x.w.baseline]);
    const r = gov(x.w, ['audit', 'verify', '--checkpoint', out, '--json']);
    expect(r.code).toBe(0);
  });

  it('a consistent rewrite of a covered entry passes the plain audit but not the checkpoint (audit_checkpoint_mismatch, 4)', () => {
    const out = join(tempDir('governed-checkpoint-out-'), 'cp.json');
    expect(checkpoint(out).code).toBe(0);
    const home = cloneState(w.home);
    rewriteLog(home, seqOf(home, 'writer_register'), (p) => {
      p.pid = (p.pid as number) + 1; // "another process was the writer": chain recomputed, tables rebuilt
    });
    const plain = auditWith(home, []);
    expect(plain.code).toBe(0); // chain, replay and (no) receipts: nothing to see without the checkpoint
    const a = auditWith(home, [out]);
    expect(a.code).toBe(4);
    expect(a.out.failures.map((f) => f.code)).toEqual(['audit_checkpoint_mismatch']);
    expect(a.out.checkpoints[0]?.matches).toBe(false);
    expect(a.r.stdout).toMatch(/NOT extended|audit_checkpoint_mismatch/);
  });

  it('a history truncated before the checkpoint position is caught (4)', () => {
    const out = join(tempDir('governed-checkpoint-out-'), 'cp.json');
    expect(checkpoint(out).code).toBe(0);
    const home = cloneState(w.home);
    truncateLog(home, 2);
    const a = auditWith(home, [out]);
    expect(a.code).toBe(4);
    expect(a.out.failures.map((f) => f.code)).toEqual(['audit_checkpoint_mismatch']);
  });

  it('a tampered checkpoint file does not verify (4); a trust root without the log key makes it untrusted (6)', () => {
    const dir = tempDir('governed-checkpoint-out-');
    const out = join(dir, 'cp.json');
    expect(checkpoint(out).code).toBe(0);
    const env = JSON.parse(readFileSync(out, 'utf8')) as { payload: string };
    const bytes = Buffer.from(env.payload, 'base64');
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 3) ^ 1, bytes.length - 3);
    const tampered = join(dir, 'tampered.json');
    writeFileSync(tampered, JSON.stringify({ ...env, payload: bytes.toString('base64') }));
    const a = auditWith(w.home, [tampered]);
    expect(a.code).toBe(4);
    const other = makeKey(dir, 'log');
    const trust = writeJson(join(dir, 'trust.json'), trustRootDoc([{ key: other, roles: ['log'] }]));
    const b = auditWith(w.home, [out], ['--trust', trust]);
    expect(b.code).toBe(6);
    expect(b.out.failures.map((f) => f.exit)).toContain(6);
  });

  it('never overwrites its output (audit_checkpoint_output_exists, 2)', () => {
    const out = join(tempDir('governed-checkpoint-out-'), 'cp.json');
    writeFileSync(out, 'existing');
    const before = storeDigest(w);
    const r = checkpoint(out);
    expect(r.code).toBe(2);
    expect(errorOf(r).code).toBe('audit_checkpoint_output_exists');
    expect(readFileSync(out, 'utf8')).toBe('existing');
    expect(storeDigest(w)).toBe(before);
  });

  it('an attestor config the policy does not pin is never run (6); nothing is written', () => {
    const x = world({ pinConfig: false });
    setupUnit(x.w);
    const before = storeDigest(x.w);
    const out = join(tempDir('governed-checkpoint-out-'), 'cp.json');
    const r = checkpoint(out, x);
    expect(r.code).toBe(6);
    expect(errorOf(r).code).toBe('attestor_not_allowlisted');
    expect(existsSync(out)).toBe(false);
    expect(storeDigest(x.w)).toBe(before);
  });
});
