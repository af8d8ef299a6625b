// A sealed snapshot altered while the check runs (docs/sandbox.md#sealed-snapshots): the sandbox
// sees it read-only, but root on the host can still change the sealed tree. The full re-walk after
// the run catches it: ABORTED with snapshot_altered, no receipt. Through the real review-run (bwrap,
// seccomp, both attestors); the test process, as root on the host, edits one sealed file while the
// check command sleeps. Positive control: the same slot, left alone, reaches CLEAN.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { chmodSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { cleanupDirs } from './state-helpers.js';
import { CLI, jsonOut } from './helpers/cli.js';
import { adapterDigests, checkEntry, issueCheck, makeCheckWorld, NODE, REVIEWERS_DIR, runCheck, type CheckWorld } from './checks-helpers.js';

const isRoot = process.geteuid?.() === 0;
let w: CheckWorld;

beforeAll(async () => {
  if (!isRoot) return;
  const a = adapterDigests();
  w = await makeCheckWorld({
    extraReviewers: { slow: checkEntry(a, 'check-tests', [NODE, '-e', 'setTimeout(() => {}, 6000)'], 'exit-code') },
    slots: { slow: 'slow' },
  });
}, 300_000);
afterAll(() => cleanupDirs());

function count(table: 'receipts' | 'runs', where = ''): number {
  const db = new Database(join(w.home, 'governed.db'), { readonly: true });
  try {
    return db.prepare(`SELECT count(*) FROM ${table} ${where}`).pluck().get() as number;
  } finally {
    db.close();
  }
}

/** The run review-run claimed for this challenge (null until the claim is committed). */
function runOf(challenge: string): string | null {
  const db = new Database(join(w.home, 'governed.db'), { readonly: true });
  try {
    return (db.prepare('SELECT id FROM runs WHERE challenge_id = ?').pluck().get(challenge) as string | undefined) ?? null;
  } finally {
    db.close();
  }
}

const sealedRoots = (): string[] => readdirSync('/tmp').filter((n) => /^governed-sealed-RUN-[0-9a-f]{32}-/.test(n));

/** The sealed copy of src/sum.js under a seal root (its layout is the snapshot module's business). */
function sealedFile(root: string): string | null {
  const walk = (dir: string): string | null => {
    for (const n of readdirSync(dir)) {
      const p = join(dir, n);
      const st = statSync(p);
      if (st.isDirectory()) {
        const f = walk(p);
        if (f !== null) return f;
      } else if (n === 'sum.js' && dir.endsWith('/src')) return p;
    }
    return null;
  };
  return walk(join('/tmp', root));
}

describe.skipIf(!isRoot)('a sealed snapshot changed during the run (needs root: the attacker is root on the host)', () => {
  it('is snapshot_altered (4): ABORTED, no receipt', async () => {
    const challenge = issueCheck(w, 'slow');
    const before = new Set(sealedRoots());
    const receipts = count('receipts');
    const child = spawn(process.execPath, [CLI, 'review-run', '--challenge', challenge, '--reviewers-dir', REVIEWERS_DIR, '--attestors', w.attestorsDir, '--json', '--home', w.home], {
      cwd: w.repo.root,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    const done = new Promise<number | null>((res) => child.on('close', res));
    // Wait for THIS run's seal root (named by its run id: other test files seal in /tmp at the same
    // time) and its sealed file, then change the file's bytes.
    let edited = false;
    for (let i = 0; i < 400 && !edited; i++) {
      await new Promise((r) => setTimeout(r, 25));
      const run = runOf(challenge);
      if (run === null) continue;
      for (const root of sealedRoots().filter((n) => !before.has(n) && n.startsWith(`governed-sealed-${run}-`))) {
        const f = sealedFile(root);
        if (f === null) continue;
        chmodSync(f, 0o644);
        writeFileSync(f, 'export function sum() { return 0; }\n');
        chmodSync(f, 0o444);
        edited = true;
      }
    }
    expect(edited).toBe(true);
    const code = await done;
    const out = JSON.parse(stdout.trim()) as { verdict: string; error: { code: string } };
    expect({ exit: code, verdict: out.verdict, code: out.error.code }).toEqual({ exit: 4, verdict: 'ABORTED', code: 'snapshot_altered' }); // its exit is the integrity class (docs/errors.md)
    expect(count('receipts')).toBe(receipts);
    expect(count('runs', "WHERE status = 'aborted' AND abort_code = 'snapshot_altered'")).toBe(1);
    // This run's seal root is removed after the run, altered or not (other files' runs may be sealing now).
    const run = runOf(challenge);
    expect(run).not.toBeNull();
    expect(sealedRoots().filter((n) => n.startsWith(`governed-sealed-${run}-`))).toEqual([]);
  }, 120_000);

  it('positive control: the same slot, its snapshot left alone, reaches CLEAN with a receipt', () => {
    const receipts = count('receipts');
    const r = runCheck(w, issueCheck(w, 'slow'));
    expect((jsonOut(r) as { verdict: string }).verdict).toBe('CLEAN');
    expect(count('receipts')).toBe(receipts + 1);
  }, 120_000);
});
