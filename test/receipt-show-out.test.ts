// `governed receipt show --out F` (docs/threat-model.md#nothing-half-done, docs/commands.md#exit-codes)
// whose write fails part-way — a full disk: F on a 4 KiB tmpfs, mounted in a private mount namespace
// (`unshare -m`, root only) — must not leave a truncated receipt file behind and must exit with a
// code. Before the fix: a 4096-byte prefix of the envelope stayed in F and the command exited 1 with
// `internal_error`.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLI, jsonOut } from './helpers/cli.js';
import { cleanupDirs, tempDir } from './state-helpers.js';
import { issue, makeRunWorld, readDb, runReview, storeDigest, type RunWorld } from './run-helpers.js';

// A private mount namespace needs root (CAP_SYS_ADMIN); the run suites run as root (uid-separated sandbox).
const canUnshare = spawnSync('unshare', ['-m', 'true']).status === 0;

let w: RunWorld;
let receipt: string;
beforeAll(async () => {
  if (!canUnshare) return;
  w = await makeRunWorld({ modes: ['dirty'] });
  receipt = jsonOut(runReview(w, issue(w, 'dirty'))).receipt_id as string;
}, 120_000);
afterAll(cleanupDirs);

it.skipIf(!canUnshare)('a --out write that fails part-way (disk full) → receipt_output_unwritable (2), no partial file, store unchanged', () => {
  const db = readDb(w);
  const size = (db.prepare('SELECT length(envelope) FROM receipts WHERE id = ?').pluck().get(receipt) as number);
  db.close();
  expect(size).toBeGreaterThan(4096); // the 4 KiB tmpfs cannot hold it
  const dir = tempDir('governed-rtg-receipt-out-');
  const out = join(dir, 'receipt.json');
  const before = storeDigest(w);
  // Inside the namespace: mount, run, then report whether F was left behind (the tmpfs vanishes with it).
  const script = 'mount -t tmpfs -o size=4k none "$1" || exit 99; shift; "$@"; rc=$?; [ -e "$OUT" ] && echo LEFT-BEHIND >&2; exit $rc';
  const r = spawnSync('unshare', ['-m', 'sh', '-c', script, 'sh', dir, process.execPath, CLI, 'receipt', 'show', '--receipt', receipt, '--out', out, '--json', '--home', w.home], {
    cwd: w.repo.root,
    env: { PATH: '/usr/bin:/bin', OUT: out },
    encoding: 'utf8',
  });
  expect(r.status).not.toBe(99);
  const err = (JSON.parse(r.stdout.trim()) as { error?: { code: string } }).error;
  expect({ code: err?.code, exit: r.status }).toEqual({ code: 'receipt_output_unwritable', exit: 2 });
  expect(r.stderr).not.toContain('LEFT-BEHIND');
  expect(r.stderr).not.toContain('ENOSPC');
  expect(storeDigest(w)).toBe(before);
}, 60_000);
