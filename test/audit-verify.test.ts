// `governed audit verify` (docs/commands.md#what-each-command-guarantees, docs/state.md#the-store) through the built CLI, on a real store (the gate tests'
// story: init, unit, writer, challenges, leases by the CLI; receipts committed at store level as
// the runner does) — and attacks on copies of it: a row edited behind governed, a log rewritten with
// every hash recomputed and the tables rebuilt to match (what a same-uid attacker without the keys
// can do), a receipt re-signed by keys the trust root does not hold, a challenge answered twice.
// Every attack must fail with its exact code, and the audit never writes to the state directory.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { jsonOut } from './helpers/cli.js';
import { makeKey, signEnvelope, tempDir, trustRootDoc } from './helpers/receipts.js';
import { cloneHome, eligibleStory, storeDigestAt, type Story } from './gate-world.js';
import { gov } from './state-helpers.js';
import { edit, rewriteLog } from './audit-helpers.js';
import { stateDigest } from '../src/store/state-digest.js';
import { publishedDefinition } from '../src/core/json-schemas.js';

interface AuditJson {
  ok: boolean;
  exit: number;
  log: { entries: number; head: string } | null;
  replay: { state_digest: string | null; matches: boolean } | null;
  receipts: { checked: number; failed: number };
  authority_records: { checked: number; failed: number };
  challenges: { issued: number; claimed: number; answered: number; aborted: number };
  trust_modes: string[];
  failures: { code: string; exit: number; ids: string[] }[];
  caveat?: string;
  error?: { code: string; exit: number };
}

let story: Story;

function audit(home: string, extra: string[] = []): { exit: number | null; out: AuditJson; stdout: string; stderr: string } {
  const r = gov({ ...story.w, home }, ['audit', 'verify', ...extra, '--json']);
  return { exit: r.code, out: jsonOut(r) as unknown as AuditJson, stdout: r.stdout, stderr: r.stderr };
}

function receiptSeqs(home: string): number[] {
  const db = new Database(join(home, 'governed.db'), { readonly: true });
  try {
    return db.prepare("SELECT seq FROM log WHERE type = 'run_receipt' ORDER BY seq").pluck().all() as number[];
  } finally {
    db.close();
  }
}

/** The seq of the challenge_issue entry of the challenge a receipt entry answers. */
function issueSeqOf(home: string, receiptSeq: number): number {
  const db = new Database(join(home, 'governed.db'), { readonly: true });
  try {
    const payload = (s: number): Record<string, unknown> =>
      JSON.parse((db.prepare('SELECT payload FROM log WHERE seq = ?').pluck().get(s) as Buffer).toString('utf8')) as Record<string, unknown>;
    const challenge = payload(receiptSeq).challenge;
    const seqs = db.prepare("SELECT seq FROM log WHERE type = 'challenge_issue' ORDER BY seq").pluck().all() as number[];
    return seqs.find((s) => payload(s).challenge === challenge) as number;
  } finally {
    db.close();
  }
}

beforeAll(() => {
  story = eligibleStory();
}, 240_000);

describe('governed audit verify', () => {
  it('passes on an untouched store, says what it checked, labels co-located mode, writes nothing', () => {
    const before = storeDigestAt(story.w.home);
    const r = audit(story.w.home);
    expect(r.exit).toBe(0);
    expect(r.out.ok).toBe(true);
    expect(r.out.failures).toEqual([]);
    expect(r.out.replay?.matches).toBe(true);
    expect(r.out.log?.entries).toBeGreaterThan(10);
    expect(r.out.receipts).toEqual({ checked: story.receipts.length, failed: 0, workers: 0 });
    expect(r.out.challenges.answered).toBe(story.receipts.length);
    expect(r.out.trust_modes).toEqual(['co-located']);
    expect(r.out.caveat).toMatch(/co-located/);
    expect(storeDigestAt(story.w.home)).toBe(before);
    const human = gov(story.w, ['audit', 'verify']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^AUDIT OK/);
    expect(human.stdout).toMatch(/co-located/);
  });

  it('--unit limits the record checks; an unknown unit is unit_unknown (7)', () => {
    const r = audit(story.w.home, ['--unit', story.unit]);
    expect(r.exit).toBe(0);
    expect(r.out.receipts.checked).toBe(story.receipts.length);
    const before = storeDigestAt(story.w.home);
    const unknown = audit(story.w.home, ['--unit', `UNIT-${'0'.repeat(32)}`]);
    expect(storeDigestAt(story.w.home)).toBe(before);
    expect(unknown.exit).toBe(7);
    expect(unknown.out.error?.code).toBe('unit_unknown');
  });

  it('a table row edited behind governed: the replay differs (state_replay_mismatch, 4)', () => {
    const home = cloneHome(story);
    edit(home, (db) => db.prepare("UPDATE receipts SET verdict = 'CLEAN' WHERE id = (SELECT id FROM receipts LIMIT 1)").run());
    edit(home, (db) => db.prepare("UPDATE receipts SET content_digest = 'sha256:' || substr(content_digest, 8, 63) || '0' WHERE id = (SELECT id FROM receipts LIMIT 1)").run());
    const before = storeDigestAt(home);
    const r = audit(home);
    expect(r.exit).toBe(4);
    expect(r.out.failures.map((f) => f.code)).toContain('state_replay_mismatch');
    expect(storeDigestAt(home)).toBe(before);
    // The report names the digest the log replays to — the unedited store's state, not the edited
    // one — and is a report its own published schema accepts (it once printed '' here).
    const stateOf = (h: string): string => {
      const db = new Database(join(h, 'governed.db'), { readonly: true });
      try {
        return stateDigest(db);
      } finally {
        db.close();
      }
    };
    expect(r.out.replay).toEqual({ state_digest: stateOf(story.w.home), matches: false });
    expect(stateOf(home)).not.toBe(stateOf(story.w.home));
    expect(publishedDefinition('audit-verify')?.safeParse(r.out).success).toBe(true);
  });

  it('a log entry edited without recomputing hashes: the chain breaks and the audit stops there (4)', () => {
    const home = cloneHome(story);
    const [seq] = receiptSeqs(home);
    edit(home, (db) => db.prepare("UPDATE log SET time = time + 1 WHERE seq = ?").run(seq));
    const before = storeDigestAt(home);
    const r = audit(home);
    expect(storeDigestAt(home)).toBe(before);
    expect(r.exit).toBe(4);
    expect(r.out.log).toBeNull();
    expect(r.out.replay).toBeNull();
    expect(r.out.failures).toHaveLength(1);
    expect(r.out.receipts.checked).toBe(0);
  });

  it('a log rewritten with every hash recomputed and the tables rebuilt: the signed predicate disagrees (audit_receipt_mismatch, 4)', () => {
    // The store's reducers already refuse a receipt entry whose columns differ from its envelope;
    // what they cannot see is an earlier entry rewritten to claim the review covered another bundle.
    const home = cloneHome(story);
    const seq = receiptSeqs(home).at(-1) as number;
    const issueSeq = issueSeqOf(home, seq);
    const fake = `sha256:${'ab'.repeat(32)}`;
    rewriteLog(home, issueSeq, (p) => {
      p.bundle_digest = fake;
    });
    const r = audit(home);
    expect(r.exit).toBe(4);
    expect(r.out.log).not.toBeNull(); // the attacker kept the chain…
    expect(r.out.replay?.matches).toBe(true); // …and the tables consistent…
    const f = r.out.failures.find((x) => x.code === 'audit_receipt_mismatch');
    expect(f?.ids).toContain('issue.bundle_digest'); // …but not the signed predicate
    expect(r.out.receipts.failed).toBe(1);
    expect(r.out.failures).toHaveLength(1);
    // Field names only: the forged value is never printed.
    expect(r.stdout).not.toContain('ab'.repeat(32));
    expect(r.stderr).not.toContain('ab'.repeat(32));
  });

  it('a receipt re-signed by keys the trust root does not hold is refused as untrusted (6)', () => {
    const home = cloneHome(story);
    const seq = receiptSeqs(home)[0] as number;
    const dir = tempDir('governed-audit-forger-');
    const forgers = [makeKey(dir, 'reviewer'), makeKey(dir, 'runner')];
    rewriteLog(home, seq, (p) => {
      const env = JSON.parse(Buffer.from(p.envelope_b64 as string, 'base64').toString('utf8')) as { payload: string };
      p.envelope_b64 = Buffer.from(signEnvelope(Buffer.from(env.payload, 'base64'), forgers), 'utf8').toString('base64');
    });
    const r = audit(home);
    expect(r.exit).toBe(6);
    expect(r.out.receipts.failed).toBe(1);
    expect(r.out.failures.map((f) => [f.code, f.exit])).toEqual([['key_unknown', 6]]);
  });

  it("the auditor's own trust root: a root without the receipt keys makes every receipt untrusted (6); the right one passes", () => {
    const dir = tempDir('governed-audit-trust-');
    const other = [makeKey(dir, 'reviewer'), makeKey(dir, 'runner')];
    const file = join(dir, 'trust.json');
    writeFileSync(
      file,
      JSON.stringify(
        trustRootDoc([
          { key: other[0]!, roles: ['reviewer'] },
          { key: other[1]!, roles: ['runner'] },
        ]),
      ),
    );
    const bad = audit(story.w.home, ['--trust', file]);
    expect(bad.exit).toBe(6);
    expect(bad.out.receipts.failed).toBe(story.receipts.length);
    expect(new Set(bad.out.failures.map((f) => f.code))).toEqual(new Set(['key_unknown']));
    const good = audit(story.w.home, ['--trust', story.w.trustFile]);
    expect(good.exit).toBe(0);
  });

  it('a challenge answered twice in a consistent log: audit_challenge_reused (5) beside the replay failure (4)', () => {
    const home = cloneHome(story);
    const seqs = receiptSeqs(home);
    const first = seqs[0] as number;
    const last = seqs.at(-1) as number;
    // Point the last receipt entry at the first one's challenge, hashes recomputed.
    const db = new Database(join(home, 'governed.db'), { readonly: true });
    const challenge = (JSON.parse((db.prepare('SELECT payload FROM log WHERE seq = ?').pluck().get(first) as Buffer).toString('utf8')) as { challenge: string }).challenge;
    db.close();
    try {
      rewriteLog(home, last, (p) => {
        p.challenge = challenge;
      });
    } catch {
      // The rebuild refuses an entry that does not apply (the store's own constraints): rechain only.
    }
    const r = audit(home);
    expect(r.exit).toBe(4);
    const codes = r.out.failures.map((f) => f.code);
    expect(codes).toContain('audit_challenge_reused');
  });

  it('no state directory: store_missing, nothing created', () => {
    const dir = tempDir('governed-audit-none-');
    const home = join(dir, 'state');
    const r = gov({ ...story.w, home }, ['audit', 'verify', '--json']);
    expect(r.code).toBe(2);
    expect((jsonOut(r) as unknown as AuditJson).error?.code).toBe('store_missing');
    expect(() => execFileSync('/usr/bin/test', ['-e', home])).toThrow();
  });
});
