// The receipts `governed review-run` records (docs/formats.md#receipt): retrievable byte for byte with `governed
// receipt show`, verified by `governed verify` and by openssl over a PAE built by hand in this test,
// and stating exactly what the runner observed (sandbox uid, reviewer process identity read from
// outside, writers, pinned digests). Plus `governed run reap` (docs/runner.md#the-run-step-by-step step 3).
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticProfileDigest } from '../runner/sandbox/profile.js';
import { seccompDigest } from '../runner/seccomp/index.js';
import { claimRun, closeStore, openStore, readProcessIdentity } from '../src/store/index.js';
import { CLI, jsonOut } from './helpers/cli.js';
import { cleanupDirs, tempDir } from './state-helpers.js';
import { challengeStatus, errorCode, gov, issue, makeRunWorld, readDb, runReview, sha256, storeDigest, type RunWorld } from './run-helpers.js';

let w: RunWorld;
let clean: { receipt: string; run: string; challenge: string };
let dirty: { receipt: string; run: string };

beforeAll(async () => {
  w = await makeRunWorld({ modes: ['clean', 'dirty'] });
  const challenge = issue(w, 'clean');
  const a = jsonOut(runReview(w, challenge));
  clean = { receipt: a.receipt_id as string, run: a.run_id as string, challenge };
  const b = jsonOut(runReview(w, issue(w, 'dirty')));
  dirty = { receipt: b.receipt_id as string, run: b.run_id as string };
}, 120_000);
afterAll(cleanupDirs);

function storedEnvelope(receipt: string): Buffer {
  const db = readDb(w);
  try {
    return db.prepare('SELECT envelope FROM receipts WHERE id = ?').pluck().get(receipt) as Buffer;
  } finally {
    db.close();
  }
}

function show(receipt: string): string {
  const out = join(tempDir('governed-run-receipt-'), 'receipt.json');
  const r = gov(w, ['receipt', 'show', '--receipt', receipt, '--out', out, '--json']);
  expect(r.code).toBe(0);
  return out;
}

describe('receipt show', () => {
  it('prints the exact stored envelope bytes (stdout and --out) and a JSON summary', () => {
    const stored = storedEnvelope(clean.receipt);
    const raw = spawnSync(process.execPath, [CLI, 'receipt', 'show', '--receipt', clean.receipt, '--home', w.home], {
      cwd: w.repo.root,
      env: { PATH: '/usr/bin:/bin' },
    });
    expect(raw.status).toBe(0);
    expect(Buffer.compare(raw.stdout, stored)).toBe(0);
    expect(Buffer.compare(readFileSync(show(clean.receipt)), stored)).toBe(0);
    const j = jsonOut(gov(w, ['receipt', 'show', '--receipt', clean.receipt, '--json']));
    expect(j).toMatchObject({ receipt_id: clean.receipt, run_id: clean.run, verdict: 'CLEAN', stage: 'development', slot: 'clean', unit: w.unit });
    expect(Buffer.from(j.envelope_b64 as string, 'base64').equals(stored)).toBe(true);
  });

  it('unknown receipt → receipt_unknown (7); an existing --out is never overwritten → receipt_output_exists (2)', () => {
    const r = gov(w, ['receipt', 'show', '--receipt', `sha256:${'0'.repeat(64)}`, '--json']);
    expect({ code: errorCode(r).code, exit: r.code }).toEqual({ code: 'receipt_unknown', exit: 7 });
    const out = join(tempDir('governed-run-receipt-'), 'exists.json');
    writeFileSync(out, 'keep me');
    const e = gov(w, ['receipt', 'show', '--receipt', clean.receipt, '--out', out, '--json']);
    expect({ code: errorCode(e).code, exit: e.code }).toEqual({ code: 'receipt_output_exists', exit: 2 });
    expect(readFileSync(out, 'utf8')).toBe('keep me');
  });
});

describe('the receipt verifies', () => {
  it('with governed verify (the trust file, and the pinned trust root of the state directory)', () => {
    const files = [show(clean.receipt), show(dirty.receipt)];
    const a = gov(w, ['verify', ...files, '--trust', w.trustFile, '--json']);
    expect(a.code).toBe(0);
    const b = gov(w, ['verify', ...files, '--json']);
    expect(b.code).toBe(0);
    expect((jsonOut(b).receipts as { valid: boolean; receipt_id: string }[]).map((x) => [x.valid, x.receipt_id])).toEqual([
      [true, clean.receipt],
      [true, dirty.receipt],
    ]);
  });

  it('with openssl: Ed25519 over the DSSE PAE built by hand, one signature per role key (control: a flipped byte fails)', () => {
    const env = JSON.parse(readFileSync(show(clean.receipt), 'utf8')) as { payloadType: string; payload: string; signatures: { keyid: string; sig: string }[] };
    const payload = Buffer.from(env.payload, 'base64');
    expect(`sha256:${sha256(payload)}`).toBe(clean.receipt);
    const type = Buffer.from(env.payloadType, 'utf8');
    const pae = Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `), type, Buffer.from(` ${payload.length} `), payload]);
    const dir = tempDir('governed-run-openssl-');
    const paeFile = join(dir, 'pae.bin');
    writeFileSync(paeFile, pae);
    const keys = { [w.keys.reviewer.keyId]: w.keys.reviewer.publicKeyPath, [w.keys.runner.keyId]: w.keys.runner.publicKeyPath };
    expect(env.signatures.map((s) => s.keyid).sort()).toEqual(Object.keys(keys).sort());
    for (const s of env.signatures) {
      const sigFile = join(dir, `${s.keyid}.sig`);
      writeFileSync(sigFile, Buffer.from(s.sig, 'base64'));
      const ok = spawnSync('openssl', ['pkeyutl', '-verify', '-pubin', '-inkey', keys[s.keyid] as string, '-rawin', '-in', paeFile, '-sigfile', sigFile], { encoding: 'utf8' });
      expect(ok.status, ok.stderr).toBe(0);
      expect(ok.stdout).toContain('Signature Verified Successfully');
      const bad = Buffer.from(pae);
      bad.writeUInt8((bad.readUInt8(bad.length - 2) ^ 1) & 0xff, bad.length - 2);
      const badFile = join(dir, 'bad.bin');
      writeFileSync(badFile, bad);
      expect(spawnSync('openssl', ['pkeyutl', '-verify', '-pubin', '-inkey', keys[s.keyid] as string, '-rawin', '-in', badFile, '-sigfile', sigFile]).status).not.toBe(0);
    }
  });
});

describe('what the receipt states', () => {
  it('the challenge bindings, the policy reviewer, the pinned sandbox digests, the identity read from outside, the writers', () => {
    const env = JSON.parse(storedEnvelope(clean.receipt).toString('utf8')) as { payload: string };
    const st = JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8')) as { subject: unknown; predicate: Record<string, any> };
    const p = st.predicate;
    const db = readDb(w);
    const c = db.prepare('SELECT * FROM challenges WHERE id = ?').get(clean.challenge) as Record<string, unknown>;
    const run = db.prepare('SELECT * FROM runs WHERE id = ?').get(clean.run) as Record<string, unknown>;
    db.close();
    expect(p).toMatchObject({
      trust_mode: 'co-located',
      unit: w.unit,
      stage: 'development',
      slot: 'clean',
      challenge_id: clean.challenge,
      run_id: clean.run,
      execution_id: run.execution_id,
      verdict: 'CLEAN',
      findings: [],
      vetoes: [],
      coverage_matched: true,
      bundle_digest: c.bundle_digest,
      view_digest: c.view_digest,
      planning_state_digest: c.planning_state_digest,
      content_digest: c.content_digest,
      work_state_digest: c.work_state_digest,
      inputs: {
        contract_digest: c.contract_digest,
        sources_digest: c.sources_digest,
        workspace_digest: c.workspace_digest,
        baseline: { commit: c.baseline_commit, tree: c.baseline_tree },
        policy_digest: c.policy_digest,
        trust_digest: c.trust_digest,
        scope_epoch: c.scope_epoch,
        work_revision: c.work_revision,
      },
      reviewer: { name: 'clean', sha256: w.reviewerSha, interpreter: '/usr/bin/node' },
      sandbox: { profile_digest: staticProfileDigest(), seccomp_digest: seccompDigest() },
      attestors: { reviewer_sha256: w.attestorSha, runner_sha256: w.attestorSha },
    });
    expect(st.subject).toEqual([{ name: 'workspace', digest: { sha256: (c.workspace_digest as string).slice(7) } }]);
    expect(p.sandbox.bwrap_sha256).toBe(sha256(readFileSync('/usr/bin/bwrap')));
    // Running as root, the sandbox runs as the policy's dedicated uid; otherwise the receipt says so.
    const root = process.geteuid?.() === 0;
    expect(p.sandbox).toMatchObject({ uid: root ? 64500 : process.geteuid?.(), uid_separated: root });
    // Reviewer process: this boot, a pid and start time, and namespaces none of which is ours.
    expect(p.reviewer_process.boot_id).toBe(readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim());
    for (const ns of ['cgroup', 'ipc', 'mnt', 'net', 'pid', 'user', 'uts']) {
      const own = Number(/\[(\d+)\]/.exec(readlinkSync(`/proc/self/ns/${ns}`))?.[1]);
      expect(p.reviewer_process.namespaces[ns]).not.toBe(own);
    }
    // The registered writer (this test process's parent chain registered `agent-1`) with its identity.
    expect(p.writers).toHaveLength(1);
    expect(p.writers[0]).toMatchObject({ writer_session: 'agent-1' });
    expect(p.times.issued_at <= p.times.started_at && p.times.started_at <= p.times.finished_at).toBe(true);
  });

  it('the stored columns are derived from the payload', () => {
    const db = readDb(w);
    const row = db.prepare('SELECT * FROM receipts WHERE id = ?').get(dirty.receipt) as Record<string, unknown>;
    db.close();
    expect(row).toMatchObject({ run_id: dirty.run, verdict: 'DIRTY', has_veto: 1, stage: 'development', slot: 'dirty' });
  });
});

describe('governed run reap (docs/runner.md#the-run-step-by-step step 3)', () => {
  it('records ABORTED for a claim whose runner is gone, never for a live one; unknown unit → 7', () => {
    const dead = issue(w, 'clean');
    const live = issue(w, 'clean');
    const store = openStore(w.home);
    try {
      const now = Math.floor(Date.now() / 1000);
      const self = readProcessIdentity(process.pid);
      for (const [id, runner] of [
        [dead, { ...self, startTime: self.startTime + 7 }],
        [live, self],
      ] as const) {
        const c = store.db.prepare('SELECT unit, stage, slot, reviewer_name, reviewer_sha256 FROM challenges WHERE id = ?').get(id) as Record<string, string>;
        claimRun(store, now, {
          challengeId: id,
          unit: c.unit as string,
          stage: c.stage as string,
          slot: c.slot as string,
          reviewerName: c.reviewer_name as string,
          reviewerSha256: c.reviewer_sha256 as string,
          runner,
          deadline: now + 600,
        });
      }
    } finally {
      closeStore(store);
    }
    const r = gov(w, ['run', 'reap', '--unit', w.unit, '--json']);
    expect(r.code).toBe(0);
    expect((jsonOut(r).aborted as string[]).length).toBe(1);
    expect(challengeStatus(w, dead)).toBe('aborted');
    expect(challengeStatus(w, live)).toBe('claimed');
    // Nothing left to reap: the second call records nothing.
    const before = storeDigest(w);
    expect(jsonOut(gov(w, ['run', 'reap', '--unit', w.unit, '--json'])).aborted).toEqual([]);
    expect(storeDigest(w)).toBe(before);
    const u = gov(w, ['run', 'reap', '--unit', `UNIT-${'0'.repeat(32)}`, '--json']);
    expect({ code: errorCode(u).code, exit: u.code }).toEqual({ code: 'unit_unknown', exit: 7 });
  });

  it('--help explains the commands, their inputs and exit codes', () => {
    for (const cmd of [['review-run'], ['run', 'reap'], ['receipt', 'show']]) {
      const h = execFileSync(process.execPath, [CLI, ...cmd, '--help'], { encoding: 'utf8' });
      expect(h).toMatch(/Exit 0/);
      expect(h).toContain('--json');
    }
  });
});
