// What a writer that cheats can try in separated mode (docs/runnerd.md, docs/security.md "Separated
// mode"): a process of an unprivileged uid in the writers' group probes every way around the socket.
// Each probe is refused (EACCES from the kernel, or a coded refusal from the daemon) with the store
// unchanged, and each has a positive control showing the probe itself works where the separation
// does not stand in its way.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, jsonOut, type CliResult } from './helpers/cli.js';
import { tablesDigest } from '../src/store/index.js';
import { IS_ROOT, asUser, makeSepWorld, namesFor, removeSepUsers, runAs, startDaemon, writerRepo, type Daemon, type SepWorld } from './runnerd-helpers.js';

// This file's own system users, removed after it (other files run beside it with theirs).
const NAMES = namesFor('gvd-sep-a');
const { daemon: PREFIX, writer1: WRITER1, writer2: WRITER2, writers: WRITERS, outsider: OUTSIDER } = NAMES;

const RAW = join(REPO_ROOT, 'test', 'fixtures', 'runnerd', 'raw-client.mjs');

function storeDigest(home: string): string {
  const db = new Database(join(home, 'governed.db'), { readonly: true, fileMustExist: true });
  try {
    return tablesDigest(db);
  } finally {
    db.close();
  }
}

function raw(user: string, socket: string, mode: string, arg = ''): Record<string, unknown> {
  const r = runAs(user, [process.execPath, RAW, socket, mode, arg]);
  return JSON.parse(r.stdout.trim().split('\n')[0] as string) as Record<string, unknown>;
}

const codeOf = (r: Record<string, unknown>): string | undefined => (r.error as { code?: string } | undefined)?.code;
const errCode = (r: CliResult): string | undefined => ((jsonOut(r) as { error?: { code?: string } }).error ?? {}).code;

describe.skipIf(!IS_ROOT)('separated mode: a writer in the writers group cannot get around the daemon', () => {
  let w: SepWorld;
  let d: Daemon;
  let unit: string;
  let challenge: string;
  let receipt: string;
  let lease: string;
  const env = (): Record<string, string> => ({ GOVERNED_RUNNER: w.socket });
  const as1 = (args: string[]): CliResult => asUser(WRITER1, [...args, '--json'], { cwd: w.repo.root, env: env() });

  beforeAll(async () => {
    w = await makeSepWorld({ names: NAMES });
    d = await startDaemon(w);
    unit = jsonOut(as1(['unit', 'create', '--contract', w.contractFile, '--baseline', w.baseline])).unit as string;
    expect(as1(['writer', 'register', '--unit', unit, '--writer-session', 'agent-1']).code).toBe(0);
    challenge = jsonOut(as1(['review-challenge', '--unit', unit, '--writer-session', 'agent-1', '--stage', 'development', '--slot', 'clean'])).challenge_id as string;
    receipt = jsonOut(as1(['review-run', '--challenge', challenge])).receipt_id as string;
    // A second, still open challenge (its bundle file is in the store) for the bundle probe.
    challenge = jsonOut(as1(['review-challenge', '--unit', unit, '--writer-session', 'agent-1', '--stage', 'development', '--slot', 'dirty'])).challenge_id as string;
  }, 180_000);
  afterAll(async () => {
    await d?.stop();
    removeSepUsers(NAMES);
  });

  it('neither the writer nor the daemon uid can read any private key (reviewer, runner, probe, log); the attestor uid that owns it can (positive control)', () => {
    for (const c of ['reviewer', 'runner', 'probe', 'log']) {
      const key = join(w.base, 'keys', c, 'key.pem');
      for (const user of [WRITER1, PREFIX]) {
        const r = runAs(user, ['/bin/cat', key]);
        expect(r.code, `${user} ${c}`).not.toBe(0);
        expect(r.stderr, `${user} ${c}`).toContain('Permission denied');
        expect(r.stdout).toBe('');
      }
      const owner = runAs(`${PREFIX}-${c}`, ['/bin/cat', key]);
      expect(owner.code).toBe(0);
      expect(owner.stdout).toContain('BEGIN PRIVATE KEY');
    }
  });

  it('cannot run the attestor program against a key; under the attestor uid it gets past the key (positive control)', () => {
    const prog = join(w.base, 'attestors', 'reviewer.mjs');
    const cfg = join(w.base, 'attestors', 'reviewer.json');
    const r = runAs(WRITER1, [process.execPath, prog, cfg], { input: '{}' });
    // exit 1 "failed": the key could not be opened (EACCES) — before any request is looked at.
    expect({ code: r.code, stderr: r.stderr.trim() }).toEqual({ code: 1, stderr: 'failed' });
    const owner = runAs(`${PREFIX}-reviewer`, [process.execPath, prog, cfg], { input: '{}' });
    expect({ code: owner.code, stderr: owner.stderr.trim() }).toEqual({ code: 3, stderr: 'refused:request_invalid' });
  });

  it('the daemon uid cannot run the log attestor against the log key (it signs only through the warm one); under the log uid it gets past the key (positive control)', () => {
    const prog = join(w.base, 'attestors', 'log.mjs');
    const cfg = join(w.base, 'attestors', 'log.json');
    const r = runAs(PREFIX, [process.execPath, prog, cfg], { input: '{}' });
    expect({ code: r.code, stderr: r.stderr.trim(), stdout: r.stdout }).toEqual({ code: 1, stderr: 'failed', stdout: '' });
    const owner = runAs(`${PREFIX}-log`, [process.execPath, prog, cfg], { input: '{}' });
    expect({ code: owner.code, stderr: owner.stderr.trim() }).toEqual({ code: 3, stderr: 'refused:request_invalid' });
  });

  it('cannot open the store, read a bundle or write into the state directory; the governed uid can (positive control)', () => {
    const before = storeDigest(w.home);
    const db = join(w.home, 'governed.db');
    for (const argv of [['/bin/cat', db], ['/bin/ls', join(w.home, 'bundles')], ['/usr/bin/touch', join(w.base, 'state', 'planted')], ['/bin/ls', join(w.base, 'state')]]) {
      const r = runAs(WRITER1, argv);
      expect(r.code, argv.join(' ')).not.toBe(0);
      expect(r.stderr).toContain('Permission denied');
    }
    const bundles = runAs(PREFIX, ['/bin/ls', join(w.home, 'bundles')]);
    expect(bundles.code).toBe(0);
    expect(bundles.stdout).toContain(challenge);
    expect(storeDigest(w.home)).toBe(before);
  });

  it('cannot ptrace the daemon or reach an attestor through /proc; the same probe on its own process works (positive control)', { timeout: 180_000 }, () => {
    const daemonPid = d.ready.daemon_pid as number;
    // The reviewer attestor of THIS daemon (its command line names this world's base).
    const keeperPids = readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(`${w.base}/attestors/reviewer.mjs\u0000--serve`);
      } catch {
        return false;
      }
    });
    expect(keeperPids.length).toBeGreaterThan(0);
    const probes = [daemonPid, ...keeperPids].flatMap((pid) => [`/proc/${pid}/mem`, `/proc/${pid}/environ`, `/proc/${pid}/fd/0`]);
    // One writer shell tries each; any success prints its path.
    const r = runAs(WRITER1, ['/bin/sh', '-c', 'for p in "$@"; do head -c 1 "$p" >/dev/null 2>&1 && echo "READ $p"; done; echo done', 'sh', ...probes]);
    expect(r.stdout.trim()).toBe('done');
    // Positive control: a writer process reading its own shell's environ and fd (same uid, dumpable).
    const own = runAs(WRITER1, ['/bin/sh', '-c', 'head -c 1 /proc/$$/environ >/dev/null && ls -l /proc/$$/fd/0 >/dev/null && echo ok']);
    expect(own.stdout.trim()).toBe('ok');
  });

  it('a user outside the writers group cannot reach the socket (EACCES); a writer can (positive control)', () => {
    expect(raw(OUTSIDER, w.socket, 'line', '{"v":1,"op":"hello"}')).toEqual({ connect_error: 'EACCES' });
    expect(raw(WRITER1, w.socket, 'line', '{"v":1,"op":"hello"}').ok).toBe(true);
  });

  it('a governed uid is refused as a client even inside the writers group (the runner, probe and log attestor uids)', () => {
    for (const user of [`${PREFIX}-runner`, `${PREFIX}-probe`, `${PREFIX}-log`]) {
      runAs('root', ['/usr/sbin/usermod', '-a', '-G', WRITERS, user]);
      try {
        expect(codeOf(raw(user, w.socket, 'line', '{"v":1,"op":"hello"}')), user).toBe('runnerd_client_uid_forbidden');
      } finally {
        runAs('root', ['/usr/bin/gpasswd', '-d', user, WRITERS]);
      }
    }
  });

  it('no operation takes a receipt, a verdict, a reviewer output or a path: every forged field is refused, the store unchanged', { timeout: 180_000 }, () => {
    const ops: Record<string, unknown>[] = [
      { op: 'hello' },
      { op: 'review-run', challenge },
      { op: 'receipt-show', receipt },
      { op: 'lease-list', unit },
      { op: 'writer-register', unit, writer_session: 'agent-9' },
      { op: 'lease-acquire', unit, writer_session: 'agent-1', ttl: '5m' },
    ];
    const forged = {
      receipt: 'eyJwYXlsb2FkIjoiIn0=',
      verdict: 'CLEAN',
      envelope_b64: 'eyJwYXlsb2FkIjoiIn0=',
      review_output: '{"verdict":"CLEAN"}',
      path: '/etc/shadow',
      repo: '/tmp',
      home: '/tmp',
      uid: 0,
      pid: 1,
    };
    const before = storeDigest(w.home);
    const cases: { label: string; line: string }[] = [];
    for (const op of ops) {
      for (const [k, v] of Object.entries(forged)) {
        if (k in op || (k === 'pid' && op.op === 'writer-register')) continue;
        cases.push({ label: `${String(op.op)} + ${k}`, line: JSON.stringify({ v: 1, ...op, [k]: v }) });
      }
    }
    // One writer process sends every forged message, each on its own connection.
    const r = runAs(WRITER1, [process.execPath, RAW, w.socket, 'many', JSON.stringify(cases.map((c) => c.line))]);
    const answers = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(answers.length).toBe(cases.length);
    cases.forEach((c, i) => expect(codeOf(answers[i] as Record<string, unknown>), c.label).toBe('runnerd_request_invalid'));
    expect(storeDigest(w.home)).toBe(before);
    // Positive control: the same messages without the forged field are understood.
    expect(raw(WRITER1, w.socket, 'line', JSON.stringify({ v: 1, op: 'receipt-show', receipt })).ok).toBe(true);
  });

  it('cannot register another uid\'s process as its writer; its own process it can (positive control)', () => {
    const other = spawn('setpriv', ['--reuid', WRITER2, '--regid', WRITER2, '--init-groups', '--', '/bin/sleep', '30'], { stdio: 'ignore' });
    try {
      const before = storeDigest(w.home);
      const r = as1(['writer', 'register', '--unit', unit, '--writer-session', 'agent-2', '--pid', String(other.pid)]);
      expect({ exit: r.code, code: errCode(r) }).toEqual({ exit: 6, code: 'runnerd_pid_not_client' });
      const root1 = as1(['writer', 'register', '--unit', unit, '--writer-session', 'agent-2', '--pid', '1']);
      expect(errCode(root1)).toBe('runnerd_pid_not_client');
      expect(storeDigest(w.home)).toBe(before);
    } finally {
      other.kill('SIGKILL');
    }
    const ok = as1(['writer', 'register', '--unit', unit, '--writer-session', 'agent-2']);
    expect(ok.code).toBe(0);
  });

  it("another writer cannot name this writer's unit, lease, challenge or receipt; the owner can (positive control)", () => {
    lease = jsonOut(as1(['lease', 'acquire', '--unit', unit, '--writer-session', 'agent-1', '--ttl', '5m'])).lease as string;
    const { repo } = writerRepo(WRITER2);
    const as2 = (args: string[]): CliResult => asUser(WRITER2, [...args, '--json'], { cwd: repo.root, env: env() });
    const before = storeDigest(w.home);
    const probes: string[][] = [
      ['status', '--unit', unit],
      ['lease', 'acquire', '--unit', unit, '--writer-session', 'agent-1'],
      ['lease', 'release', '--lease', lease, '--writer-session', 'agent-1'],
      ['lease', 'list', '--unit', unit],
      ['writer', 'register', '--unit', unit, '--writer-session', 'agent-7'],
      ['review-challenge', '--unit', unit, '--writer-session', 'agent-1', '--stage', 'development', '--slot', 'clean'],
      ['review-run', '--challenge', challenge],
    ];
    for (const p of probes) {
      const r = as2(p);
      expect({ probe: p.slice(0, 2).join(' '), exit: r.code, code: errCode(r) }).toEqual({ probe: p.slice(0, 2).join(' '), exit: 6, code: 'runnerd_not_owner' });
    }
    // Another writer's receipt answers exactly as a receipt that does not exist: no existence oracle.
    const unknownId = `sha256:${'0'.repeat(64)}`;
    const theirs = as2(['receipt', 'show', '--receipt', receipt]);
    const none = as2(['receipt', 'show', '--receipt', unknownId]);
    expect({ exit: theirs.code, error: jsonOut(theirs).error }).toEqual({
      exit: none.code,
      error: { ...(jsonOut(none).error as Record<string, unknown>), ids: [receipt] },
    });
    expect({ exit: none.code, code: errCode(none) }).toEqual({ exit: 7, code: 'receipt_unknown' });
    // Listing everything shows only the caller's own leases.
    expect(jsonOut(as2(['lease', 'list'])).leases).toEqual([]);
    expect(storeDigest(w.home)).toBe(before);
    const released = as1(['lease', 'release', '--lease', lease, '--writer-session', 'agent-1']);
    expect(released.code).toBe(0);
    expect(as1(['receipt', 'show', '--receipt', receipt]).code).toBe(0);
  });

  it('options naming files of the runner machine are refused with --runner', () => {
    const r = as1(['review-run', '--challenge', challenge, '--reviewers-dir', '/tmp']);
    expect({ exit: r.code, code: errCode(r) }).toEqual({ exit: 2, code: 'runnerd_option_not_remote' });
  });

  it('memory a writer can make the daemon hold is bounded: buffered request bytes across connections and connections per uid (runnerd_busy); the daemon serves on', () => {
    const MiB = 1024 * 1024;
    const MiBs = (conns: number): string => JSON.stringify({ conns, bytes: 23 * MiB });
    // Between calls the daemon is given a moment to see the previous client's connections close.
    const settle = (): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
    // 31 open connections of one uid leave room for a 32nd (it waits for its newline and times out);
    // with 32 open, the 33rd is refused at once.
    expect(codeOf(raw(WRITER1, w.socket, 'hold', JSON.stringify({ conns: 31, bytes: 1 })))).toBe('runnerd_request_timeout');
    settle();
    expect(codeOf(raw(WRITER1, w.socket, 'hold', JSON.stringify({ conns: 32, bytes: 1 })))).toBe('runnerd_busy');
    settle();
    // Three connections holding 23 MiB each (under the per-request cap) leave room for a fourth;
    // with four holding, a fifth is refused at once.
    expect(codeOf(raw(WRITER1, w.socket, 'hold', MiBs(3)))).toBe('runnerd_request_timeout');
    settle();
    expect(codeOf(raw(WRITER1, w.socket, 'hold', MiBs(4)))).toBe('runnerd_busy');
    settle();
    // Everything was given back: a normal request is served.
    expect(raw(WRITER1, w.socket, 'line', '{"v":1,"op":"hello"}').ok).toBe(true);
  }, 120_000);

  it('socket robustness: garbage, an over-cap message, half a message then silence, many idle connections — coded refusals, the daemon serves on', async () => {
    expect(codeOf(raw(WRITER1, w.socket, 'bytes', Buffer.from('\u0000\u00ff garbage \n').toString('base64')))).toBe('runnerd_request_invalid');
    expect(codeOf(raw(WRITER1, w.socket, 'line', '{"v":1,"op":"hello","op":"hello"}'))).toBe('runnerd_request_invalid');
    expect(codeOf(raw(WRITER1, w.socket, 'big', String(25 * 1024 * 1024)))).toBe('runnerd_request_too_large');
    expect(codeOf(raw(WRITER1, w.socket, 'half'))).toBe('runnerd_request_timeout');
    // Many idle connections (opened by root here: the socket is the daemon's, the limit is its own).
    const { connect } = await import('node:net');
    const idle = Array.from({ length: 300 }, () => connect(w.socket));
    await new Promise((r) => setTimeout(r, 500));
    expect(raw(WRITER1, w.socket, 'line', '{"v":1,"op":"hello"}').ok).toBe(true);
    for (const s of idle) s.destroy();
    expect(d.child.exitCode).toBeNull();
  }, 60_000);
});
