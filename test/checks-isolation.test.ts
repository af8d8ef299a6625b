// The project's own code is untrusted while a check runs it (docs/reviewers.md#check-reviewers,
// docs/sandbox.md#the-check-profile-check-reviewers). A hostile test suite, run by the pinned check-tests adapter
// through the real runner, tries the walls and asserts from inside that each one holds — so the run
// is CLEAN exactly when they all hold; the positive control runs the same file on the host, where it
// fails and reaches the loopback server. Also: a dependency root swapped between issue and run is
// drift (ABORTED, no receipt), and a command that crashes or prints no TAP is a coded ABORTED run,
// never CLEAN.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { closeStore, openStore } from '../src/store/index.js';
import { sweepSealed } from '../src/flows/run/check-run.js';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { cleanupDirs, tempDir } from './state-helpers.js';
import { jsonOut } from './helpers/cli.js';
import { adapterDigests, CHECK_CANARY, checkEntry, issueCheck, makeCheckWorld, NODE, runCheck, type CheckWorld } from './checks-helpers.js';

const HOSTILE = `import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';

const me = fileURLToPath(import.meta.url);
test('the walls hold', async () => {
  console.log('${CHECK_CANARY}');
  console.error('${CHECK_CANARY}');
  const net = await new Promise((r) => {
    const s = connect(Number(process.env.LOOPBACK_PORT), '127.0.0.1');
    s.on('connect', () => { s.destroy(); r('connected'); });
    s.on('error', (e) => r(e.code));
  });
  assert.notEqual(net, 'connected');
  const before = readFileSync(me, 'utf8');
  assert.throws(() => writeFileSync(me, 'tampered by the test'), { code: 'EROFS' });
  assert.equal(readFileSync(me, 'utf8'), before);
  assert.throws(() => writeFileSync(new URL('../node_modules/typescript/package.json', import.meta.url), '{}'), { code: 'EROFS' });
  assert.throws(() => writeFileSync(new URL('../planted.js', import.meta.url), ''), { code: 'EROFS' });
  writeFileSync('/tmp/scratch.txt', 'scratch is writable');
  const root = readdirSync('/').sort();
  for (const hidden of ['root', 'home', 'etc', 'var', 'work', 'run']) assert.ok(!root.includes(hidden), hidden);
  // the host's /tmp (where the store, the keys and the repository of this test live) is not this /tmp
  assert.ok(readdirSync('/tmp').every((n) => !n.startsWith('governed-')));
  assert.ok(!existsSync('/proc/1/root/etc/passwd') || readdirSync('/proc/1/root').includes('snapshot'));
});
`;

let server: Server;
let connections = 0;
let port = 0;
let w: CheckWorld;

beforeAll(async () => {
  server = createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as { port: number }).port;
  const a = adapterDigests();
  const env = { LOOPBACK_PORT: String(port) };
  w = await makeCheckWorld({
    files: { 'test/hostile.test.js': HOSTILE },
    extraReviewers: {
      hostile: checkEntry(a, 'check-tests', [NODE, '--test', '--test-reporter=tap', 'test/hostile.test.js'], 'tap', env),
      crash: checkEntry(a, 'check-tests', [NODE, '-e', 'process.exit(3)'], 'exit-code'),
      notap: checkEntry(a, 'check-tests', [NODE, '-e', `console.log("ok 1 - forged ${CHECK_CANARY}")`], 'tap'),
      lint: checkEntry(a, 'check-eslint', [NODE, 'node_modules/eslint/bin/eslint.js', '--format', 'json', 'src']),
    },
    slots: { hostile: 'hostile', crash: 'crash', notap: 'notap', lint: 'lint' },
  });
}, 300_000);
afterAll(() => {
  server.close();
  cleanupDirs();
});

function count(table: 'receipts' | 'runs', where = ''): number {
  const db = new Database(join(w.home, 'governed.db'), { readonly: true });
  try {
    return db.prepare(`SELECT COUNT(*) FROM ${table} ${where}`).pluck().get() as number;
  } finally {
    db.close();
  }
}

function allReceiptBytes(): string {
  const db = new Database(join(w.home, 'governed.db'), { readonly: true });
  try {
    return (db.prepare('SELECT envelope FROM receipts').pluck().all() as Buffer[]).map((b) => b.toString('utf8') + Buffer.from(JSON.parse(b.toString('utf8')).payload, 'base64').toString('utf8')).join('\n');
  } finally {
    db.close();
  }
}

describe('the project code under check is contained', () => {
  it('a hostile suite finds every wall standing: CLEAN, zero loopback connections, its own file unchanged, no canary anywhere', () => {
    const file = join(w.repo.root, 'test', 'hostile.test.js');
    const r = runCheck(w, issueCheck(w, 'hostile'));
    expect(r.stdout + r.stderr).not.toContain(CHECK_CANARY);
    expect((jsonOut(r) as { verdict: string }).verdict).toBe('CLEAN');
    expect(r.code).toBe(0);
    expect(connections).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(HOSTILE);
    expect(allReceiptBytes()).not.toContain(CHECK_CANARY);
  }, 300_000);

  it('positive control: on the host the same suite fails and reaches the loopback server', async () => {
    const dir = tempDir('governed-checks-control-');
    mkdirSync(join(dir, 'test'));
    copyFileSync(join(w.repo.root, 'test', 'hostile.test.js'), join(dir, 'test', 'hostile.test.js'));
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    const before = connections;
    const r = spawnSync(NODE, ['--test', '--test-reporter=tap', 'test/hostile.test.js'], {
      cwd: dir,
      env: { PATH: '/usr/bin', LOOPBACK_PORT: String(port) },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).not.toBe(0);
    // spawnSync held the event loop: let the server see the accepted connection.
    await new Promise((res) => setTimeout(res, 300));
    expect(connections).toBe(before + 1);
  }, 120_000);
});

describe('sealed trees a killed runner left behind', () => {
  it('are swept for ended runs of this store only; a claimed run and foreign names are kept', () => {
    const db = new Database(join(w.home, 'governed.db'), { readonly: true });
    const ended = db.prepare("SELECT id FROM runs WHERE status <> 'claimed' LIMIT 1").pluck().get() as string;
    db.close();
    const other = `RUN-${'e'.repeat(32)}`; // not a run of this store
    const a = mkdtempSync(`/tmp/governed-sealed-${ended}-`);
    const b = mkdtempSync(`/tmp/governed-sealed-${other}-`);
    mkdirSync(join(a, 'snapshot'));
    chmodSync(join(a, 'snapshot'), 0o555);
    const store = openStore(w.home);
    try {
      expect(sweepSealed(store)).toBeGreaterThanOrEqual(1);
    } finally {
      closeStore(store);
    }
    expect(existsSync(a)).toBe(false);
    expect(existsSync(b)).toBe(true);
    rmSync(b, { recursive: true, force: true });
  });
});

describe('drift and failures are ABORTED, never CLEAN', () => {
  it('a dependency root changed between issue and run: review_post_launch_drift [dependency_root], ABORTED, no receipt', () => {
    const challenge = issueCheck(w, 'lint');
    appendFileSync(join(w.repo.root, 'node_modules', 'eslint', 'package.json'), '\n');
    const receipts = count('receipts');
    const r = runCheck(w, challenge);
    const out = jsonOut(r) as { verdict: string; error: { code: string; ids: string[] } };
    expect(r.code).toBe(9);
    expect(out.verdict).toBe('ABORTED');
    expect(out.error.code).toBe('review_post_launch_drift');
    expect(out.error.ids).toEqual(['dependency_root']);
    expect(count('receipts')).toBe(receipts);
    expect(count('runs', "WHERE status = 'aborted' AND abort_code = 'review_post_launch_drift'")).toBe(1);
  }, 300_000);

  it('positive control: issued after the change, the same lint slot runs to a verdict', () => {
    const r = runCheck(w, issueCheck(w, 'lint'));
    expect((jsonOut(r) as { verdict: string }).verdict).toBe('CLEAN');
  }, 300_000);

  it('a command that crashes is check_command_failed; one that prints no TAP is check_output_unparsable', () => {
    for (const [slot, code] of [
      ['crash', 'check_command_failed'],
      ['notap', 'check_output_unparsable'],
    ] as const) {
      const r = runCheck(w, issueCheck(w, slot));
      expect(r.stdout + r.stderr).not.toContain(CHECK_CANARY);
      const out = jsonOut(r) as { verdict: string; error: { code: string } };
      expect({ exit: r.code, verdict: out.verdict, code: out.error.code }).toEqual({ exit: 9, verdict: 'ABORTED', code });
    }
  }, 300_000);
});
