// Check slots on the sandbox host (docs/runnerd.md#check-slots-on-the-sandbox-host). Real users
// (prefix gvd-sep6-), real daemon, real bwrap with the check profile, the real pinned check adapter.
//  - the checking tool runs under the policy's sandbox uid with no groups (the kernel's view of the
//    process while it runs), and the receipt says trust_mode separated, uid_separated true;
//  - the walls: the sealed trees live in <dir>/sealed (daemon uid, sandbox gid, 0710); as the sandbox
//    uid they can be read but not listed, written, chmodded or renamed; a writer cannot even reach
//    them; the store, state directory and keys stay EACCES for the sandbox uid. Positive control: the
//    daemon's uid (the trees' owner) can change a sealed file — and when it does mid-run, the daemon's
//    re-walk catches it: snapshot_altered, ABORTED, no receipt;
//  - a preservation probe through the daemon runs its adapter (and the project entry it probes) on
//    the host too: the entry's process, seen from outside, is the sandbox uid with no groups;
//  - the host's side refuses a tree it could write itself, or one not a directory (unit level).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chownSync, chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, jsonOut, REPO_ROOT } from './helpers/cli.js';
import { stringify } from 'yaml';
import { makeKey } from './helpers/receipts.js';
import { makeTempDir } from './helpers/temp.js';
import { contractDoc, SOURCE_TEXT } from './state-helpers.js';
import { asUser, chownTree, idsOf, IS_ROOT, makeSepWorld, namesFor, removeSepUsers, REVIEWER_FIXTURE, runAs, startDaemon, type Daemon, type SepWorld } from './runnerd-helpers.js';
import { catchesUsr2, NODE, releaseUsr2 } from './sandbox-helpers.js';
import { hostsCheck, openCheckTrees, prepareSealedDir, sealedDirOf } from '../src/flows/runnerd/sandbox-host-check.js';
import { sandboxHostJobSchema, type SandboxHostJob } from '../src/core/sandbox-host-protocol.js';
import { CHECK_DEPENDENCY_ROOT_MAX_CHARS } from '../src/core/limits.js';

const SANDBOX_UID = 64500;
const NAMES = namesFor('gvd-sep6');
const NAMES_PROBE = namesFor('gvd-sep6p');
const MARK = 'gvd-sep6-tool';
const TOOL = "const t = setTimeout(() => {}, 15000); process.on('SIGUSR2', () => clearTimeout(t));";
const ADAPTER = join(REPO_ROOT, 'runner', 'reviewers', 'check-tests.mjs');
const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

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

function descendsFrom(pid: number, ancestor: number): boolean {
  for (let p = pid, i = 0; p > 1 && i < 64; i++) {
    const status = (() => {
      try {
        return readFileSync(`/proc/${p}/status`, 'latin1');
      } catch {
        return null;
      }
    })();
    if (status === null) return false;
    p = Number(/^PPid:\s*(\d+)/m.exec(status)?.[1] ?? 0);
    if (p === ancestor) return true;
  }
  return false;
}

/** The processes (descendants of `host`) whose command line holds MARK: the checking tool. */
function toolPids(host: number): number[] {
  const out: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(e)) continue;
    let cmd = '';
    try {
      cmd = readFileSync(`/proc/${e}/cmdline`, 'latin1');
    } catch {
      continue;
    }
    if (cmd.includes(MARK) && descendsFrom(Number(e), host)) out.push(Number(e));
  }
  return out;
}

/** Run `argv` as the bare sandbox uid/gid with no supplementary groups (a tool outside its walls). */
function asSandboxUid(argv: readonly string[]): { code: number | null; stderr: string; stdout: string } {
  const r = spawnSync('setpriv', ['--reuid', String(SANDBOX_UID), '--regid', String(SANDBOX_UID), '--clear-groups', '--', ...argv], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' }, timeout: 60_000 });
  return { code: r.status, stderr: r.stderr, stdout: r.stdout };
}

function payloadOf(envelopeB64: string): Record<string, unknown> {
  const envelope = JSON.parse(Buffer.from(envelopeB64, 'base64').toString('utf8')) as { payload: string };
  return (JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as { predicate: Record<string, unknown> }).predicate;
}

const until = async (f: () => boolean, ms: number): Promise<boolean> => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (f()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return f();
};

describe.skipIf(!IS_ROOT)('runnerd: check slots run on the sandbox host, under the policy sandbox uid', () => {
  let w: SepWorld;
  let d: Daemon;
  let unit: string;
  const env = (): Record<string, string> => ({ GOVERNED_RUNNER: w.socket });
  const W1 = NAMES.writer1;
  const sealedDir = (): string => sealedDirOf(w.base);
  const count = (sql: string): number => {
    const db = new Database(join(w.home, 'governed.db'), { readonly: true });
    try {
      return db.prepare(sql).pluck().get() as number;
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    removeSepUsers(NAMES);
    const reviewerSha = sha256(readFileSync(REVIEWER_FIXTURE));
    // The tool waits until the test has looked (SIGUSR2 from outside; at most 15 s, well inside the
    // policy's 20 s timeout), so no step depends on a guess at how long the looking takes. Its
    // command line carries MARK.
    const check = { sha256: sha256(readFileSync(ADAPTER)), interpreter: NODE, env: {}, check: { adapter: 'check-tests', command: [NODE, '-e', TOOL, MARK], report: 'exit-code' } };
    w = await makeSepWorld({
      names: NAMES,
      modes: ['clean'],
      checkProfile: true,
      extraReviewerFiles: [ADAPTER],
      policy: {
        max_runs_per_content: 1000,
        stages: { development: { required: false, streak: 2, slots: { clean: 'clean', chk: 'chk', chk2: 'chk' } } },
        reviewers: { clean: { sha256: reviewerSha, interpreter: NODE, env: { REVIEW_MODE: 'clean' } }, chk: check },
      },
    });
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

  /** review-run as the writer, in the background. */
  const startRun = (c: string): { done: Promise<number | null>; out: () => string } => {
    const child = spawn('setpriv', ['--reuid', W1, '--regid', W1, '--init-groups', '--', process.execPath, CLI, 'review-run', '--challenge', c, '--json'], {
      cwd: w.repo.root,
      env: { PATH: '/usr/bin:/bin', GOVERNED_RUNNER: w.socket },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    return { done: new Promise((r) => child.on('close', (code) => r(code))), out: () => out };
  };

  /** This run's sealed snapshot (the one seal root in the daemon's sealed directory). */
  const sealedSnapshot = (): string | null => {
    const roots = readdirSync(sealedDir()).filter((n) => /^governed-sealed-RUN-[0-9a-f]{32}-/.test(n));
    if (roots.length !== 1) return null;
    const snap = join(sealedDir(), roots[0] as string, 'snapshot');
    return existsSync(join(snap, 'src', 'export.ts')) ? snap : null;
  };

  it('the sealed directory is daemon uid, sandbox gid, 0710, and empty at start', () => {
    const st = lstatSync(sealedDir());
    expect({ dir: st.isDirectory(), uid: st.uid, gid: st.gid, mode: st.mode & 0o7777 }).toEqual({ dir: true, uid: idsOf(NAMES.daemon).uid, gid: SANDBOX_UID, mode: 0o710 });
    expect(readdirSync(sealedDir())).toEqual([]);
  });

  it('a check run: the tool is the sandbox uid with no groups; the sealed tree is readable but not writable by it and unreachable by the writer; the receipt says uid_separated', async () => {
    const c = challenge('chk');
    const receiptsBefore = count('SELECT count(*) FROM receipts');
    const run = startRun(c);
    const host = d.ready.sandbox_host_pid as number;
    expect(await until(() => toolPids(host).some(catchesUsr2) && sealedSnapshot() !== null, 60_000)).toBe(true);
    const seen = toolPids(host).map(procIds).filter((x) => x !== null);
    // The tool waits for SIGUSR2 before it exits: it is still there to be seen.
    expect(seen.length).toBeGreaterThan(0);
    for (const s of seen) {
      expect(s.uids).toEqual([SANDBOX_UID, SANDBOX_UID, SANDBOX_UID, SANDBOX_UID]);
      expect(s.gids).toEqual([SANDBOX_UID, SANDBOX_UID, SANDBOX_UID, SANDBOX_UID]);
      expect(s.groups).toEqual([]);
    }
    const snap = sealedSnapshot() as string;
    const file = join(snap, 'src', 'export.ts');
    const bytes = readFileSync(file);
    // The sandbox uid outside its walls: it may read the tree (the tool must), but not change it.
    expect(asSandboxUid(['cat', file]).code).toBe(0);
    for (const probe of [
      ['sh', '-c', `echo x >> '${file}'`],
      ['touch', join(snap, 'planted')],
      ['chmod', '644', file],
      ['mv', file, join(snap, 'moved')],
      ['rm', '-f', file],
      ['ls', sealedDir()],
      ['touch', join(sealedDir(), 'planted')],
    ]) {
      const r = asSandboxUid(probe);
      expect(r.code, probe.join(' ')).not.toBe(0);
      expect(r.stderr, probe.join(' ')).toMatch(/Permission denied|Operation not permitted/);
    }
    // A writer cannot reach the trees at all.
    for (const probe of [['cat', file], ['ls', sealedDir()]]) {
      const r = runAs(W1, probe);
      expect(r.code, probe.join(' ')).not.toBe(0);
      expect(r.stderr, probe.join(' ')).toMatch(/Permission denied/);
    }
    expect(readFileSync(file)).toEqual(bytes);
    expect(existsSync(join(snap, 'planted'))).toBe(false);
    releaseUsr2(toolPids(host).filter(catchesUsr2));
    const code = await run.done;
    expect(code, run.out()).toBe(0);
    const result = JSON.parse(run.out()) as { verdict: string; receipt_id: string };
    expect(result.verdict).toBe('CLEAN');
    expect(count('SELECT count(*) FROM receipts')).toBe(receiptsBefore + 1);
    const shown = asUser(W1, ['receipt', 'show', '--receipt', result.receipt_id, '--json'], { cwd: w.repo.root, env: env() });
    expect(shown.code).toBe(0);
    const p = payloadOf(jsonOut(shown).envelope_b64 as string);
    expect(p.trust_mode).toBe('separated');
    expect(p.sandbox).toMatchObject({ uid: SANDBOX_UID, uid_separated: true });
    expect(p.check).toBeDefined();
    // The run's trees are gone once it ended.
    expect(readdirSync(sealedDir())).toEqual([]);
  }, 180_000);

  it('the sandbox uid still reaches nothing of the daemon: store, state directory and keys are EACCES; their owners can (positive control)', () => {
    const db = join(w.home, 'governed.db');
    const keys = ['reviewer', 'runner'].map((k) => join(w.base, 'keys', k, 'key.pem'));
    for (const probe of [['cat', db], ['ls', join(w.base, 'state')], ...keys.map((k) => ['cat', k])]) {
      const r = asSandboxUid(probe);
      expect(r.code, probe.join(' ')).not.toBe(0);
      expect(r.stderr, probe.join(' ')).toMatch(/Permission denied/);
    }
    expect(runAs(NAMES.daemon, ['cat', db]).code).toBe(0);
    expect(runAs(`${NAMES.daemon}-reviewer`, ['cat', keys[0] as string]).code).toBe(0);
  });

  it('a sealed file changed mid-run by its owner (the daemon uid, positive control of the walls): snapshot_altered, ABORTED, no receipt, nothing CLEAN', async () => {
    const c = challenge('chk2');
    const receiptsBefore = count('SELECT count(*) FROM receipts');
    const cleanBefore = count("SELECT count(*) FROM receipts WHERE verdict = 'CLEAN'");
    const run = startRun(c);
    const host = d.ready.sandbox_host_pid as number;
    expect(await until(() => toolPids(host).some(catchesUsr2) && sealedSnapshot() !== null, 60_000)).toBe(true);
    const file = join(sealedSnapshot() as string, 'src', 'export.ts');
    // What the sandbox uid cannot do, the tree's owner can.
    const edit = runAs(NAMES.daemon, ['sh', '-c', `chmod u+w '${file}' && echo 'export const csv = 0;' > '${file}' && chmod 444 '${file}'`]);
    expect(edit.code, edit.stderr).toBe(0);
    releaseUsr2(toolPids(host).filter(catchesUsr2));
    const code = await run.done;
    const out = jsonOut({ code, stdout: run.out(), stderr: '' });
    expect({ exit: code, verdict: out.verdict, code: (out.error as { code: string }).code }).toEqual({ exit: 4, verdict: 'ABORTED', code: 'snapshot_altered' });
    expect(count('SELECT count(*) FROM receipts')).toBe(receiptsBefore);
    expect(count("SELECT count(*) FROM receipts WHERE verdict = 'CLEAN'")).toBe(cleanBefore);
    expect(count(`SELECT count(*) FROM runs WHERE challenge_id = '${c}' AND status = 'aborted' AND abort_code = 'snapshot_altered'`)).toBe(1);
    expect(readdirSync(sealedDir())).toEqual([]);
  }, 180_000);
});

describe.skipIf(!IS_ROOT)('runnerd: a preservation probe runs its adapter on the sandbox host', () => {
  let w: SepWorld;
  let d: Daemon;
  let repo: string;
  let dir1: string;
  let scratch: string;
  let baseline: string;
  const ADAPTER_P = join(REPO_ROOT, 'runner', 'preservation', 'node-adapter.mjs');
  const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t', HOME: '/nonexistent', PATH: '/usr/bin:/bin' };
  const git = (cwd: string, ...args: string[]): string => spawnSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).stdout.trim();
  // The probed entry: its --help waits until the test has looked (SIGUSR2; at most 12 s, inside the
  // adapter's and the policy's limits), then lists its commands.
  const GREET = `#!/usr/bin/env node\nconst help = () => process.stdout.write('usage: greet\\n\\nCommands:\\n  hello   say hello\\n');\nif (process.argv.includes('--help')) { const t = setTimeout(help, 12000); process.on('SIGUSR2', () => { clearTimeout(t); help(); }); } else process.stdout.write('hello\\n');\n`;
  const as1 = (args: string[], cwd: string): ReturnType<typeof asUser> => asUser(NAMES_PROBE.writer1, [...args, '--json'], { cwd, env: { GOVERNED_RUNNER: w.socket } });

  beforeAll(async () => {
    removeSepUsers(NAMES_PROBE);
    scratch = makeTempDir('gvd-sep6-keys-');
    const probeKey = makeKey(join(scratch, 'k'), 'probe');
    w = await makeSepWorld({ names: NAMES_PROBE, modes: ['clean'], probe: { key: probeKey, adapterSha256: sha256(readFileSync(ADAPTER_P)) } });
    d = await startDaemon(w);
    repo = makeTempDir('gvd-sep6-repo-');
    for (const sub of ['bin', 'requests', 'src']) mkdirSync(join(repo, sub));
    writeFileSync(join(repo, 'requests', 'export.md'), SOURCE_TEXT);
    writeFileSync(join(repo, 'src', 'export.ts'), 'export const csv = "baseline";\n');
    writeFileSync(join(repo, 'src', 'util.ts'), 'export const util = 1;\n');
    writeFileSync(join(repo, 'package.json'), JSON.stringify({ name: 'greeter', version: '1.0.0', type: 'module', bin: { greet: 'bin/greet.js' } }));
    writeFileSync(join(repo, 'bin', 'greet.js'), GREET);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'baseline');
    baseline = git(repo, 'rev-parse', 'HEAD');
    chownTree(repo, idsOf(NAMES_PROBE.writer1));
    chmodSync(repo, 0o700);
    dir1 = makeTempDir('gvd-sep6-w1-');
    writeFileSync(join(dir1, 'contract.json'), JSON.stringify(contractDoc()));
    writeFileSync(join(dir1, 'adapter.mjs'), readFileSync(ADAPTER_P));
    chownTree(dir1, idsOf(NAMES_PROBE.writer1));
    chmodSync(dir1, 0o700);
  }, 240_000);
  afterAll(async () => {
    await d?.stop();
    removeSepUsers(NAMES_PROBE);
    for (const x of [scratch, dir1, repo]) if (x !== undefined) rmSync(x, { recursive: true, force: true });
  });

  it('the probed entry runs as the sandbox uid with no groups, a descendant of the sandbox host; the probe is recorded, its trees removed', async () => {
    const created = as1(['unit', 'create', '--contract', join(dir1, 'contract.json'), '--baseline', baseline], repo);
    expect(created.code, created.stdout + created.stderr).toBe(0);
    const unit = jsonOut(created).unit as string;
    const preservation = stringify({
      kind: 'governed/preservation-contract',
      version: 1,
      baseline,
      intent: 'Keep the greet command.',
      surfaces: [{ id: 'SURF-cli', kind: 'cli_command', paths: ['bin', 'package.json'], disposition: 'preserve', probe: 'bin:greet', baseline_evidence_id: 'EVD-cli-b', current_evidence_id: 'EVD-cli-c' }],
      vendor_sources: [],
    });
    writeFileSync(join(dir1, 'preservation.yaml'), preservation);
    chownTree(join(dir1, 'preservation.yaml'), idsOf(NAMES_PROBE.writer1));
    const set = as1(['preservation', 'set', '--unit', unit, '--contract', join(dir1, 'preservation.yaml')], repo);
    expect(set.code, set.stdout + set.stderr).toBe(0);
    const child = spawn(
      'setpriv',
      ['--reuid', NAMES_PROBE.writer1, '--regid', NAMES_PROBE.writer1, '--init-groups', '--', process.execPath, CLI, 'preservation', 'probe', '--unit', unit, '--phase', 'current', '--adapter', join(dir1, 'adapter.mjs'), '--json'],
      { cwd: repo, env: { PATH: '/usr/bin:/bin', GOVERNED_RUNNER: w.socket }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    const done = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    const host = d.ready.sandbox_host_pid as number;
    const entryPids = (): number[] =>
      readdirSync('/proc')
        .filter((e) => /^[0-9]+$/.test(e))
        .filter((e) => {
          try {
            return readFileSync(`/proc/${e}/cmdline`, 'latin1').includes('bin/greet.js') && descendsFrom(Number(e), host);
          } catch {
            return false;
          }
        })
        .map(Number);
    expect(await until(() => entryPids().some(catchesUsr2), 60_000)).toBe(true);
    const seen = entryPids().map(procIds).filter((x) => x !== null);
    expect(seen.length).toBeGreaterThan(0);
    for (const s of seen) {
      expect(s.uids).toEqual([SANDBOX_UID, SANDBOX_UID, SANDBOX_UID, SANDBOX_UID]);
      expect(s.groups).toEqual([]);
    }
    releaseUsr2(entryPids().filter(catchesUsr2));
    expect(await done, out).toBe(0);
    expect(jsonOut({ code: 0, stdout: out, stderr: '' })).toMatchObject({ ok: true, unit, phase: 'current', probes: [{ surface: 'SURF-cli', exit_code: 0, capabilities: ['command:hello'] }] });
    expect(readdirSync(sealedDirOf(w.base))).toEqual([]);
  }, 180_000);
});

describe('the host opens a job sealed tree only when it cannot change it', () => {
  const made: string[] = [];
  afterAll(() => {
    for (const m of made) rmSync(m, { recursive: true, force: true });
  });
  const job = (snapshot: string): SandboxHostJob => ({ check: { snapshot, dependencies: null, dependency_root: null } }) as unknown as SandboxHostJob;
  const fresh = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'gvd-sep6-'));
    made.push(d);
    return d;
  };

  it.skipIf(!IS_ROOT)('a tree owned by another uid, 0555: opened (positive control); group-writable, its own, or a symlink: sandbox_argument_invalid [check]', () => {
    const base = fresh();
    const tree = join(base, 'snapshot');
    mkdirSync(tree);
    chownSync(tree, 64531, 64531);
    chmodSync(tree, 0o555);
    const ok = openCheckTrees(job(tree));
    expect(typeof ok.part.check?.snapshotFd).toBe('number');
    ok.close();
    const refused = (p: string): void => {
      let code = '';
      try {
        openCheckTrees(job(p)).close();
      } catch (e) {
        code = `${(e as { code: string }).code}:${(e as { ids: string[] }).ids.join(',')}`;
      }
      expect(code, p).toBe('sandbox_argument_invalid:check');
    };
    chmodSync(tree, 0o575);
    refused(tree);
    chmodSync(tree, 0o555);
    chownSync(tree, 0, 0); // this process's own uid: it could write it
    refused(tree);
    const link = join(base, 'link');
    const other = join(base, 'other');
    mkdirSync(other);
    chownSync(other, 64531, 64531);
    chmodSync(other, 0o555);
    symlinkSync(other, link);
    refused(link);
    refused(join(base, 'absent'));
  });

  it.skipIf(!IS_ROOT)('prepareSealedDir: 0710 daemon:sandbox gid, a previous read-only tree removed, a symlink refused', () => {
    const base = fresh();
    const leftover = join(base, 'sealed', 'governed-sealed-RUN-x', 'snapshot');
    mkdirSync(leftover, { recursive: true });
    writeFileSync(join(leftover, 'f'), 'x');
    chmodSync(leftover, 0o555);
    const dir = prepareSealedDir(base, 64531, 64532);
    const st = lstatSync(dir);
    expect({ uid: st.uid, gid: st.gid, mode: st.mode & 0o7777, entries: readdirSync(dir) }).toEqual({ uid: 64531, gid: 64532, mode: 0o710, entries: [] });
    const base2 = fresh();
    symlinkSync(fresh(), join(base2, 'sealed'));
    let code = '';
    try {
      prepareSealedDir(base2, 64531, 64532);
    } catch (e) {
      code = (e as { code: string }).code;
    }
    expect(code).toBe('runnerd_state_unsafe');
  });
});

describe('which check runs the daemon hands to its host, and the job part that carries them', () => {
  const dir = '/var/lib/governed/sealed';
  const root = `${dir}/governed-sealed-RUN-${'a'.repeat(32)}-Ab12Cd`;
  const probeRoot = `${dir}/governed-sealed-probe-Zz09Yy`;

  it('only trees directly in one seal root of the sealed directory (check or probe); never without a directory', () => {
    expect(hostsCheck(dir, { snapshot: `${root}/snapshot`, dependencies: null })).toBe(true);
    expect(hostsCheck(dir, { snapshot: `${root}/snapshot`, dependencies: `${root}/dependencies` })).toBe(true);
    expect(hostsCheck(dir, { snapshot: `${probeRoot}/snapshot`, dependencies: `${probeRoot}/deps` })).toBe(true);
    expect(hostsCheck(null, { snapshot: `${root}/snapshot`, dependencies: null })).toBe(false);
    expect(hostsCheck(dir, undefined)).toBe(false);
    for (const snapshot of [`/tmp/governed-sealed-RUN-${'a'.repeat(32)}-Ab12Cd/snapshot`, `${root}/snapshot/x`, `${root}/../x/snapshot`, `${dir}/x/snapshot`, `${root}/dependencies`]) {
      expect(hostsCheck(dir, { snapshot, dependencies: null }), snapshot).toBe(false);
    }
    // Both trees of one run only.
    expect(hostsCheck(dir, { snapshot: `${root}/snapshot`, dependencies: `${probeRoot}/deps` })).toBe(false);
    expect(hostsCheck(dir, { snapshot: `${root}/snapshot`, dependencies: `${root}/snapshot` })).toBe(false);
  });

  it('the job schema takes an optional check part of absolute paths; a `..` segment, a relative path or an extra field is refused', () => {
    const base = { id: 1, bwrap_path: '/usr/bin/bwrap', allow: { bwrap: [], profile: [], seccomp: [], reviewer: 'a'.repeat(64) }, interpreter: '/usr/bin/node', env: {}, uid: 64500, gid: 64500, limits: { timeoutMs: 1, memoryBytes: 1, maxOutputBytes: 1, nofile: 1, nproc: 1, fsize: 1, tmpfsBytes: 1 }, reviewer_b64: '', bundle_b64: '' };
    expect(sandboxHostJobSchema.safeParse(base).success).toBe(true);
    const withCheck = (check: unknown): boolean => sandboxHostJobSchema.safeParse({ ...base, check }).success;
    expect(withCheck({ snapshot: `${root}/snapshot`, dependencies: `${root}/dependencies`, dependency_root: 'node_modules' })).toBe(true);
    expect(withCheck({ snapshot: `${root}/snapshot`, dependencies: null, dependency_root: null })).toBe(true);
    expect(withCheck({ snapshot: `${root}/../../etc`, dependencies: null, dependency_root: null })).toBe(false);
    expect(withCheck({ snapshot: 'snapshot', dependencies: null, dependency_root: null })).toBe(false);
    expect(withCheck({ snapshot: `${root}/snapshot`, dependencies: null, dependency_root: null, fd: 10 })).toBe(false);
    // The dependency root's bound is the policy's and the bundle's (CHECK_DEPENDENCY_ROOT_MAX_CHARS); the
    // host's protocol took up to 4,096 characters before the bound moved into the limits table.
    const deps = (root_: string): boolean => withCheck({ snapshot: `${root}/snapshot`, dependencies: `${root}/dependencies`, dependency_root: root_ });
    expect(deps('n'.repeat(CHECK_DEPENDENCY_ROOT_MAX_CHARS))).toBe(true);
    expect(deps('n'.repeat(CHECK_DEPENDENCY_ROOT_MAX_CHARS + 1))).toBe(false);
  });
});
