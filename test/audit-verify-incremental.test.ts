// `audit verify --state DIR --state-key K` (docs/audit.md#incremental-audit) through the built CLI,
// on a real store: a clean full audit saves the auditor's signed state; the next audit re-hashes
// the entries it covers against its Merkle root and replays and checks only the entries after it,
// with the same verdict as a full audit. Attacks, each with its exact code, the store and the state
// directory unchanged: a state note signed by another key or edited under its signature, a state
// from another log, a consistent rewrite of an entry the state covers (positive control: a full
// audit passes it), a truncated log, an edited carry file or replay database; and a receipt forged
// after the state and a challenge answered before the state and again after it (the resumed audit
// reports exactly what the full audit reports).
import { createHash, generateKeyPairSync } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { jsonOut } from './helpers/cli.js';
import { makeKey, signEnvelope, tempDir } from './helpers/receipts.js';
import { cloneHome, implement, newStory, rounds, storeDigestAt, type Story } from './gate-world.js';
import { gov } from './state-helpers.js';
import { edit, rewriteLog, truncateLog } from './audit-helpers.js';

interface Report {
  exit: number;
  log: { entries: number; head: string } | null;
  replay: { state_digest: string; matches: boolean } | null;
  receipts: { checked: number; failed: number };
  failures: { code: string; exit: number; ids: string[] }[];
  state?: { resumed_from: number | null; saved: number | null };
  error?: { code: string; exit: number };
}

let story: Story;
let keyFile: string;
let otherKeyFile: string;
/** The state a clean full audit saved after the first reviews (never used directly: tests copy it). */
let saved: string;
let savedAt: number;
let receiptsBefore: number;

function pem(dir: string, name: string): string {
  const { privateKey } = generateKeyPairSync('ed25519');
  const file = join(dir, name);
  writeFileSync(file, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
  return file;
}

function audit(home: string, extra: string[]): { code: number | null; out: Report; stdout: string; stderr: string } {
  const r = gov({ ...story.w, home }, ['audit', 'verify', ...extra, '--json']);
  const out = jsonOut(r) as unknown as Report;
  expect(r.code).toBe(out.exit ?? out.error?.exit);
  return { code: r.code, out, stdout: r.stdout, stderr: r.stderr };
}

const withState = (dir: string, key = keyFile): string[] => ['--state', dir, '--state-key', key];

/** A fresh copy of the saved state directory. */
function copyState(from = saved): string {
  const dir = join(tempDir('governed-audit-state-copy-'), 'state');
  cpSync(from, dir, { recursive: true });
  return dir;
}

/** sha256 of every file of a directory, by name: equal ⇔ nothing in it changed. */
function dirDigest(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir).sort()) out[f] = createHash('sha256').update(readFileSync(join(dir, f))).digest('hex');
  return out;
}

function seqsOf(home: string, type: string): number[] {
  const db = new Database(join(home, 'governed.db'), { readonly: true });
  try {
    return db.prepare('SELECT seq FROM log WHERE type = ? ORDER BY seq').pluck().all(type) as number[];
  } finally {
    db.close();
  }
}

/** Run an attack's audit and require its code, and that neither the store nor the state changed. */
function refused(home: string, state: string, extra: string[] = []): Report {
  const store = storeDigestAt(home);
  const files = dirDigest(state);
  const r = audit(home, [...withState(state), ...extra]);
  expect(storeDigestAt(home)).toBe(store);
  expect(dirDigest(state)).toEqual(files);
  expect(r.code).not.toBe(0);
  return r.out;
}

beforeAll(() => {
  const keys = tempDir('governed-audit-state-keys-');
  keyFile = pem(keys, 'auditor.pem');
  otherKeyFile = pem(keys, 'other.pem');
  story = newStory();
  rounds(story, 'planning', 2);
  receiptsBefore = story.receipts.length;
  saved = join(tempDir('governed-audit-state-'), 'state');
  const full = audit(story.w.home, withState(saved));
  expect(full.code).toBe(0);
  expect(full.out.state).toEqual({ resumed_from: null, saved: full.out.log?.entries });
  savedAt = full.out.log?.entries as number;
  expect(readdirSync(saved).sort()).toEqual(['carry.json', 'replay.db', 'state.note']);
  // Entries after the saved state: a lease, the implementation, development reviews.
  implement(story);
  rounds(story, 'development', 1);
}, 300_000);

describe('audit verify --state: resume from a signed audit state', () => {
  it('replays and checks only the entries after the state, with the verdict and state digest of a full audit; the state moves forward', () => {
    const full = audit(story.w.home, []);
    expect(full.code).toBe(0);
    expect(full.out.receipts.checked).toBe(story.receipts.length);
    const dir = copyState();
    const before = storeDigestAt(story.w.home);
    const r = audit(story.w.home, withState(dir));
    expect(storeDigestAt(story.w.home)).toBe(before);
    expect(r.code).toBe(0);
    expect(r.out.failures).toEqual([]);
    expect(r.out.state).toEqual({ resumed_from: savedAt, saved: full.out.log?.entries });
    expect(r.out.log).toEqual(full.out.log);
    expect(r.out.replay).toEqual(full.out.replay);
    expect(full.out.log?.entries).toBeGreaterThan(savedAt);
    expect(r.out.receipts.checked).toBe(story.receipts.length - receiptsBefore);
    expect(r.out.receipts.checked).toBeGreaterThan(0);
    // Nothing new: nothing replayed, the same state saved again.
    const again = audit(story.w.home, withState(dir));
    expect(again.code).toBe(0);
    expect(again.out.state).toEqual({ resumed_from: full.out.log?.entries, saved: full.out.log?.entries });
    expect(again.out.receipts.checked).toBe(0);
    expect(again.out.replay).toEqual(full.out.replay);
    const human = gov(story.w, ['audit', 'verify', ...withState(dir)]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/resumed after entry \d+; saved at entry \d+/);
  });

  it('a receipt forged after the state: the resumed audit reports exactly what the full audit reports, and does not move the state', () => {
    const home = cloneHome(story);
    const last = seqsOf(home, 'run_receipt').at(-1) as number;
    expect(last).toBeGreaterThan(savedAt);
    const dir = tempDir('governed-audit-state-forgers-');
    const forgers = [makeKey(dir, 'reviewer'), makeKey(dir, 'runner')];
    rewriteLog(home, last, (p) => {
      const env = JSON.parse(Buffer.from(p.envelope_b64 as string, 'base64').toString('utf8')) as { payload: string };
      p.envelope_b64 = Buffer.from(signEnvelope(Buffer.from(env.payload, 'base64'), forgers), 'utf8').toString('base64');
    });
    const full = audit(home, []);
    expect(full.code).toBe(6);
    const state = copyState();
    const r = refused(home, state);
    expect(r.exit).toBe(full.out.exit);
    expect(r.failures).toEqual(full.out.failures);
    expect(r.receipts.failed).toBe(1);
    expect(r.state).toEqual({ resumed_from: savedAt, saved: null });
  });

  it('a challenge answered before the state and again after it: the carried ids catch it as the full audit does (audit_challenge_reused)', () => {
    const home = cloneHome(story);
    const seqs = seqsOf(home, 'run_receipt');
    const first = seqs[0] as number;
    const last = seqs.at(-1) as number;
    expect(first).toBeLessThanOrEqual(savedAt);
    expect(last).toBeGreaterThan(savedAt);
    const db = new Database(join(home, 'governed.db'), { readonly: true });
    const challenge = (JSON.parse((db.prepare('SELECT payload FROM log WHERE seq = ?').pluck().get(first) as Buffer).toString('utf8')) as { challenge: string }).challenge;
    db.close();
    try {
      rewriteLog(home, last, (p) => {
        p.challenge = challenge;
      });
    } catch {
      // The table rebuild refuses an entry that does not apply: the chain is recomputed all the same.
    }
    const full = audit(home, []);
    expect(full.out.failures.map((f) => f.code)).toContain('audit_challenge_reused');
    const r = refused(home, copyState());
    expect(r.exit).toBe(full.out.exit);
    expect(r.failures).toEqual(full.out.failures);
  });

  it('a state note signed by another key, or edited under its signature: audit_state_untrusted (6)', () => {
    const state = copyState();
    const other = refused(story.w.home, state, ['--state-key', otherKeyFile]);
    expect(other.error?.code).toBe('audit_state_untrusted');
    expect(other.error?.exit).toBe(6);
    // "Resume from entry 1": the size line changed, the signature kept.
    const note = readFileSync(join(state, 'state.note'), 'utf8');
    writeFileSync(join(state, 'state.note'), note.replace(/^size \d+$/m, 'size 1'));
    const edited = refused(story.w.home, state);
    expect(edited.error?.code).toBe('audit_state_untrusted');
    // Positive control: the untouched note with the right key resumes.
    expect(audit(story.w.home, withState(copyState())).code).toBe(0);
  });

  it('a state saved from another log: tlog_origin_mismatch (4)', () => {
    const second = newStory();
    const dir = join(tempDir('governed-audit-state-other-'), 'state');
    expect(audit(second.w.home, withState(dir)).code).toBe(0);
    const r = refused(story.w.home, dir);
    expect(r.failures.map((f) => f.code)).toEqual(['tlog_origin_mismatch']);
    expect(r.exit).toBe(4);
    expect(r.log).toBeNull();
  });

  it('an entry the state covers, rewritten consistently (chain, tree and tables recomputed): a full audit passes it, the resumed one does not (tlog_root_mismatch, 4)', () => {
    const home = cloneHome(story);
    const seq = seqsOf(home, 'writer_register')[0] as number;
    expect(seq).toBeLessThanOrEqual(savedAt);
    rewriteLog(home, seq, (p) => {
      p.pid = (p.pid as number) + 1;
    });
    expect(audit(home, []).code).toBe(0); // positive control: nothing to see without the state
    const r = refused(home, copyState());
    expect(r.failures.map((f) => f.code)).toEqual(['tlog_root_mismatch']);
    expect(r.failures[0]?.ids).toEqual(['state.note', `size:${savedAt}`]);
  });

  it('a log truncated below the state: tlog_log_truncated (4)', () => {
    const home = cloneHome(story);
    truncateLog(home, savedAt - 1);
    const r = refused(home, copyState());
    expect(r.failures.map((f) => f.code)).toEqual(['tlog_log_truncated']);
  });

  it('an edited carry file or replay database: audit_state_invalid (4)', () => {
    const carry = copyState();
    const c = JSON.parse(readFileSync(join(carry, 'carry.json'), 'utf8')) as { answered: string[] };
    c.answered = c.answered.slice(1); // "that challenge was never answered": a second answer would pass
    writeFileSync(join(carry, 'carry.json'), JSON.stringify(c));
    const r1 = refused(story.w.home, carry);
    expect(r1.error?.code).toBe('audit_state_invalid');
    expect(r1.error?.exit).toBe(4);
    const db = copyState();
    const d = new Database(join(db, 'replay.db'));
    d.exec("UPDATE receipts SET content_digest = 'sha256:' || substr(content_digest, 8, 63) || '0' WHERE id = (SELECT id FROM receipts LIMIT 1)");
    d.close();
    const r2 = refused(story.w.home, db);
    expect(r2.failures.map((f) => f.code)).toEqual(['audit_state_invalid']);
  });

  it('a full audit that is not clean saves nothing; usage errors name the option only', () => {
    const home = cloneHome(story);
    edit(home, (db) => db.prepare("UPDATE receipts SET verdict = 'CLEAN' WHERE id = (SELECT id FROM receipts LIMIT 1)").run());
    edit(home, (db) => db.prepare("UPDATE receipts SET content_digest = 'sha256:' || substr(content_digest, 8, 63) || '0' WHERE id = (SELECT id FROM receipts LIMIT 1)").run());
    const dir = join(tempDir('governed-audit-state-unclean-'), 'state');
    const r = audit(home, withState(dir));
    expect(r.code).toBe(4);
    expect(r.out.state).toEqual({ resumed_from: null, saved: null });
    expect(existsSync(dir)).toBe(false);
    const noKey = audit(story.w.home, ['--state', dir]);
    expect(noKey.out.error).toMatchObject({ code: 'usage_error', exit: 2 });
    const unit = audit(story.w.home, [...withState(dir), '--unit', story.unit]);
    expect(unit.out.error).toMatchObject({ code: 'usage_error', exit: 2 });
    expect(existsSync(dir)).toBe(false);
  });
});
