// Separated mode runs every reviewer under the policy's sandbox uid (docs/runnerd.md#the-sandbox-host):
// neither the writer's, the daemon's nor an attestor's. Real users, real daemon, real bwrap.
//  - the receipt says so (sandbox.uid = the policy's uid, uid_separated true), and the kernel agrees:
//    the sandbox host and the running reviewer are that uid, with no supplementary group;
//  - the host's environment is PATH and glibc's malloc settings only, and those do not reach the
//    reviewer (its environment has no MALLOC_ variable);
//  - the walls: as that uid (what a reviewer that escaped bwrap would be), the daemon's store, its
//    state directory and every attestor key are refused (EACCES), and nothing is written; the same
//    reads succeed as the daemon's and the attestor's uid (positive controls);
//  - the sandbox uid is read per request, not once at start: once the pinned policy names another
//    uid, a client of that uid is refused and a run is refused before its claim (store unchanged).
import { chmodSync, chownSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { publishedDefinition } from '../src/core/json-schemas.js';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOut } from './helpers/cli.js';
import { pinDigestOf } from '../src/store/pins.js';
import { RUNNERD_MALLOC_ENV } from '../src/flows/runnerd/malloc-env.js';
import { asUser, common, idsOf, IS_ROOT, makeSepWorld, namesFor, removeSepUsers, root, runAs, startDaemon, type Daemon, type SepWorld } from './runnerd-helpers.js';

const SANDBOX_UID = 64500;
const NAMES = namesFor('gvd-sep3u');
const NAMES_LATE = namesFor('gvd-sep3l');
/** The store's bytes: the database and its write-ahead log (when there is one). */
const sha = (p: string): string => {
  const h = createHash('sha256').update(readFileSync(p));
  try {
    h.update(readFileSync(`${p}-wal`));
  } catch {
    // no WAL file
  }
  return h.digest('hex');
};

/** Whether `ancestor` is on `pid`'s parent chain (PPid lines of /proc/<pid>/status). */
function descendsFrom(pid: number, ancestor: number): boolean {
  for (let p = pid, i = 0; p > 1 && i < 64; i++) {
    let status: string;
    try {
      status = readFileSync(`/proc/${p}/status`, 'latin1');
    } catch {
      return false;
    }
    p = Number(/^PPid:\s*(\d+)/m.exec(status)?.[1] ?? 0);
    if (p === ancestor) return true;
  }
  return false;
}

/** Uid/Gid/Groups lines of /proc/<pid>/status. */
function procIds(pid: number): { uids: number[]; gids: number[]; groups: number[] } | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'latin1');
  } catch {
    return null;
  }
  const line = (n: string): number[] =>
    (new RegExp(`^${n}:[ \\t]*([0-9 \\t]*)$`, 'm').exec(text)?.[1] ?? '')
      .trim()
      .split(/\s+/)
      .filter((x) => x !== '')
      .map(Number);
  return { uids: line('Uid'), gids: line('Gid'), groups: line('Groups') };
}

/** Run `argv` as a bare uid/gid with no supplementary groups (a sandbox process outside its walls). */
function asSandboxUid(argv: readonly string[], groups: readonly number[] = [], uid = SANDBOX_UID): { code: number | null; stderr: string; stdout: string } {
  const g = groups.length === 0 ? ['--clear-groups'] : ['--groups', groups.join(',')];
  const r = spawnSync('setpriv', ['--reuid', String(uid), '--regid', String(uid), ...g, '--', ...argv], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' }, timeout: 60_000 });
  return { code: r.status, stderr: r.stderr, stdout: r.stdout };
}

function payloadOf(envelopeB64: string): Record<string, unknown> {
  const envelope = JSON.parse(Buffer.from(envelopeB64, 'base64').toString('utf8')) as { payload: string };
  return (JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as { predicate: Record<string, unknown> }).predicate;
}

describe.skipIf(!IS_ROOT)('runnerd: reviewers run under the policy sandbox uid', () => {
  let w: SepWorld;
  let d: Daemon;
  let unit: string;
  const env = (): Record<string, string> => ({ GOVERNED_RUNNER: w.socket });
  const W1 = NAMES.writer1;

  beforeAll(async () => {
    removeSepUsers(NAMES);
    w = await makeSepWorld({ names: NAMES, modes: ['clean', 'sleep'] });
    d = await startDaemon(w);
    const created = asUser(W1, ['unit', 'create', '--contract', w.contractFile, '--baseline', w.baseline, '--json'], { cwd: w.repo.root, env: env() });
    if (created.code !== 0) throw new Error(created.stdout + created.stderr);
    unit = jsonOut(created).unit as string;
    const reg = asUser(W1, ['writer', 'register', '--unit', unit, '--writer-session', 'agent-1', '--json'], { cwd: w.repo.root, env: env() });
    if (reg.code !== 0) throw new Error(reg.stdout + reg.stderr);
  }, 180_000);
  afterAll(async () => {
    await d?.stop();
    removeSepUsers(NAMES);
  });

  const challenge = (slot: string): string => {
    const ch = asUser(W1, ['review-challenge', '--unit', unit, '--writer-session', 'agent-1', '--stage', 'development', '--slot', slot, '--json'], { cwd: w.repo.root, env: env() });
    expect(ch.code, ch.stdout + ch.stderr).toBe(0);
    return jsonOut(ch).challenge_id as string;
  };

  it('the sandbox host is the policy sandbox uid, no supplementary group, and none of the governed uids', () => {
    expect(d.ready.sandbox_uid).toBe(SANDBOX_UID);
    const pid = d.ready.sandbox_host_pid as number;
    const ids = procIds(pid);
    expect(ids).toEqual({ uids: [SANDBOX_UID, SANDBOX_UID, SANDBOX_UID, SANDBOX_UID], gids: [SANDBOX_UID, SANDBOX_UID, SANDBOX_UID, SANDBOX_UID], groups: [] });
    for (const u of [NAMES.daemon, `${NAMES.daemon}-reviewer`, `${NAMES.daemon}-runner`, `${NAMES.daemon}-probe`, `${NAMES.daemon}-log`, W1]) expect(idsOf(u).uid).not.toBe(SANDBOX_UID);
  });

  it("the sandbox host's environment is PATH and glibc's malloc settings, nothing else (docs/performance.md#the-daemons-memory-over-many-runs)", () => {
    const environ = readFileSync(`/proc/${d.ready.sandbox_host_pid as number}/environ`, 'latin1').split('\0').filter(Boolean);
    expect(environ.sort()).toEqual(Object.entries({ PATH: '/usr/bin:/bin', ...RUNNERD_MALLOC_ENV }).map(([k, v]) => `${k}=${v}`).sort());
  });

  it('a run through the daemon: the reviewer process is the sandbox uid while it runs, and the receipt says uid_separated', async () => {
    const c = challenge('sleep');
    // The run (the sleep reviewer takes 3 s) in the background; meanwhile, the kernel's view.
    const { spawn } = await import('node:child_process');
    const { CLI } = await import('./helpers/cli.js');
    const child = spawn('setpriv', ['--reuid', W1, '--regid', W1, '--init-groups', '--', process.execPath, CLI, 'review-run', '--challenge', c, '--json'], {
      cwd: w.repo.root,
      env: { PATH: '/usr/bin:/bin', GOVERNED_RUNNER: w.socket },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    const done = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    // The sandbox's PID 1 (NSpid "<host pid> 1"), a child of the host's bwrap: its uids, seen from outside.
    const seen: { uids: number[]; groups: number[]; environ: string[] }[] = [];
    const deadline = Date.now() + 60_000;
    while (seen.length === 0 && Date.now() < deadline) {
      for (const e of readdirSync('/proc')) {
        if (!/^[0-9]+$/.test(e)) continue;
        let status: string;
        try {
          status = readFileSync(`/proc/${e}/status`, 'latin1');
        } catch {
          continue;
        }
        if (!/^NSpid:\s*\d+\s+1\s*$/m.test(status)) continue;
        let cmd = '';
        try {
          cmd = readFileSync(`/proc/${e}/cmdline`, 'latin1');
        } catch {
          continue;
        }
        if (!cmd.includes('/opt/reviewer/reviewer')) continue;
        // Only this daemon's reviewer: a descendant of its sandbox host (other test files may run
        // reviewers of their own at the same time).
        if (!descendsFrom(Number(e), d.ready.sandbox_host_pid as number)) continue;
        const ids = procIds(Number(e));
        let environ: string[] = [];
        try {
          environ = readFileSync(`/proc/${e}/environ`, 'latin1').split('\0').filter(Boolean);
        } catch {
          continue;
        }
        if (ids !== null) seen.push({ ...ids, environ });
      }
      if (seen.length === 0) await new Promise((r) => setTimeout(r, 20));
    }
    const code = await done;
    expect(code, out).toBe(0);
    expect(seen.length).toBeGreaterThan(0);
    for (const s of seen) {
      expect(s.uids).toEqual([SANDBOX_UID, SANDBOX_UID, SANDBOX_UID, SANDBOX_UID]);
      expect(s.groups).toEqual([]);
      // The host's malloc settings stay with the host: the reviewer's environment is the policy's.
      expect(s.environ.some((x) => x.startsWith('MALLOC_'))).toBe(false);
    }
    const receipt = (JSON.parse(out) as { receipt_id: string }).receipt_id;
    const shown = asUser(W1, ['receipt', 'show', '--receipt', receipt, '--json'], { cwd: w.repo.root, env: env() });
    expect(shown.code).toBe(0);
    const p = payloadOf(jsonOut(shown).envelope_b64 as string);
    expect(p.trust_mode).toBe('separated');
    expect(p.sandbox).toMatchObject({ uid: SANDBOX_UID, uid_separated: true });
    const sep = p.separation as { daemon_uid: number; attestor_uids: Record<string, number>; client_uid: number };
    expect(new Set([SANDBOX_UID, sep.daemon_uid, sep.attestor_uids.reviewer, sep.attestor_uids.runner, sep.client_uid]).size).toBe(5);
  }, 120_000);

  it('the walls: as the sandbox uid, the store, the state directory and every key are refused and nothing is written; the owners can (positive control)', () => {
    const db = join(w.home, 'governed.db');
    const before = sha(db);
    const stateDir = join(w.base, 'state');
    const keys = ['reviewer', 'runner', 'probe', 'log'].map((c) => join(w.base, 'keys', c, 'key.pem'));
    // A sandbox process outside its walls: EACCES on every one.
    for (const probe of [
      ['cat', db],
      ['ls', stateDir],
      ['touch', join(w.home, 'planted')],
      ['sh', '-c', `echo x >> '${db}'`],
      ...keys.map((k) => ['cat', k]),
    ]) {
      const r = asSandboxUid(probe);
      expect(r.code, probe.join(' ')).not.toBe(0);
      expect(r.stderr, probe.join(' ')).toMatch(/Permission denied/);
    }
    expect(sha(db)).toBe(before);
    expect(spawnSync('test', ['-e', join(w.home, 'planted')]).status).not.toBe(0);
    // Positive controls: the daemon's uid reads its store, each attestor its key.
    expect(runAs(NAMES.daemon, ['cat', db]).code).toBe(0);
    expect(runAs(NAMES.daemon, ['ls', stateDir]).code).toBe(0);
    expect(runAs(`${NAMES.daemon}-reviewer`, ['cat', keys[0] as string]).code).toBe(0);
    expect(runAs(`${NAMES.daemon}-runner`, ['cat', keys[1] as string]).code).toBe(0);
    expect(runAs(`${NAMES.daemon}-probe`, ['cat', keys[2] as string]).code).toBe(0);
    expect(runAs(`${NAMES.daemon}-log`, ['cat', keys[3] as string]).code).toBe(0);
  });

  it('runnerd serve logs on stderr (the ready line); its stdout stays empty', () => {
    expect(d.stderr()).toContain('"ready":true');
    expect(d.stdout()).toBe('');
  });

  it('runnerd doctor: a wrong mode answers the published command-error object (runnerd_state_unsafe, exit 4); put right, ok (positive control)', () => {
    const stateDir = join(w.base, 'state');
    chmodSync(stateDir, 0o750);
    try {
      const r = root(['runnerd', 'doctor', ...common(w), '--json']);
      expect(r.code).toBe(4);
      const obj = JSON.parse(r.stdout) as unknown;
      expect(publishedDefinition('command-error')?.safeParse(obj).success, r.stdout).toBe(true);
      const err = (obj as { error: { code: string; exit: number; ids: string[] } }).error;
      expect({ code: err.code, exit: err.exit }).toEqual({ code: 'runnerd_state_unsafe', exit: 4 });
      expect(err.ids.some((i) => i.startsWith(`${stateDir}:`))).toBe(true);
    } finally {
      chmodSync(stateDir, 0o700);
    }
    expect(jsonOut(root(['runnerd', 'doctor', ...common(w), '--json']))).toEqual({ ok: true, findings: [], schema_version: 1, exit: 0 });
  });

  it('runnerd doctor judges the sandbox host\'s sealed/ and egress/ (the daemon made them: daemon uid, 0710): a wrong mode and the writers\' group are named; put right, ok (positive control)', () => {
    const sealed = join(w.base, 'sealed');
    const egress = join(w.base, 'egress');
    const before = [statSync(sealed), statSync(egress)];
    expect(before.map((s) => [s.isDirectory(), s.mode & 0o7777])).toEqual([[true, 0o710], [true, 0o710]]);
    const writersGid = Number(spawnSync('getent', ['group', NAMES.writers], { encoding: 'utf8' }).stdout.split(':')[2]);
    chmodSync(sealed, 0o750);
    chownSync(egress, before[1]!.uid, writersGid);
    try {
      const r = root(['runnerd', 'doctor', ...common(w), '--json']);
      expect(r.code).toBe(4);
      const err = (JSON.parse(r.stdout) as { error: { code: string; ids: string[] } }).error;
      expect(err.code).toBe('runnerd_state_unsafe');
      expect([...err.ids].sort()).toEqual([`${egress}:wrong_group`, `${sealed}:wrong_mode`]);
    } finally {
      chmodSync(sealed, 0o710);
      chownSync(egress, before[1]!.uid, before[1]!.gid);
    }
    expect(jsonOut(root(['runnerd', 'doctor', ...common(w), '--json']))).toEqual({ ok: true, findings: [], schema_version: 1, exit: 0 });
  });

  it('a client of the sandbox uid is refused even in the writers group (kernel uid); a writer is answered (positive control)', () => {
    const writersGid = Number(spawnSync('getent', ['group', NAMES.writers], { encoding: 'utf8' }).stdout.split(':')[2]);
    const { CLI } = { CLI: join(process.cwd(), 'dist', 'governed.mjs') };
    const r = asSandboxUid([process.execPath, CLI, 'runnerd', 'hello', '--runner', w.socket, '--json'], [writersGid]);
    expect(r.code).toBe(6);
    expect((JSON.parse(r.stdout) as { error: { code: string } }).error.code).toBe('runnerd_client_uid_forbidden');
    expect(asUser(W1, ['runnerd', 'hello', '--json'], { env: env() }).code).toBe(0);
  });

  // Last in this world: it kills the host for good (only root can start another: restart the daemon).
  it('the sandbox host killed: a run is refused before its claim (runnerd_sandbox_unavailable), the store unchanged; the daemon serves on', async () => {
    const c = challenge('clean');
    const db = join(w.home, 'governed.db');
    process.kill(d.ready.sandbox_host_pid as number, 'SIGKILL');
    for (let i = 0; i < 200 && procIds(d.ready.sandbox_host_pid as number) !== null; i++) await new Promise((r) => setTimeout(r, 25));
    const before = sha(db);
    const run = asUser(W1, ['review-run', '--challenge', c, '--json'], { cwd: w.repo.root, env: env() });
    expect({ exit: run.code, code: (jsonOut(run).error as { code: string }).code }).toEqual({ exit: 1, code: 'runnerd_sandbox_unavailable' });
    expect(sha(db)).toBe(before);
    expect(asUser(W1, ['runnerd', 'hello', '--json'], { env: env() }).code).toBe(0);
    expect(d.child.exitCode).toBeNull();
  }, 120_000);
});

describe.skipIf(!IS_ROOT)('runnerd: the sandbox uid is read per request, not once at start', () => {
  let w: SepWorld;
  let d: Daemon;
  const env = (): Record<string, string> => ({ GOVERNED_RUNNER: w.socket });
  const OTHER_UID = 64501;

  beforeAll(async () => {
    removeSepUsers(NAMES_LATE);
    w = await makeSepWorld({ names: NAMES_LATE, modes: ['clean'] });
    d = await startDaemon(w);
  }, 180_000);
  afterAll(async () => {
    await d?.stop();
    removeSepUsers(NAMES_LATE);
  });

  /** Replace the store's policy pin underneath the running daemon, as the daemon user — what a
   * `policy update` does to the pins table (its authority path is tested in test/authority-cli). */
  function setPolicyPin(bytes: Buffer): void {
    const script =
      "const D=require(process.argv[1]);const db=new D(process.argv[2]);" +
      "db.prepare(\"UPDATE pins SET bytes=?, digest=? WHERE kind='policy'\").run(Buffer.from(process.argv[3],'base64'),process.argv[4]);db.close();";
    const r = runAs(NAMES_LATE.daemon, [process.execPath, '-e', script, join(process.cwd(), 'node_modules', 'better-sqlite3'), join(w.home, 'governed.db'), bytes.toString('base64'), pinDigestOf(bytes, 'policy')]);
    expect(r.code, r.stderr).toBe(0);
  }

  it('after the pinned policy names another sandbox uid: a client of that uid is refused and a run is refused before its claim; put back, the same challenge runs (positive control)', () => {
    expect(d.ready.sandbox_uid).toBe(SANDBOX_UID);
    const W1 = NAMES_LATE.writer1;
    const created = asUser(W1, ['unit', 'create', '--contract', w.contractFile, '--baseline', w.baseline, '--json'], { cwd: w.repo.root, env: env() });
    expect(created.code, created.stdout + created.stderr).toBe(0);
    const unit = jsonOut(created).unit as string;
    expect(asUser(W1, ['writer', 'register', '--unit', unit, '--writer-session', 'a', '--json'], { cwd: w.repo.root, env: env() }).code).toBe(0);
    const ch = asUser(W1, ['review-challenge', '--unit', unit, '--writer-session', 'a', '--stage', 'development', '--slot', 'clean', '--json'], { cwd: w.repo.root, env: env() });
    expect(ch.code, ch.stdout + ch.stderr).toBe(0);
    const challengeId = jsonOut(ch).challenge_id as string;

    const original = readFileSync(w.policyFile);
    const doc = JSON.parse(original.toString('utf8')) as { sandbox: { uid: number } };
    const moved = Buffer.from(JSON.stringify({ ...doc, sandbox: { ...doc.sandbox, uid: OTHER_UID } }));
    const writersGid = Number(spawnSync('getent', ['group', NAMES_LATE.writers], { encoding: 'utf8' }).stdout.split(':')[2]);
    const CLI = join(process.cwd(), 'dist', 'governed.mjs');
    // Before: uid 64501 is just a writer-group member the daemon answers (positive control).
    const helloBefore = asSandboxUid([process.execPath, CLI, 'runnerd', 'hello', '--runner', w.socket, '--json'], [writersGid], OTHER_UID);
    expect(helloBefore.code, helloBefore.stdout).toBe(0);
    setPolicyPin(moved);
    try {
      const hello = asSandboxUid([process.execPath, CLI, 'runnerd', 'hello', '--runner', w.socket, '--json'], [writersGid], OTHER_UID);
      expect(hello.code).toBe(6);
      expect((JSON.parse(hello.stdout) as { error: { code: string } }).error.code).toBe('runnerd_client_uid_forbidden');
      const db = join(w.home, 'governed.db');
      const before = sha(db);
      const run = asUser(W1, ['review-run', '--challenge', challengeId, '--json'], { cwd: w.repo.root, env: env() });
      expect(run.code).toBe(2);
      expect((jsonOut(run).error as { code: string }).code).toBe('runnerd_sandbox_uid_changed');
      expect(sha(db)).toBe(before);
    } finally {
      setPolicyPin(original);
    }
    const again = asUser(W1, ['review-run', '--challenge', challengeId, '--json'], { cwd: w.repo.root, env: env() });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(jsonOut(again).verdict).toBe('CLEAN');
  }, 240_000);
});
