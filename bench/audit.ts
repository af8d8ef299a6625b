// bench/audit (docs/audit.md "Transparency log"): the Merkle tree's cost.
//  1. append: a log row written in its own IMMEDIATE transaction on a WAL file database, with and
//     without the tree update (src/store/tree.ts appendLeaf), interleaved; bar ≤ 1.1×. This is the
//     log INSERT + hashes only — the real append path also validates the payload and applies a
//     reducer, which the tree does not touch, so the real ratio is smaller than this one.
//  2. inclusion proof: mean time of proveInclusion over random leaves of a tree of 1,000 and of
//     BENCH_AUDIT_N (default 100,000) leaves; bar: growth ≤ 2×.
// Not measured here (not built yet): `audit verify` receipts/s against the raw verify rate on a
// 100,000-receipt store, and its peak RSS.
// Env: BENCH_AUDIT_N (big tree size), BENCH_AUDIT_APPENDS (appends per case per repetition), BENCH_REPS.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { proveInclusion, treeHash } from '../src/core/merkle.js';
import { appendLeaf, treeReader } from '../src/store/tree.js';
import { TLOG_SQL } from '../src/store/migrations/0008-tlog.js';
import { judgeBar, knob } from './lib/quick.js';

const BIG = knob('BENCH_AUDIT_N', 100_000, 5_000);
const APPENDS = knob('BENCH_AUDIT_APPENDS', 2_000, 100);
const REPS = knob('BENCH_REPS', 5, 1);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const digest = (s: string | Buffer): string => `sha256:${createHash('sha256').update(s).digest('hex')}`;

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
  function append(db: Database.Database, tree: boolean, k: number): number {
    const ins = db.prepare('INSERT INTO log VALUES (@seq, @time, @type, @unit, @payload, @payload_digest, @prev_hash, @entry_hash)');
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < k; i++) {
      const head = heads.get(db) as { seq: number; hash: string };
      const payload = Buffer.from(JSON.stringify({ unit: `UNIT-${i}`, created_at: 1_780_000_000, pad: 'x'.repeat(300) }));
      const row = { seq: head.seq + 1, time: 1_780_000_000, type: 'unit_create', unit: `UNIT-${i}`, payload, payload_digest: digest(payload), prev_hash: head.hash, entry_hash: '' };
      row.entry_hash = digest(JSON.stringify({ seq: row.seq, time: row.time, type: row.type, unit: row.unit, payload_digest: row.payload_digest, prev_hash: row.prev_hash }));
      db.transaction(() => {
        ins.run(row);
        if (tree) appendLeaf(db, row);
      }).immediate();
      heads.set(db, { seq: row.seq, hash: row.entry_hash });
    }
    return Number(process.hrtime.bigint() - t0) / 1e6 / k;
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < REPS; r++) {
    b.push(append(without, false, APPENDS));
    a.push(append(withTree, true, APPENDS));
  }
  const ratio = median(a) / median(b);
  console.log(`append: with tree ${median(a).toFixed(4)} ms, without ${median(b).toFixed(4)} ms per append (medians of ${REPS}×${APPENDS}); ratio ${ratio.toFixed(3)} (bar ≤ 1.1: ${ratio <= 1.1 ? 'met' : 'NOT met'})`);
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
