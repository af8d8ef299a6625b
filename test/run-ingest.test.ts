// `governed review-run` (docs/runner.md#the-run-step-by-step) against real bwrap, the real attestor and the built CLI: the honest
// runs, then the ingestion attacks of docs/runner.md#the-run-step-by-step, each with its code. After each attack the store holds
// exactly the claim and its ABORTED entry (refused after the claim), or nothing at all (refused
// before the claim), and no secret reaches stdout or stderr.
import { accessSync, constants, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireLease, claimRun, closeStore, openStore, readProcessIdentity, releaseLease } from '../src/store/index.js';
import { jsonOut } from './helpers/cli.js';
import { cleanupDirs } from './state-helpers.js';
import {
  challengeStatus,
  countRows,
  currentPolicy,
  errorCode,
  existsBundle,
  expectAborted,
  expectLogSound,
  expectNoSecrets,
  expectRefusedBeforeClaim,
  headSeq,
  issue,
  logSince,
  makeRunWorld,
  rawDb,
  runReview,
  storeDigest,
  updatePin,
  type Mode,
  type RunWorld,
} from './run-helpers.js';

let w: RunWorld;

beforeAll(async () => {
  accessSync('/usr/bin/bwrap', constants.X_OK); // a missing bwrap fails the suite, never skips it
  w = await makeRunWorld();
}, 120_000);
afterAll(cleanupDirs);

/** A mutation lease on the world's unit for agent-1, taken now through the store API. */
function takeLease(ttlSeconds: number): { leaseId: string; expiresAt: number } {
  const store = openStore(w.home);
  try {
    return acquireLease(store, { unit: w.unit, writerSession: 'agent-1', ttlSeconds, now: Math.floor(Date.now() / 1000) });
  } finally {
    closeStore(store);
  }
}

describe('honest runs', () => {
  it('CLEAN: exit 0, prints only {verdict, run_id, receipt_id}; claim + receipt logged; bundle deleted', () => {
    const id = issue(w, 'clean');
    const before = headSeq(w);
    const r = runReview(w, id);
    expect(r.code).toBe(0);
    const out = jsonOut(r);
    expect(Object.keys(out).sort()).toEqual(['exit', 'ok', 'receipt_id', 'run_id', 'schema_version', 'verdict']);
    expect(out.verdict).toBe('CLEAN');
    expect(out.run_id).toMatch(/^RUN-[0-9a-f]{32}$/);
    expect(out.receipt_id).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(logSince(w, before).map((e) => e.type)).toEqual(['run_claim', 'run_receipt']);
    expect(challengeStatus(w, id)).toBe('consumed');
    expect(existsBundle(w, id)).toBe(false);
    expectLogSound(w);
  });

  it('DIRTY (with a veto): exit 9 and a DIRTY receipt; the human output names the same three facts', () => {
    const id = issue(w, 'dirty');
    const r = runReview(w, id);
    expect(r.code).toBe(9);
    expect(jsonOut(r).verdict).toBe('DIRTY');
    const db = rawDb(w);
    try {
      const row = db.prepare('SELECT verdict, has_veto FROM receipts WHERE id = ?').get(jsonOut(r).receipt_id) as { verdict: string; has_veto: number };
      expect(row).toEqual({ verdict: 'DIRTY', has_veto: 1 });
    } finally {
      db.close();
    }
  });

  it('reviewer stderr (carrying the source text) is never echoed; the run still counts', () => {
    const r = runReview(w, issue(w, 'stderr'));
    expect(r.code).toBe(0);
    expectNoSecrets(r);
  });

  it('human output: verdict, run id and receipt id only', async () => {
    const { gov } = await import('./run-helpers.js');
    const id = issue(w, 'clean');
    const r = gov(w, ['review-run', '--challenge', id, '--reviewers-dir', w.reviewersDir, '--attestors', w.attestorsDir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^verdict CLEAN\nrun_id RUN-[0-9a-f]{32}\nreceipt_id sha256:[0-9a-f]{64}\n$/);
  });
});

describe('refused before the claim: nothing recorded', () => {
  it('replay of a consumed challenge → challenge_consumed (5)', () => {
    const id = issue(w, 'clean');
    expect(runReview(w, id).code).toBe(0);
    expectRefusedBeforeClaim(w, id, 'challenge_consumed', 5);
    // …and of an ABORTED one.
    const bad = issue(w, 'noncanon');
    expect(runReview(w, bad).code).toBe(9);
    expectRefusedBeforeClaim(w, bad, 'challenge_consumed', 5);
  });

  it('unknown or malformed challenge id → challenge_unknown (5), the malformed value never echoed', () => {
    expectRefusedBeforeClaim(w, `CHL-${'0'.repeat(32)}`, 'challenge_unknown', 5);
    const r = expectRefusedBeforeClaim(w, 'CHL-CANARY-SOURCE-5f1e0c', 'challenge_unknown', 5);
    expect(r.stdout + r.stderr).not.toContain('CANARY');
  });

  it('expired → challenge_expired (5)', async () => {
    // A real challenge issued through the CLI under a policy with a 1-second TTL, then left to expire
    // on the real clock (log time never goes backwards, so it is not back-dated: store_clock_regressed).
    const short = await makeRunWorld({ modes: ['clean'], challengeTtl: '1s' });
    const id = issue(short, 'clean');
    const expiry = Math.floor(Date.now() / 1000) + 2;
    while (Math.floor(Date.now() / 1000) < expiry) await new Promise((r) => setTimeout(r, 50));
    expectRefusedBeforeClaim(short, id, 'challenge_expired', 5);
  }, 60_000);

  it('claimed by a live run → challenge_claimed (5); a live claim is never reaped', () => {
    const id = issue(w, 'clean');
    const store = openStore(w.home);
    try {
      const now = Math.floor(Date.now() / 1000);
      // This test process is the live runner of the claim.
      const c = store.db.prepare('SELECT unit, stage, slot, reviewer_name, reviewer_sha256 FROM challenges WHERE id = ?').get(id) as Record<string, string>;
      claimRun(store, now, {
        challengeId: id,
        unit: c.unit as string,
        stage: c.stage as string,
        slot: c.slot as string,
        reviewerName: c.reviewer_name as string,
        reviewerSha256: c.reviewer_sha256 as string,
        runner: readProcessIdentity(process.pid),
        deadline: now + 600,
      });
    } finally {
      closeStore(store);
    }
    expectRefusedBeforeClaim(w, id, 'challenge_claimed', 5);
    expect(challengeStatus(w, id)).toBe('claimed');
  });

  it('a claim whose runner is gone is reaped as ABORTED (runner_gone) by the next run; the challenge is then consumed', () => {
    const id = issue(w, 'clean');
    const store = openStore(w.home);
    try {
      const now = Math.floor(Date.now() / 1000);
      const self = readProcessIdentity(process.pid);
      const c = store.db.prepare('SELECT unit, stage, slot, reviewer_name, reviewer_sha256 FROM challenges WHERE id = ?').get(id) as Record<string, string>;
      claimRun(store, now, {
        challengeId: id,
        unit: c.unit as string,
        stage: c.stage as string,
        slot: c.slot as string,
        reviewerName: c.reviewer_name as string,
        reviewerSha256: c.reviewer_sha256 as string,
        // A process that no longer exists: same boot, start time that no live pid has.
        runner: { bootId: self.bootId, pid: self.pid, startTime: self.startTime + 1 },
        deadline: now + 600,
      });
    } finally {
      closeStore(store);
    }
    const before = headSeq(w);
    const r = runReview(w, id);
    expect(errorCode(r).code).toBe('challenge_consumed');
    expect(r.code).toBe(5);
    const entries = logSince(w, before);
    expect(entries.map((e) => [e.type, e.payload.code])).toEqual([['run_abort', 'runner_gone']]);
    expect(challengeStatus(w, id)).toBe('aborted');
    expect(existsBundle(w, id)).toBe(false);
  });

  it('challenge row edited in the database (a later expiry, another bundle digest, another reviewer) → challenge_tampered (4)', async () => {
    // Its own world: an edited row also skews later legitimate entries (e.g. run-budget ordinals),
    // which the shared world's replay checks would (rightly) refuse.
    const w = await makeRunWorld({ modes: ['clean'] });
    const edits = [
      'UPDATE challenges SET expires_at = expires_at + 86400 WHERE id = ?',
      `UPDATE challenges SET bundle_digest = 'sha256:${'e'.repeat(64)}' WHERE id = ?`,
      `UPDATE challenges SET reviewer_name = 'dirty' WHERE id = ?`,
      'UPDATE challenges SET ordinal = ordinal + 500 WHERE id = ?',
      `UPDATE challenges SET content_digest = 'sha256:${'f'.repeat(64)}' WHERE id = ?`,
    ];
    for (const sql of edits) {
      const id = issue(w, 'clean');
      const db = rawDb(w);
      expect(db.prepare(sql).run(id).changes).toBe(1);
      db.close();
      expectRefusedBeforeClaim(w, id, 'challenge_tampered', 4);
    }
    // A consumed challenge set back to open, its bundle file restored from a copy (a replay by hand).
    const used = issue(w, 'clean');
    const file = join(w.home, 'bundles', `${used}.json`);
    const copy = readFileSync(file);
    expect(runReview(w, used).code).toBe(0);
    writeFileSync(file, copy, { mode: 0o600 });
    const db = rawDb(w);
    db.prepare("UPDATE challenges SET status = 'open', ended_at = NULL WHERE id = ?").run(used);
    db.close();
    expectRefusedBeforeClaim(w, used, 'challenge_tampered', 4);
    // Control: an untouched challenge of the same slot runs.
    expect(runReview(w, issue(w, 'clean')).code).toBe(0);
  }, 60_000);

  it('challenge_issue log entry edited together with the row → challenge_tampered (the entry no longer hashes)', async () => {
    // Its own world: the edited log would (rightly) fail every later chain check of the shared one.
    const t = await makeRunWorld({ modes: ['clean'] });
    const id = issue(t, 'clean');
    const db = rawDb(t);
    try {
      db.exec('DROP TRIGGER log_no_update');
      const row = db.prepare("SELECT seq, payload FROM log WHERE type = 'challenge_issue' AND instr(payload, ?) > 0").get(Buffer.from(id)) as { seq: number; payload: Buffer };
      const payload = JSON.parse(row.payload.toString('utf8')) as { expires_at: number };
      const edited = Buffer.from(row.payload.toString('utf8').replace(`"expires_at":${payload.expires_at}`, `"expires_at":${payload.expires_at + 86400}`));
      db.prepare('UPDATE log SET payload = ? WHERE seq = ?').run(edited, row.seq);
      db.prepare('UPDATE challenges SET expires_at = expires_at + 86400 WHERE id = ?').run(id);
    } finally {
      db.close();
    }
    expectRefusedBeforeClaim(t, id, 'challenge_tampered', 4);
  }, 60_000);

  it('bundle file replaced, edited, grown or deleted → challenge_bundle_mismatch / challenge_bundle_missing (4)', () => {
    const file = (id: string): string => join(w.home, 'bundles', `${id}.json`);
    const replaced = issue(w, 'clean');
    const other = issue(w, 'clean');
    writeFileSync(file(replaced), readFileSync(file(other)));
    expectRefusedBeforeClaim(w, replaced, 'challenge_bundle_mismatch', 4);

    const edited = issue(w, 'clean');
    const bytes = readFileSync(file(edited));
    bytes[bytes.length - 3] = bytes[bytes.length - 3] === 0x31 ? 0x32 : 0x31;
    writeFileSync(file(edited), bytes);
    expectRefusedBeforeClaim(w, edited, 'challenge_bundle_mismatch', 4);

    const grown = issue(w, 'clean');
    writeFileSync(file(grown), Buffer.concat([readFileSync(file(grown)), Buffer.from(' ')]));
    expectRefusedBeforeClaim(w, grown, 'challenge_bundle_mismatch', 4);

    const deleted = issue(w, 'clean');
    unlinkSync(file(deleted));
    expectRefusedBeforeClaim(w, deleted, 'challenge_bundle_missing', 4);
  });

  it('a mutation lease is active → run_lease_active (8); nothing claimed', () => {
    const id = issue(w, 'clean');
    const lease = takeLease(600).leaseId;
    expectRefusedBeforeClaim(w, id, 'run_lease_active', 8);
    const s2 = openStore(w.home);
    try {
      releaseLease(s2, { leaseId: lease, writerSession: 'agent-1', now: Math.floor(Date.now() / 1000) });
    } finally {
      closeStore(s2);
    }
  });
});

describe('a lease that lapsed unswept', () => {
  it('is swept (logged) and the challenge issued before it is stale → challenge_stale (5); nothing claimed', async () => {
    const id = issue(w, 'clean');
    const { expiresAt } = takeLease(1);
    // Let the lease lapse on the real clock; nobody sweeps it (the gate would still say lease_active).
    while (Math.floor(Date.now() / 1000) < expiresAt) await new Promise((r) => setTimeout(r, 50));
    const before = headSeq(w);
    const r = runReview(w, id);
    expect({ code: errorCode(r).code, exit: r.code }).toEqual({ code: 'challenge_stale', exit: 5 });
    expectNoSecrets(r);
    // Exactly the sweep was recorded: no claim, no run.
    expect(logSince(w, before).map((e) => e.type)).toEqual(['lease_sweep']);
    expect(challengeStatus(w, id)).toBe('open');
    expectLogSound(w);
  });
});

describe('refused after the claim: exactly the claim and its ABORTED entry', () => {
  const cases: [Mode, string][] = [
    ['noncanon', 'review_output_not_canonical'],
    ['free-text', 'review_output_not_canonical'],
    ['two-objects', 'review_output_not_canonical'],
    ['extra-key', 'review_output_schema_invalid'],
    ['finding-text', 'review_output_schema_invalid'],
    ['path', 'review_output_ref_invalid'],
    ['digest', 'review_output_ref_invalid'],
    ['unknown-id', 'review_output_ref_unknown'],
    ['unsorted', 'review_output_unsorted'],
    ['duplicate', 'review_output_unsorted'],
    ['unsorted-findings', 'review_output_unsorted'],
    ['missing-coverage', 'review_output_coverage_mismatch'],
    ['extra-coverage', 'review_output_coverage_mismatch'],
    ['too-many', 'review_output_too_many_findings'],
    ['clean-with-findings', 'review_output_verdict_inconsistent'],
    ['dirty-without', 'review_output_verdict_inconsistent'],
    ['bad-enum', 'review_output_enum_invalid'],
    ['oversized', 'review_output_too_large'],
    ['exit-nonzero', 'reviewer_exit_nonzero'],
  ];
  for (const [mode, code] of cases) {
    it(`${mode} → ${code} (9), ABORTED`, () => {
      const id = issue(w, mode);
      const before = headSeq(w);
      const receipts = countRows(w, 'receipts');
      const r = runReview(w, id);
      expectNoSecrets(r);
      expectAborted(w, before, r, code, 9);
      expect(countRows(w, 'receipts')).toBe(receipts);
    });
  }
});

describe('timeout', () => {
  it('a reviewer that never ends is killed at the policy timeout → reviewer_timeout (9), ABORTED', async () => {
    const t = await makeRunWorld({ modes: ['timeout'], timeout: '2s' });
    const id = issue(t, 'timeout');
    const before = headSeq(t);
    const t0 = Date.now();
    const r = runReview(t, id);
    expect(Date.now() - t0).toBeLessThan(20_000);
    expectAborted(t, before, r, 'reviewer_timeout', 9);
  }, 60_000);
});

describe('stale challenge', () => {
  it('the pinned policy was replaced after issuance → challenge_stale (5), nothing claimed', async () => {
    const s = await makeRunWorld({ modes: ['clean'] });
    const id = issue(s, 'clean');
    updatePin(s, 'policy', { ...currentPolicy(s), challenge_ttl: '11m' });
    const before = storeDigest(s);
    const r = runReview(s, id);
    expect({ code: errorCode(r).code, exit: r.code }).toEqual({ code: 'challenge_stale', exit: 5 });
    expect(storeDigest(s)).toBe(before);
  }, 60_000);
});
