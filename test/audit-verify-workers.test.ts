// `audit verify --jobs N` (docs/audit.md "Cost and memory"): the receipt checks on N worker threads
// give exactly the report of the checks in the audit's own thread (--jobs 0) — on a sound store and
// on copies attacked three ways (a receipt re-signed by keys the trust root does not hold, an
// issue entry rewritten under a recomputed chain, a challenge answered twice), with the pinned
// trust roots and with the auditor's own. Only `receipts.workers` differs, and says the workers ran.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { jsonOut } from './helpers/cli.js';
import { makeKey, signEnvelope, tempDir } from './helpers/receipts.js';
import { cloneHome, eligibleStory, type Story } from './gate-world.js';
import { errorOf, gov } from './state-helpers.js';
import { rewriteLog } from './audit-helpers.js';

let story: Story;
let attacked: string;

type Report = { exit: number; receipts: { checked: number; failed: number; workers?: number }; failures: { code: string }[] } & Record<string, unknown>;

function audit(home: string, extra: string[]): Report {
  const r = gov({ ...story.w, home }, ['audit', 'verify', ...extra, '--json']);
  const o = jsonOut(r) as Report;
  expect(r.code).toBe(o.exit);
  return o;
}

function receiptSeqs(home: string): number[] {
  const db = new Database(join(home, 'governed.db'), { readonly: true });
  try {
    return db.prepare("SELECT seq FROM log WHERE type = 'run_receipt' ORDER BY seq").pluck().all() as number[];
  } finally {
    db.close();
  }
}

beforeAll(() => {
  story = eligibleStory();
  attacked = cloneHome(story);
  const seqs = receiptSeqs(attacked);
  expect(seqs.length).toBeGreaterThanOrEqual(4);
  const dir = tempDir('governed-audit-workers-');
  const forgers = [makeKey(dir, 'reviewer'), makeKey(dir, 'runner')];
  rewriteLog(attacked, seqs[1] as number, (p) => {
    const env = JSON.parse(Buffer.from(p.envelope_b64 as string, 'base64').toString('utf8')) as { payload: string };
    p.envelope_b64 = Buffer.from(signEnvelope(Buffer.from(env.payload, 'base64'), forgers), 'utf8').toString('base64');
  });
  // The last receipt entry made to claim the first one's challenge (a second answer).
  const db = new Database(join(attacked, 'governed.db'), { readonly: true });
  const challenge = (JSON.parse((db.prepare('SELECT payload FROM log WHERE seq = ?').pluck().get(seqs[0]) as Buffer).toString('utf8')) as { challenge: string }).challenge;
  db.close();
  try {
    rewriteLog(attacked, seqs.at(-1) as number, (p) => {
      p.challenge = challenge;
    });
  } catch {
    // The table rebuild refuses an entry that does not apply: the chain is recomputed all the same.
  }
}, 300_000);

const withoutWorkers = (r: Report): Report => ({ ...r, receipts: { checked: r.receipts.checked, failed: r.receipts.failed } });

describe('audit verify --jobs: worker threads give the same report', () => {
  it('a sound store: the same report with 0, 1 and 2 workers; workers ran when asked', () => {
    const inThread = audit(story.w.home, ['--jobs', '0']);
    expect(inThread.exit).toBe(0);
    expect(inThread.receipts.workers).toBe(0);
    expect(inThread.receipts.checked).toBeGreaterThanOrEqual(4);
    for (const jobs of ['1', '2']) {
      const w = audit(story.w.home, ['--jobs', jobs]);
      expect(w.receipts.workers).toBe(Number(jobs));
      expect(withoutWorkers(w)).toEqual(withoutWorkers(inThread));
    }
    // The default on a small log: no worker is started (start-up costs more than it saves).
    expect(audit(story.w.home, []).receipts.workers).toBe(0);
    // The auditor's own trust root crosses to the workers too.
    const given = audit(story.w.home, ['--jobs', '2', '--trust', story.w.trustFile]);
    expect(given.exit).toBe(0);
    expect(given.receipts.workers).toBe(2);
  });

  it('an attacked store: every failure the in-thread audit finds, the workers find, in the same order', () => {
    const inThread = audit(attacked, ['--jobs', '0']);
    const codes = inThread.failures.map((f) => f.code);
    // Positive control: the attacks are visible (the re-signed receipt, the reused challenge).
    expect(codes).toContain('key_unknown');
    expect(codes).toContain('audit_challenge_reused');
    expect(inThread.receipts.failed).toBeGreaterThanOrEqual(2);
    const w = audit(attacked, ['--jobs', '2']);
    expect(w.receipts.workers).toBe(2);
    expect(withoutWorkers(w)).toEqual(withoutWorkers(inThread));
    const t0 = audit(attacked, ['--jobs', '0', '--trust', story.w.trustFile]);
    const t2 = audit(attacked, ['--jobs', '2', '--trust', story.w.trustFile]);
    expect(withoutWorkers(t2)).toEqual(withoutWorkers(t0));
  });

  it('--jobs outside 0-16 is a usage error naming the option only', () => {
    for (const bad of ['17', '-1', 'two', '1.5']) {
      const r = gov(story.w, ['audit', 'verify', '--jobs', bad, '--json']);
      const e = errorOf(r);
      expect(e.code).toBe('usage_error');
      expect(e.ids).toEqual(['--jobs']);
    }
  });
});
