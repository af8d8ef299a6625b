// bench/audit (docs/audit.md "Transparency log"): the Merkle tree's cost.
//  1. append: a log row written in its own IMMEDIATE transaction on a WAL file database, with and
//     without the tree update (src/store/tree.ts appendLeaf), interleaved; bar ≤ 1.1×. This is the
//     log INSERT + hashes only — the real append path also validates the payload and applies a
//     reducer, which the tree does not touch, so the real ratio is smaller than this one.
//  2. inclusion proof: mean time of proveInclusion over random leaves of a tree of 1,000 and of
//     BENCH_AUDIT_N (default 100,000) leaves; bar: growth ≤ 2×.
//  0. `governed audit verify` (the built CLI, a child process) on a store of
//     BENCH_AUDIT_RECEIPTS (default 100,000) real signed receipts — bench/gate's store, built once
//     through the store's own append path and cached in the temp dir (bench/tools/store-fixture.ts)
//     — in receipts/s, against the raw node:crypto verify rate of the same envelopes' two
//     signatures each (PAE + crypto.verify, nothing else) in the same run; bar ≥ 0.8. Its peak RSS
//     (VmHWM of /proc/self/status as the child exits, `timedCli`); bar ≤ 200 MB — beside the memory floor measured in the
//     same run (bench/floors/audit-rss.ts: Node, the SQLite addon, every log row read once and each
//     receipt's two signatures verified, nothing else).
// Quick mode (`npm run bench -- --quick`, bench/lib/quick.ts): small counts, bars printed, not judged.
// Env: BENCH_AUDIT_RECEIPTS, BENCH_AUDIT_N (big tree size), BENCH_AUDIT_APPENDS (appends per case
// per repetition), BENCH_REPS.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash, createPublicKey, generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { pae } from '../src/core/dsse.js';
import { CLI, fixture, quickDirs } from './tools/store-fixture.js';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { judgeBar, knob } from './lib/quick.js';
import Database from 'better-sqlite3';
import { proveInclusion, storedHashIndex, treeHash } from '../src/core/merkle.js';
import { appendLeaf, treeReader } from '../src/store/tree.js';
import { assertReplayMatches } from '../src/store/replay.js';
import { leafBytesOf } from '../src/core/tlog-leaf.js';
import { TLOG_SQL } from '../src/store/migrations/0008-tlog.js';

/** dist/bench/floors/, beside this bench's bundle. */
const FLOORS = join(dirname(fileURLToPath(import.meta.url)), 'floors');
const RECEIPTS = knob('BENCH_AUDIT_RECEIPTS', 100_000, 60);
const BIG = knob('BENCH_AUDIT_N', 100_000, 5_000);
const APPENDS = knob('BENCH_AUDIT_APPENDS', 2_000, 100);
const REPS = knob('BENCH_REPS', 5, 1);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const digest = (s: string | Buffer): string => `sha256:${createHash('sha256').update(s).digest('hex')}`;

/**
 * Run `script` (default: the built CLI) with `args` in a child Node, and its peak RSS: a preloaded
 * hook writes the child's own VmHWM (/proc/self/status) to a file as it exits — the same figure
 * GNU time's %M reports, without needing that package. The hook is a few lines of CommonJS.
 */
function timedCli(args: string[], script: string = CLI): { r: SpawnSyncReturns<string>; rssKb: number } {
  const dir = mkdtempSync(join(tmpdir(), 'governed-bench-audit-rss-'));
  try {
    const hook = join(dir, 'peak-rss.cjs');
    const out = join(dir, 'peak');
    writeFileSync(
      hook,
      `const fs = require('node:fs'); process.on('exit', () => fs.writeFileSync(${JSON.stringify(out)}, /VmHWM:\\s+(\\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]));\n`,
    );
    const r = spawnSync(process.execPath, ['-r', hook, script, ...args], { env: { PATH: '/usr/bin:/bin' }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const rssKb = existsSync(out) ? Number(readFileSync(out, 'utf8')) : 0;
    if (!(rssKb > 0)) throw new Error('peak RSS not measured');
    return { r, rssKb };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Part 0: audit verify against the raw signature rate, on one store. */
async function auditVerifyRate(): Promise<void> {
  const f = await fixture(RECEIPTS);
  // The raw floor: every receipt envelope's two Ed25519 signatures over its PAE, node:crypto only.
  const trust = JSON.parse(readFileSync(f.trustFile, 'utf8')) as { keys: { key_id: string; public_key: string }[] };
  const keys = new Map(trust.keys.map((k) => [k.key_id, createPublicKey(k.public_key)]));
  const db = new Database(join(f.home, 'governed.db'), { readonly: true });
  const rawOnce = (): { n: number; ms: number } => {
    let n = 0;
    const t0 = process.hrtime.bigint();
    for (const env of db.prepare('SELECT envelope FROM receipts').pluck().iterate() as IterableIterator<Buffer>) {
      const e = JSON.parse(env.toString('utf8')) as { payloadType: string; payload: string; signatures: { keyid: string; sig: string }[] };
      const m = pae(e.payloadType, Buffer.from(e.payload, 'base64'));
      for (const s of e.signatures) if (!verify(null, m, keys.get(s.keyid) as KeyObject, Buffer.from(s.sig, 'base64'))) throw new Error('raw verify failed');
      n++;
    }
    return { n, ms: Number(process.hrtime.bigint() - t0) / 1e6 };
  };
  const auditOnce = (jobs?: number): { ms: number; rssKb: number; receipts: number; workers: number } => {
    const t0 = process.hrtime.bigint();
    const { r, rssKb } = timedCli(['audit', 'verify', '--home', f.home, '--json', ...(jobs === undefined ? [] : ['--jobs', String(jobs)])]);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const out = JSON.parse(r.stdout) as { ok?: boolean; exit: number; receipts: { checked: number; failed: number; workers?: number }; failures: { code: string }[] };
    if (out.exit !== 0) throw new Error(`audit verify exited ${out.exit}: ${JSON.stringify(out.failures.slice(0, 3))}`);
    return { ms, rssKb, receipts: out.receipts.checked, workers: out.receipts.workers ?? 0 };
  };
  // The replay alone, in this process: the one pass of `audit verify` without the record checks —
  // every row checked and decoded, applied by the reducers to a scratch database — and the two
  // state digests (src/store/replay.ts assertReplayMatches). No signature is verified here, so this
  // is work the audit does on top of the raw floor by definition (docs/audit.md "Cost and memory").
  const replayOnce = (): number => {
    const dir = mkdtempSync(join(tmpdir(), 'governed-bench-audit-replay-'));
    try {
      const t0 = process.hrtime.bigint();
      assertReplayMatches(db, join(dir, 'replay.db'));
      return Number(process.hrtime.bigint() - t0) / 1e6;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  // The memory floor (bench/floors/audit-rss.ts), a child process like the audit: Node, the SQLite
  // addon, every log row read once and each receipt's two signatures verified, nothing else.
  const floorRss = (): number => {
    const { r, rssKb } = timedCli([f.home, f.trustFile], join(FLOORS, 'audit-rss.mjs'));
    if (r.status !== 0 || Number(r.stdout.trim()) !== f.receipts) throw new Error('audit memory floor failed');
    return rssKb;
  };
  let floorKb = 0;
  const replay: number[] = [];
  const raw: number[] = [];
  const audit: number[] = [];
  const audit0: number[] = [];
  let rss = 0;
  let rss0 = 0;
  let checked = 0;
  let workers = 0;
  const reps = Math.max(1, Math.min(REPS, 3));
  // BENCH_AUDIT_JOBS: the worker threads of the measured audit (default: the audit's own choice).
  const jobsEnv = process.env.BENCH_AUDIT_JOBS;
  const jobs = jobsEnv === undefined || jobsEnv === '' ? undefined : Number(jobsEnv);
  for (let r = 0; r < reps; r++) {
    // The audit with its receipt checks on worker threads, and in its own thread (--jobs 0, the
    // design before), interleaved in the same run.
    const a = auditOnce(jobs);
    audit.push(a.ms);
    rss = Math.max(rss, a.rssKb);
    checked = a.receipts;
    workers = a.workers;
    const a0 = auditOnce(0);
    audit0.push(a0.ms);
    rss0 = Math.max(rss0, a0.rssKb);
    floorKb = Math.max(floorKb, floorRss());
    const w = rawOnce();
    raw.push(w.ms);
    replay.push(replayOnce());
  }
  db.close();
  const rawRate = (f.receipts / median(raw)) * 1000;
  const auditRate = (checked / median(audit)) * 1000;
  const ratio = auditRate / rawRate;
  const audit0Rate = (checked / median(audit0)) * 1000;
  const ratio0 = audit0Rate / rawRate;
  console.log(`audit verify: ${checked} receipts in ${(median(audit) / 1000).toFixed(2)} s = ${auditRate.toFixed(0)} receipts/s with ${workers} receipt worker thread(s) (the whole audit: chain, replay, tree, binding, signatures); raw node:crypto verify of the same ${f.receipts} envelopes (2 signatures each, one thread) ${rawRate.toFixed(0)} receipts/s; ratio ${ratio.toFixed(3)} (bar ≥ 0.8: ${ratio >= 0.8 ? 'met' : 'NOT met'}); medians of ${reps}`);
  console.log(`audit verify --jobs 0 (every check in one thread, the design before): ${(median(audit0) / 1000).toFixed(2)} s = ${audit0Rate.toFixed(0)} receipts/s; ratio ${ratio0.toFixed(3)}; peak RSS ${(rss0 / 1024).toFixed(0)} MB; workers / one thread ${(median(audit0) / median(audit)).toFixed(2)}× faster; cores ${availableParallelism()}, load average ${loadavg()[0]?.toFixed(1)}`);
  const replayRate = (f.receipts / median(replay)) * 1000;
  console.log(
    `replay alone (chain, decode, reducers into a scratch database, state digests; no signature): ${replayRate.toFixed(0)} receipts/s = ${(replayRate / rawRate).toFixed(3)} of the raw verify rate; ` +
      `the audit's ceiling is 1 / (1 + raw/replay) = ${(1 / (1 + rawRate / replayRate)).toFixed(3)} of it`,
  );
  {
    console.log(`audit verify peak RSS: ${(rss / 1024).toFixed(0)} MB with ${workers} receipt worker thread(s), ${(rss0 / 1024).toFixed(0)} MB with --jobs 0 (bar ≤ 200 MB: ${rss / 1024 <= 200 ? 'met' : 'NOT met'}), ${checked} receipts`);
    console.log(
      `audit verify peak RSS floor (node + better-sqlite3 reading every log row once and verifying each receipt's two signatures, nothing else; bench/floors/audit-rss.ts): ${(floorKb / 1024).toFixed(0)} MB; audit / floor ${(rss / floorKb).toFixed(2)} (--jobs 0: ${(rss0 / floorKb).toFixed(2)})`,
    );
    console.log(`ratio audit verify peak RSS / floor ${(rss / floorKb).toFixed(3)}`);
  }
  console.log(`ratio audit verify / raw verify ${ratio.toFixed(3)}`);
  console.log(`ratio audit verify --jobs 0 / raw verify ${ratio0.toFixed(3)}`);
  judgeBar(ratio >= 0.8 && rss / 1024 <= 200);
  incrementalAudit(f.home, median(audit));
}

/**
 * Part 0b (docs/audit.md#incremental-audit): `audit verify --state DIR --state-key K`. A full audit
 * that saves the auditor's state, then the same audit resumed from it with no entry appended since:
 * what a re-audit costs that has nothing new to replay (the prefix re-hashed against the state's
 * Merkle root, the saved database's digest, both state digests and the stored tree re-derived).
 * Each entry appended after the state costs what it costs in a full audit. No bar: reported.
 */
function incrementalAudit(home: string, fullMs: number): void {
  const dir = mkdtempSync(join(tmpdir(), 'governed-bench-audit-state-'));
  try {
    const key = join(dir, 'auditor.pem');
    writeFileSync(key, generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
    const state = join(dir, 'state');
    const run = (): { ms: number; rssKb: number; out: { exit: number; state?: { resumed_from: number | null; saved: number | null } } } => {
      const t0 = process.hrtime.bigint();
      const { r, rssKb } = timedCli(['audit', 'verify', '--home', home, '--state', state, '--state-key', key, '--json']);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      const out = JSON.parse(r.stdout) as { exit: number; state?: { resumed_from: number | null; saved: number | null } };
      if (out.exit !== 0) throw new Error(`audit verify --state exited ${out.exit}`);
      return { ms, rssKb, out };
    };
    const saving = run();
    const resumed: number[] = [];
    let rss = 0;
    for (let i = 0; i < Math.max(1, Math.min(REPS, 3)); i++) {
      const r = run();
      if (r.out.state?.resumed_from === null || r.out.state?.saved !== r.out.state?.resumed_from) throw new Error('audit verify --state did not resume');
      resumed.push(r.ms);
      rss = Math.max(rss, r.rssKb);
    }
    const ratio = median(resumed) / fullMs;
    console.log(
      `audit verify --state: full audit that saves the state ${(saving.ms / 1000).toFixed(2)} s (peak RSS ${(saving.rssKb / 1024).toFixed(0)} MB); ` +
        `resumed with no new entry ${(median(resumed) / 1000).toFixed(2)} s (peak RSS ${(rss / 1024).toFixed(0)} MB) = ${ratio.toFixed(3)} of the full audit above; load average ${loadavg()[0]?.toFixed(1)}`,
    );
    console.log(`ratio audit verify resumed / full ${ratio.toFixed(3)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

try {
  if (process.env.BENCH_AUDIT_VERIFY !== '0') await auditVerifyRate();
} finally {
  for (const d of quickDirs) rmSync(d, { recursive: true, force: true });
}

const dir = mkdtempSync(join(tmpdir(), 'governed-bench-audit-'));
try {
  function open(name: string): Database.Database {
    const db = new Database(join(dir, name));
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE log (seq INTEGER PRIMARY KEY, time INTEGER, type TEXT, unit TEXT, payload BLOB, payload_digest TEXT, prev_hash TEXT, entry_hash TEXT UNIQUE) STRICT;');
    db.exec(TLOG_SQL);
    return db;
  }
  const withTree = open('with.db');
  const without = open('without.db');
  const heads = new Map<Database.Database, { seq: number; hash: string }>([
    [withTree, { seq: 0, hash: digest('') }],
    [without, { seq: 0, hash: digest('') }],
  ]);
  const floorDb = open('floor.db');
  heads.set(floorDb, { seq: 0, hash: digest('') });
  const DUMMY = Buffer.alloc(32, 1);
  /** tree: the real update; 'floor': only the INSERTs the rule requires (1 + trailing ones of the leaf index), no hash, no read. */
  function append(db: Database.Database, tree: boolean | 'floor', k: number): number {
    const ins = db.prepare('INSERT INTO log VALUES (@seq, @time, @type, @unit, @payload, @payload_digest, @prev_hash, @entry_hash)');
    const insHash = db.prepare('INSERT INTO tlog_hashes (idx, hash) VALUES (?, ?)');
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < k; i++) {
      const head = heads.get(db) as { seq: number; hash: string };
      const payload = Buffer.from(JSON.stringify({ unit: `UNIT-${i}`, created_at: 1_780_000_000, pad: 'x'.repeat(300) }));
      const row = { seq: head.seq + 1, time: 1_780_000_000, type: 'unit_create', unit: `UNIT-${i}`, payload, payload_digest: digest(payload), prev_hash: head.hash, entry_hash: '' };
      // As the live append does (src/store/log.ts): the RFC 8785 leaf bytes once, hashed for the
      // chain's entry_hash, and handed to the tree.
      const leaf = leafBytesOf(row);
      row.entry_hash = digest(leaf);
      db.transaction(() => {
        ins.run(row);
        if (tree === true) appendLeaf(db, row, leaf);
        else if (tree === 'floor') {
          const base = storedHashIndex(0, row.seq - 1);
          let count = 1;
          for (let n = row.seq - 1; n % 2 === 1; n = Math.floor(n / 2)) count++;
          for (let j = 0; j < count; j++) insHash.run(base + j, DUMMY);
        }
      }).immediate();
      heads.set(db, { seq: row.seq, hash: row.entry_hash });
    }
    return Number(process.hrtime.bigint() - t0) / 1e6 / k;
  }
  const a: number[] = [];
  const b: number[] = [];
  const c: number[] = [];
  for (let r = 0; r < REPS; r++) {
    // Rotated every repetition, so drift and load hit the three cases alike.
    const runs = [() => b.push(append(without, false, APPENDS)), () => a.push(append(withTree, true, APPENDS)), () => c.push(append(floorDb, 'floor', APPENDS))];
    for (let j = 0; j < 3; j++) (runs[(j + r) % 3] as () => void)();
  }
  const ratio = median(a) / median(b);
  const floor = median(c) / median(b);
  console.log(`append: with tree ${median(a).toFixed(4)} ms, without ${median(b).toFixed(4)} ms per append (medians of ${REPS}×${APPENDS}); ratio ${ratio.toFixed(3)} (bar ≤ 1.1: ${ratio <= 1.1 ? 'met' : 'NOT met'})`);
  console.log(`append floor: the log INSERT + only the tree rows the rule requires (no hash, no read) ${median(c).toFixed(4)} ms; floor ratio ${floor.toFixed(3)}; tree / floor ${(median(a) / median(c)).toFixed(3)}`);
  console.log(`ratio append with tree / without ${ratio.toFixed(3)}`);
  judgeBar(ratio <= 1.1);

  // Inclusion proofs: trees of 1,000 and BIG leaves built through appendLeaf (one transaction).
  function tree(size: number): { db: Database.Database; buildMs: number } {
    const db = new Database(':memory:');
    db.exec(TLOG_SQL);
    const t0 = process.hrtime.bigint();
    db.transaction(() => {
      for (let s = 1; s <= size; s++) appendLeaf(db, { seq: s, time: s, type: 'unit_create', unit: null, payload_digest: digest(String(s)), prev_hash: digest(String(s - 1)) });
    })();
    return { db, buildMs: Number(process.hrtime.bigint() - t0) / 1e6 };
  }
  function proofMs(db: Database.Database, size: number): number {
    const read = treeReader(db);
    const k = 2_000;
    let x = 12345;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < k; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      proveInclusion(size, x % size, read);
    }
    return Number(process.hrtime.bigint() - t0) / 1e6 / k;
  }
  const small = tree(1_000);
  const big = tree(BIG);
  treeHash(BIG, treeReader(big.db));
  const ps: number[] = [];
  const pb: number[] = [];
  for (let r = 0; r < REPS; r++) {
    ps.push(proofMs(small.db, 1_000));
    pb.push(proofMs(big.db, BIG));
  }
  const growth = median(pb) / median(ps);
  console.log(`tree build: 1,000 leaves ${small.buildMs.toFixed(0)} ms, ${BIG} leaves ${big.buildMs.toFixed(0)} ms`);
  console.log(`inclusion proof: ${median(ps).toFixed(4)} ms at 1,000, ${median(pb).toFixed(4)} ms at ${BIG}; growth ${growth.toFixed(2)}× (bar ≤ 2: ${growth <= 2 ? 'met' : 'NOT met'})`);
  console.log(`ratio proof(${BIG}) / proof(1000) ${growth.toFixed(3)}`);
  judgeBar(growth <= 2);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
