// The daemon's automatic checkpoints (docs/runnerd.md "Checkpoints"): real users (gvd-sep4c-…,
// removed after the file), a real daemon under a policy with tlog_checkpoints, and the log key that
// `runnerd setup` gives the log attestor's own uid (<prefix>-log, 0400; the daemon's uid cannot read
// it). The daemon signs a checkpoint at start and after each appending request through its warm log
// attestor (restarted by its keeper when killed); `audit verify` of a store copy checks the daemon-signed
// head; `gate --runner` refuses a copy older than the daemon's checkpoint or than one the deploy side
// kept (--runner-checkpoint), and a checkpoint not signed by a log key of its own --trust. Each
// refusal: its exact code; each has its positive control.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { materializeStoreCopy } from '../src/flows/runnerd/store-copy.js';
import { jsonOut, REPO_ROOT, type CliResult } from './helpers/cli.js';
import { makeTempDir } from './helpers/temp.js';
import { IS_ROOT, asUser, chownTree, common, idsOf, makeSepWorld, namesFor, removeSepUsers, root, runAs, startDaemon, type Daemon, type SepWorld } from './runnerd-helpers.js';

const NAMES = namesFor('gvd-sep4c');
const errCode = (r: CliResult): string | undefined => ((jsonOut(r) as { error?: { code?: string } | null }).error ?? {}).code;

function dbBytes(home: string): Buffer {
  const db = new Database(join(home, 'governed.db'), { readonly: true, fileMustExist: true });
  try {
    return db.serialize();
  } finally {
    db.close();
  }
}

function logEntries(home: string): number {
  const db = new Database(join(home, 'governed.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT count(*) FROM log').pluck().get() as number;
  } finally {
    db.close();
  }
}

/** The daemon's newest stored checkpoint (read as root). */
function newestNote(home: string): { size: number; note: Buffer } {
  const names = readdirSync(join(home, 'checkpoints')).filter((n) => /^[0-9]{20}\.note$/.test(n)).sort();
  const name = names[names.length - 1] as string;
  return { size: Number(name.slice(0, 20)), note: readFileSync(join(home, 'checkpoints', name)) };
}

/** The warm log attestor process of this file's daemon (its command line names this world's base). */
function logAttestorPids(base: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').startsWith(`${process.execPath}\u0000${base}/attestors/log.mjs\u0000--serve\u0000`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Real, effective, saved and filesystem uids of a process (/proc/PID/status). */
function procUids(pid: number): number[] {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('Uid:')) as string;
  return line.split(/\s+/).slice(1, 5).map(Number);
}

describe.skipIf(!IS_ROOT)('separated mode: the daemon signs checkpoints of its log with its own log key', () => {
  let w: SepWorld;
  let d: Daemon;
  let unit: string;
  let deploy: string;
  let policyDigest: string;
  const env = (): Record<string, string> => ({ GOVERNED_RUNNER: w.socket });
  const as1 = (args: string[], e: Record<string, string> = env()): CliResult => asUser(NAMES.writer1, [...args, '--json'], { cwd: w.repo.root, env: e });
  let early: { db: Buffer; cp: { size: number; note: Buffer } };

  beforeAll(async () => {
    w = await makeSepWorld({ names: NAMES, policy: { tlog_checkpoints: { every_entries: 1 } } });
    d = await startDaemon(w);
    deploy = makeTempDir('gvd-sep4c-deploy-');
    chmodSync(deploy, 0o755);
    copyFileSync(w.trustFile, join(deploy, 'trust.json'));
    chmodSync(join(deploy, 'trust.json'), 0o644);
  }, 180_000);
  afterAll(async () => {
    await d?.stop();
    removeSepUsers(NAMES);
  });

  it('setup gave the log key its own uid (<prefix>-log, 0400 in a 0700 directory): the daemon uid and the writer get EACCES, the log uid reads it (positive control); doctor names a wrong owner or mode, and setup hands a key left as the daemon\'s over', () => {
    const dir = join(w.base, 'keys', 'log');
    const key = join(dir, 'key.pem');
    const log = idsOf(`${NAMES.daemon}-log`);
    const daemon = idsOf(NAMES.daemon);
    expect(new Set([log.uid, daemon.uid, idsOf(NAMES.writer1).uid]).size).toBe(3);
    const st = statSync(key);
    expect({ uid: st.uid, mode: st.mode & 0o7777, dirUid: statSync(dir).uid, dir: statSync(dir).mode & 0o7777 }).toEqual({ uid: log.uid, mode: 0o400, dirUid: log.uid, dir: 0o700 });
    for (const user of [NAMES.daemon, NAMES.writer1]) {
      const read = runAs(user, ['/bin/cat', key]);
      expect(read.code, user).not.toBe(0);
      expect(read.stderr, user).toContain('Permission denied');
      expect(read.stdout, user).toBe('');
    }
    const own = runAs(`${NAMES.daemon}-log`, ['/bin/cat', key]);
    expect(own.code, own.stderr).toBe(0);
    expect(own.stdout).toContain('PRIVATE KEY');
    // Opened up, the writer could read it (the walls above are the modes), and doctor names both.
    chmodSync(dir, 0o755);
    chmodSync(key, 0o644);
    try {
      const open = runAs(NAMES.writer1, ['/bin/cat', key]);
      expect(open.code).toBe(0);
      expect(open.stdout).toContain('PRIVATE KEY');
      const doctor = root(['runnerd', 'doctor', ...common(w), '--json']);
      expect(doctor.code).toBe(4);
      const failed = jsonOut(doctor) as { ok: boolean; error: { code: string; ids: string[] } };
      expect([failed.ok, failed.error.code]).toEqual([false, 'runnerd_state_unsafe']);
      expect([...failed.error.ids].sort()).toEqual([`${dir}:wrong_mode`, `${key}:wrong_mode`].sort());
    } finally {
      chmodSync(key, 0o400);
      chmodSync(dir, 0o700);
    }
    // The layout of a daemon that held its log key itself: the key the daemon's, 0600.
    chownSync(key, daemon.uid, daemon.gid);
    chmodSync(key, 0o600);
    const doctor = root(['runnerd', 'doctor', ...common(w), '--json']);
    expect(doctor.code).toBe(4);
    expect([...(jsonOut(doctor) as { error: { ids: string[] } }).error.ids].sort()).toEqual([`${key}:wrong_mode`, `${key}:wrong_owner`]);
    const governedDoctor = root(['doctor', '--runnerd', w.base, '--writers', NAMES.writers, '--runnerd-user', NAMES.daemon, '--socket', w.socket, '--json']);
    expect(governedDoctor.code).toBe(4);
    expect(jsonOut(governedDoctor).problems).toEqual(
      ['wrong_owner', 'wrong_mode'].map((p) => ({ check: 'runnerd_layout', code: 'runnerd_state_unsafe', ids: [`${key}:${p}`], exit: 4 })),
    );
    const fixed = root(['runnerd', 'setup', ...common(w), '--json']);
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
    expect(jsonOut(fixed).actions).toEqual([`owner of ${key} set to ${log.uid}:${log.gid}`, `mode of ${key} set to 0400`]);
    expect(jsonOut(root(['runnerd', 'doctor', ...common(w), '--json']))).toEqual({ ok: true, findings: [], schema_version: 1, exit: 0 });
    // Idempotent: another setup changes nothing.
    expect(jsonOut(root(['runnerd', 'setup', ...common(w), '--json'])).actions).toEqual([]);
  });

  it('the daemon signs through a warm log attestor under the log uid (one process, its keeper beside it), not a child of its own uid', () => {
    const log = idsOf(`${NAMES.daemon}-log`);
    const pids = logAttestorPids(w.base);
    expect(pids).toHaveLength(1);
    expect(procUids(pids[0] as number)).toEqual([log.uid, log.uid, log.uid, log.uid]);
    expect(d.ready.attestor_uids).toMatchObject({ log: log.uid });
  });

  it('the daemon signed a checkpoint at start, and one after each request that appended: the reply carries it, as co-located mode prints it', () => {
    expect(d.ready.checkpoint).toMatchObject({ error: null, written: [expect.objectContaining({ tree_size: logEntries(w.home) })] });
    early = { db: dbBytes(w.home), cp: newestNote(w.home) };
    expect(early.cp.size).toBe(logEntries(w.home));
    const created = as1(['unit', 'create', '--contract', w.contractFile, '--baseline', w.baseline]);
    expect(created.code, created.stdout + created.stderr).toBe(0);
    unit = jsonOut(created).unit as string;
    const cp = jsonOut(created).tlog_checkpoint as { written: { file: string; tree_size: number }[] };
    expect(cp.written).toHaveLength(1);
    expect(cp.written[0]!.tree_size).toBe(logEntries(w.home));
    expect(newestNote(w.home).size).toBe(logEntries(w.home));
    expect(as1(['writer', 'register', '--unit', unit, '--writer-session', 'agent-1']).code).toBe(0);
    const ch = as1(['review-challenge', '--unit', unit, '--writer-session', 'agent-1', '--stage', 'development', '--slot', 'clean']);
    const run = as1(['review-run', '--challenge', jsonOut(ch).challenge_id as string]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(newestNote(w.home).size).toBe(logEntries(w.home));
    // A read (status) appends nothing and signs nothing.
    const n = readdirSync(join(w.home, 'checkpoints')).length;
    const status = as1(['status', '--unit', unit]);
    expect(status.code, status.stdout + status.stderr).toBe(0);
    policyDigest = jsonOut(status).policyDigest as string;
    expect(jsonOut(status).tlog_checkpoint).toBeUndefined();
    expect(readdirSync(join(w.home, 'checkpoints')).length).toBe(n);
  }, 120_000);

  it('audit verify of a store copy checks the daemon-signed head: the current copy extends it; a copy older than it is refused', () => {
    const cp = newestNote(w.home);
    const parent = makeTempDir('gvd-sep4c-copy-');
    const current = materializeStoreCopy(parent, { dbGz: gzipSync(dbBytes(w.home)), checkpoint: cp });
    const stale = materializeStoreCopy(parent, { dbGz: gzipSync(early.db), checkpoint: null });
    try {
      const note = join(current.home, 'checkpoints', readdirSync(join(current.home, 'checkpoints'))[0] as string);
      const ok = root(['audit', 'verify', '--home', current.home, '--checkpoint', note, '--json']);
      expect(ok.code, ok.stdout + ok.stderr).toBe(0);
      expect(jsonOut(ok).checkpoints).toEqual([expect.objectContaining({ matches: true, log_entries: cp.size })]);
      const old = root(['audit', 'verify', '--home', stale.home, '--checkpoint', note, '--json']);
      expect(old.code).toBe(4);
      expect((jsonOut(old).failures as { code: string }[]).map((f) => f.code), old.stdout).toEqual(['tlog_log_truncated']);
    } finally {
      current.dispose();
      stale.dispose();
    }
  }, 60_000);

  it('a killed warm log attestor is restarted by its keeper (back-off) and the next appending request is checkpointed again', async () => {
    const [first] = logAttestorPids(w.base);
    expect(first).toBeDefined();
    process.kill(first as number, 'SIGKILL');
    // The keeper starts it again after its back-off (1 s first); wait for the new process, no fixed sleep.
    let next: number[] = [];
    for (let i = 0; i < 300; i++) {
      next = logAttestorPids(w.base).filter((p) => p !== first);
      if (next.length === 1) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(next).toHaveLength(1);
    // Until it announced itself a request would fail closed; retry the append until it signs.
    // A checkpoint step that met the attestor before it was ready failed closed with its code.
    let cp: { written: { tree_size: number }[]; error?: { code: string } } | undefined;
    const failedWith = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const r = as1(['writer', 'register', '--unit', unit, '--writer-session', `agent-r${i}`]);
      cp = jsonOut(r).tlog_checkpoint as typeof cp;
      if (cp?.error === undefined) {
        expect(r.code, r.stdout + r.stderr).toBe(0);
        break;
      }
      failedWith.add(cp.error.code);
      await new Promise((res) => setTimeout(res, 200));
    }
    expect([...failedWith].filter((c) => c !== 'runnerd_attestor_unavailable')).toEqual([]);
    expect(cp?.error).toBeUndefined();
    expect(cp?.written[0]?.tree_size).toBe(logEntries(w.home));
    expect(newestNote(w.home).size).toBe(logEntries(w.home));
  }, 120_000);

  describe('gate --runner against a stand-in daemon: the copy must extend the signed heads', () => {
    let fake: ChildProcess;
    let dir: string;
    let socket: string;
    let replyFile: string;
    let kept: string;
    beforeAll(async () => {
      dir = makeTempDir('gvd-sep4c-fake-');
      chmodSync(dir, 0o755);
      mkdirSync(join(dir, 's'), { mode: 0o755 });
      socket = join(dir, 's', 'fake.sock');
      replyFile = join(dir, 'reply.json');
      writeFileSync(replyFile, '{}');
      // The deploy side kept the daemon's current checkpoint (e.g. from its last gate).
      kept = join(deploy, 'kept.note');
      writeFileSync(kept, newestNote(w.home).note);
      chmodSync(kept, 0o644);
      fake = spawn(process.execPath, [join(REPO_ROOT, 'test', 'fixtures', 'runnerd', 'lying-daemon.mjs'), socket, replyFile], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve) => fake.stdout?.once('data', () => resolve()));
    });
    afterAll(async () => {
      const exited = new Promise((r) => fake.once('close', r));
      fake.kill('SIGTERM');
      await exited;
    });
    const serve = (db: Buffer, cp: { size: number; note: Buffer } | null): void => {
      const copy = { db_gz_b64: gzipSync(db).toString('base64'), ...(cp === null ? {} : { checkpoint: { size: cp.size, note_b64: cp.note.toString('base64') } }) };
      writeFileSync(replyFile, JSON.stringify({ ok: true, exit: 0, json: { ok: true }, human: '', store_copy: copy }));
    };
    const subject = (): string => runAs(NAMES.writer1, ['/usr/bin/git', '-C', w.repo.root, 'rev-parse', 'HEAD'], { env: { HOME: '/nonexistent' } }).stdout.trim();
    const gate = (extra: string[] = []): CliResult =>
      asUser(NAMES.writer1, ['gate', '--unit', unit, '--trust', join(deploy, 'trust.json'), '--policy-digest', policyDigest, '--subject', subject(), '--json', '--runner', socket, ...extra], { cwd: w.repo.root });
    const STALE_OR_MISMATCH = new Set(['runnerd_store_copy_stale', 'tlog_root_mismatch', 'tlog_checkpoint_untrusted', 'tlog_checkpoint_invalid']);

    it('the honest copy with the daemon\'s checkpoint, and with the kept one, is judged as the real daemon\'s (positive control)', () => {
      const real = asUser(NAMES.writer1, ['gate', '--unit', unit, '--trust', join(deploy, 'trust.json'), '--policy-digest', policyDigest, '--subject', subject(), '--json'], {
        cwd: w.repo.root,
        env: env(),
      });
      serve(dbBytes(w.home), newestNote(w.home));
      const out = makeTempDir('gvd-sep4c-out-');
      chownTree(out, idsOf(NAMES.writer1));
      const next = join(out, 'next.note');
      const g = gate(['--runner-checkpoint', kept, '--runner-checkpoint-out', next]);
      // The head to bring next time: the newest verified note the copy extends.
      expect(readFileSync(next)).toEqual(newestNote(w.home).note);
      expect(STALE_OR_MISMATCH.has(errCode(g) ?? '')).toBe(false);
      expect({ code: g.code, err: errCode(g), decision: jsonOut(g).decision }).toEqual({ code: real.code, err: errCode(real), decision: jsonOut(real).decision });
    });

    it('an older copy served with the newer checkpoint is runnerd_store_copy_stale (4)', () => {
      serve(early.db, newestNote(w.home));
      const g = gate();
      expect({ code: g.code, err: errCode(g) }).toEqual({ code: 4, err: 'runnerd_store_copy_stale' });
    });

    it('an older copy replayed with its own older checkpoint passes the copy check; the checkpoint the deploy side kept catches it (runnerd_store_copy_stale, 4)', () => {
      serve(early.db, early.cp);
      const replay = gate();
      expect(STALE_OR_MISMATCH.has(errCode(replay) ?? '')).toBe(false);
      const g = gate(['--runner-checkpoint', kept]);
      expect({ code: g.code, err: errCode(g) }).toEqual({ code: 4, err: 'runnerd_store_copy_stale' });
    });

    it('a checkpoint whose signature is not by a log key of the deploy trust root is refused (tlog_checkpoint_untrusted, 6)', () => {
      const cp = newestNote(w.home);
      const text = cp.note.toString('utf8');
      const last = text.trimEnd().split('\n').pop() as string;
      const sig = Buffer.from(last.split(' ').pop() as string, 'base64');
      sig.writeUInt8(sig.readUInt8(sig.length - 1) ^ 1, sig.length - 1);
      const forged = Buffer.from(text.replace(last, `${last.slice(0, last.lastIndexOf(' '))} ${sig.toString('base64')}`));
      serve(dbBytes(w.home), { size: cp.size, note: forged });
      const g = gate();
      expect({ code: g.code, err: errCode(g) }).toEqual({ code: 6, err: 'tlog_checkpoint_untrusted' });
    });
  });
});
