// The daemon's life (docs/runnerd.md "Reliability"): kill -9 at random points and a restart reaps
// every claim to ABORTED, each challenge ends as exactly one receipt or one ABORTED, and `audit
// verify` passes (trials: GOVERNED_RUNNERD_KILL_TRIALS, default 3; the release check runs 200);
// a client that disconnects mid-run does not stop the run; SIGTERM drains (the running review
// finishes, the daemon exits 0); a writer repository whose git config, hooks, attributes and
// filters all point at a marker program never runs it.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { makeTempDir } from './helpers/temp.js';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, jsonOut, type CliResult } from './helpers/cli.js';
import { IS_ROOT, asUser, chownTree, idsOf, makeSepWorld, namesFor, removeSepUsers, runAs, startDaemon, type Daemon, type SepWorld } from './runnerd-helpers.js';

// This file's own system users, removed after it (other files run beside it with theirs).
const NAMES = namesFor('gvd-sep-l');
const { daemon: PREFIX, writer1: WRITER1 } = NAMES;

const TRIALS = Number(process.env.GOVERNED_RUNNERD_KILL_TRIALS ?? '3');

function runRow(home: string, challenge: string): string | null {
  const db = new Database(join(home, 'governed.db'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT status FROM runs WHERE challenge_id = ?').pluck().get(challenge) as string | undefined) ?? null;
  } finally {
    db.close();
  }
}

function asUserAsync(user: string, args: readonly string[], opts: { cwd: string; env: Record<string, string> }): { done: Promise<CliResult>; pid: () => number | undefined; kill: () => void } {
  const child = spawn('setpriv', ['--reuid', user, '--regid', user, '--init-groups', '--', '/bin/sh', '-c', '"$@"; exit $?', 'sh', process.execPath, CLI, ...args], {
    cwd: opts.cwd,
    env: { PATH: '/usr/bin:/bin', NO_COLOR: '1', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const done = new Promise<CliResult>((resolve) => child.on('close', (code) => resolve({ code, stdout: out, stderr: err })));
  return { done, pid: () => child.pid, kill: () => child.kill('SIGKILL') };
}

describe.skipIf(!IS_ROOT)('runnerd lifecycle: kill -9, restart, disconnects, SIGTERM', () => {
  let w: SepWorld;
  let d: Daemon;
  let unit: string;
  const env = (): Record<string, string> => ({ GOVERNED_RUNNER: w.socket });
  const as1 = (args: string[]): CliResult => asUser(WRITER1, [...args, '--json'], { cwd: w.repo.root, env: env() });
  const issue = (slot: string): string => {
    const r = as1(['review-challenge', '--unit', unit, '--writer-session', 'agent-1', '--stage', 'development', '--slot', slot]);
    if (r.code !== 0) throw new Error(`challenge: ${r.stdout} ${r.stderr}`);
    return jsonOut(r).challenge_id as string;
  };

  beforeAll(async () => {
    w = await makeSepWorld({ names: NAMES });
    d = await startDaemon(w);
    unit = jsonOut(as1(['unit', 'create', '--contract', w.contractFile, '--baseline', w.baseline])).unit as string;
    expect(as1(['writer', 'register', '--unit', unit, '--writer-session', 'agent-1']).code).toBe(0);
  }, 180_000);
  afterAll(async () => {
    try {
      await d?.stop();
    } finally {
      removeSepUsers(NAMES);
    }
  });

  it(`kill -9 at a random point of a run, then restart: the claim is reaped ABORTED, audit verify passes (${TRIALS} trials)`, async () => {
    for (let t = 0; t < TRIALS; t++) {
      const challenge = issue('sleep');
      const run = asUserAsync(WRITER1, ['review-run', '--challenge', challenge, '--json'], { cwd: w.repo.root, env: env() });
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 2500)));
      await d.stop('SIGKILL');
      await run.done;
      d = await startDaemon(w);
      const status = runRow(w.home, challenge);
      if (status === null) {
        // Killed before the claim: the challenge is still open and ends as one receipt now.
        const again = as1(['review-run', '--challenge', challenge]);
        expect(again.code).toBe(0);
        expect(runRow(w.home, challenge)).toBe('receipt');
      } else {
        expect(['receipt', 'aborted']).toContain(status);
      }
      // As the governed uid (the store is its own, 0700): the same verifier every auditor runs.
      const audit = runAs(PREFIX, [process.execPath, CLI, 'audit', 'verify', '--home', w.home, '--json']);
      expect(audit.code, audit.stdout).toBe(0);
    }
  }, 120_000 + TRIALS * 90_000);

  /** Until the daemon has claimed the run (no fixed delay: the machine may be loaded). */
  const claimed = async (challenge: string): Promise<void> => {
    for (let i = 0; i < 300 && runRow(w.home, challenge) === null; i++) await new Promise((r) => setTimeout(r, 100));
    expect(runRow(w.home, challenge)).toBe('claimed');
  };

  it('a client that disconnects mid-run does not stop the run: it ends as one receipt', async () => {
    const challenge = issue('sleep');
    const run = asUserAsync(WRITER1, ['review-run', '--challenge', challenge, '--json'], { cwd: w.repo.root, env: env() });
    await claimed(challenge);
    run.kill();
    await run.done;
    for (let i = 0; i < 100 && runRow(w.home, challenge) !== 'receipt'; i++) await new Promise((r) => setTimeout(r, 200));
    expect(runRow(w.home, challenge)).toBe('receipt');
    expect(d.child.exitCode).toBeNull();
  }, 180_000);

  it('SIGTERM drains: the running review finishes with its receipt, the daemon exits 0', async () => {
    const challenge = issue('sleep');
    const run = asUserAsync(WRITER1, ['review-run', '--challenge', challenge, '--json'], { cwd: w.repo.root, env: env() });
    await claimed(challenge);
    try {
      const code = await d.stop('SIGTERM');
      const r = await run.done;
      expect(code).toBe(0);
      expect(jsonOut(r).verdict).toBe('CLEAN');
      expect(runRow(w.home, challenge)).toBe('receipt');
    } finally {
      d = await startDaemon(w);
    }
  }, 180_000);

  it('a killed warm attestor is restarted by its keeper and the next run signs', async () => {
    const pids = spawn('pgrep', ['-u', String(idsOf(`${PREFIX}-reviewer`).uid), '-f', '--', `${w.base}/attestors/reviewer\\.mjs --serve`]);
    let out = '';
    pids.stdout.on('data', (c: Buffer) => (out += c.toString()));
    await new Promise((r) => pids.on('close', r));
    const attestor = out.trim().split('\n').filter((x) => x !== '').map(Number);
    expect(attestor.length).toBe(1);
    process.kill(attestor[0] as number, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 3000));
    const challenge = issue('clean');
    const r = as1(['review-run', '--challenge', challenge]);
    expect(jsonOut(r).verdict).toBe('CLEAN');
  }, 180_000);

  it("a writer repository whose config, hooks, attributes and filters point at a marker program never runs it", async () => {
    const markDir = makeTempDir('gvd-sep-marker-');
    chmodSync(markDir, 0o777);
    const marker = join(markDir, 'ran');
    const prog = join(markDir, 'mark.sh');
    writeFileSync(prog, `#!/bin/sh\necho "$(id -u) $0 $*" >> ${marker}\ncat\n`);
    chmodSync(prog, 0o755);
    const g = w.repo.root;
    const cfg = [
      `[core]\n\tfsmonitor = ${prog}\n\thooksPath = ${join(g, '.git', 'hooks')}\n\tsshCommand = ${prog}\n\tpager = ${prog}\n\tattributesFile = ${join(g, '.git', 'evil-attributes')}\n\tuntrackedCache = true\n`,
      `[filter "evil"]\n\tclean = ${prog}\n\tsmudge = ${prog}\n\tprocess = ${prog}\n\trequired = true\n`,
      `[diff "evil"]\n\ttextconv = ${prog}\n\tcommand = ${prog}\n`,
      `[alias]\n\tls-files = !${prog}\n\tfast-import = !${prog}\n\tpack-objects = !${prog}\n`,
      `[pager]\n\tlog = ${prog}\n`,
    ].join('');
    writeFileSync(join(g, '.git', 'config'), `[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n${cfg}`);
    writeFileSync(join(g, '.git', 'evil-attributes'), '* filter=evil diff=evil\n');
    mkdirSync(join(g, '.git', 'hooks'), { recursive: true });
    for (const h of ['pre-commit', 'post-checkout', 'post-commit', 'reference-transaction', 'post-index-change', 'pre-push', 'fsmonitor-watchman']) {
      writeFileSync(join(g, '.git', 'hooks', h), `#!/bin/sh\nexec ${prog} hook-${h}\n`);
      chmodSync(join(g, '.git', 'hooks', h), 0o755);
    }
    mkdirSync(join(g, '.git', 'info'), { recursive: true });
    writeFileSync(join(g, '.git', 'info', 'attributes'), '* filter=evil diff=evil\n');
    chownTree(g, idsOf(WRITER1));
    // The whole separated flow on that repository.
    const challenge = issue('clean');
    const r = as1(['review-run', '--challenge', challenge]);
    expect(jsonOut(r).verdict).toBe('CLEAN');
    expect(as1(['status', '--unit', unit]).code).not.toBe(1);
    expect(existsSync(marker)).toBe(false);
    // Positive control: the same repository DOES run the marker under plain git.
    const plain = asUser(WRITER1, [], { cwd: g });
    void plain;
    const { spawnSync } = await import('node:child_process');
    spawnSync('setpriv', ['--reuid', WRITER1, '--regid', WRITER1, '--init-groups', '--', 'git', 'status'], { cwd: g, env: { PATH: '/usr/bin:/bin', HOME: '/nonexistent' }, stdio: 'ignore' });
    expect(existsSync(marker)).toBe(true);
  }, 120_000);
});
