// Shared world of the separated-mode tests (docs/runnerd.md): REAL system users (prefix gvd-sep-),
// `governed runnerd setup` and `serve` as root, a writer repository owned by an unprivileged writer
// uid in the writers' group, and the CLI run as that uid against the daemon's socket.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readFileSync, readdirSync, lstatSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { inspectBwrap } from '../runner/sandbox/bwrap.js';
import { staticProfileSha256 } from '../runner/sandbox/profile.js';
import { seccompBlob } from '../runner/seccomp/index.js';
import { CLI, REPO_ROOT, type CliResult } from './helpers/cli.js';
import { makeTempRepo, type TempRepo } from './helpers/git-repo.js';
import { makeTempDir } from './helpers/temp.js';
import { trustRootDoc, type TestKey } from './helpers/receipts.js';
import { contractDoc, makeKeys, policyDoc, SOURCE_TEXT, trustDoc, type Keys } from './state-helpers.js';

export const IS_ROOT = process.geteuid?.() === 0;
export const PREFIX = 'gvd-sep';
export const WRITERS = 'gvd-sep-w';
export const WRITER1 = 'gvd-sep-w1';
export const WRITER2 = 'gvd-sep-w2';
/** A user NOT in the writers' group: the positive control of the socket's permissions. */
export const OUTSIDER = 'gvd-sep-x';
/** The system names one test file uses (every user and group it creates starts with `prefix`). */
export interface SepNames {
  /** runnerd setup --user: the daemon user; its attestors are `<daemon>-reviewer` / `<daemon>-runner` / `<daemon>-probe` / `<daemon>-log`. */
  readonly daemon: string;
  readonly writers: string;
  readonly writer1: string;
  readonly writer2: string;
  readonly outsider: string;
}
export const DEFAULT_NAMES: SepNames = { daemon: PREFIX, writers: WRITERS, writer1: WRITER1, writer2: WRITER2, outsider: OUTSIDER };
/** Names all under `prefix-` (e.g. gvd-sep2-): daemon `prefix-d`, writers' group `prefix-w`, writers `prefix-w1`/`-w2`, outsider `prefix-x`. */
export function namesFor(prefix: string): SepNames {
  return { daemon: `${prefix}-d`, writers: `${prefix}-w`, writer1: `${prefix}-w1`, writer2: `${prefix}-w2`, outsider: `${prefix}-x` };
}

/** Remove every user and group `names` made (the writers, the daemon and its attestors, the writers' group). */
export function removeSepUsers(n: SepNames): void {
  for (const u of [n.writer1, n.writer2, n.outsider, n.daemon, `${n.daemon}-reviewer`, `${n.daemon}-runner`, `${n.daemon}-probe`, `${n.daemon}-log`]) {
    if (spawnSync('id', [u]).status === 0) sh('userdel', [u]);
    if (spawnSync('getent', ['group', u]).status === 0) sh('groupdel', [u]);
  }
  if (spawnSync('getent', ['group', n.writers]).status === 0) sh('groupdel', [n.writers]);
}
export const REVIEWER_FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'run', 'reviewer.mjs');
const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

export interface Ids {
  readonly uid: number;
  readonly gid: number;
}

export function idsOf(name: string): Ids {
  const uid = Number(spawnSync('id', ['-u', name], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', name], { encoding: 'utf8' }).stdout.trim());
  return { uid, gid };
}

function sh(cmd: string, args: string[]): void {
  spawnSync(cmd, args, { stdio: 'ignore' });
}

/** The writer users (idempotent): w1 and w2 in the writers' group, x outside it. */
export function ensureWriterUsers(n: SepNames = DEFAULT_NAMES): void {
  if (spawnSync('getent', ['group', n.writers]).status !== 0) sh('groupadd', ['--system', n.writers]);
  for (const u of [n.writer1, n.writer2, n.outsider]) {
    if (spawnSync('id', [u]).status !== 0) sh('useradd', ['--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', '--user-group', u]);
  }
  sh('usermod', ['-a', '-G', n.writers, n.writer1]);
  sh('usermod', ['-a', '-G', n.writers, n.writer2]);
}

/** Run the CLI as `user` (its primary gid and supplementary groups), cwd `cwd`. */
export function asUser(user: string, args: readonly string[], opts: { cwd?: string; env?: Record<string, string>; input?: string } = {}): CliResult {
  // Through a shell of that uid (which does not exec its last command): the writer's "agent", the
  // parent process the daemon registers by default, as an agent's shell would be.
  return runAs(user, ['/bin/sh', '-c', '"$@"; exit $?', 'sh', process.execPath, CLI, ...args], opts);
}

export function runAs(user: string, argv: readonly string[], opts: { cwd?: string; env?: Record<string, string>; input?: string } = {}): CliResult {
  // setpriv sets uid, gid and the user's groups, as a login would; nothing else is inherited.
  const r = spawnSync('setpriv', ['--reuid', user, '--regid', user, '--init-groups', '--', ...argv], {
    cwd: opts.cwd ?? '/',
    env: { PATH: '/usr/bin:/bin', NO_COLOR: '1', ...opts.env },
    input: opts.input ?? '',
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export interface SepWorld {
  readonly base: string;
  readonly socket: string;
  readonly keys: Keys;
  readonly policyFile: string;
  readonly trustFile: string;
  readonly repo: TempRepo;
  readonly baseline: string;
  readonly contractFile: string;
  readonly home: string;
  readonly setupOut: Record<string, unknown>;
  readonly names: SepNames;
}

export function root(args: readonly string[]): CliResult {
  const r = spawnSync(process.execPath, [CLI, ...args], { env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', NO_COLOR: '1' }, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export const common = (w: { base: string; socket: string; names?: SepNames }): string[] => {
  const n = w.names ?? DEFAULT_NAMES;
  return ['--dir', w.base, '--socket', w.socket, '--user', n.daemon, '--writers', n.writers];
};

/** A writer repository owned by `owner`, with the baseline committed (plus `baselineFiles`, e.g. a product's surfaces) and a change on top. */
export function writerRepo(owner: string, baselineFiles: Readonly<Record<string, string>> = {}): { repo: TempRepo; baseline: string } {
  const repo = makeTempRepo({ prefix: 'gvd-sep-repo-' });
  repo.write('requests/export.md', SOURCE_TEXT);
  for (const [path, text] of Object.entries(baselineFiles)) repo.write(path, text);
  repo.write('src/util.ts', 'export const util = 1;\n');
  repo.write('src/export.ts', 'export const csv = "baseline";\n');
  repo.write('.gitignore', 'ignored/\n');
  const baseline = repo.commitAll('baseline');
  repo.write('src/export.ts', "export const csv = 'changed';\n");
  repo.write('test/export.test.ts', 'test("csv", () => {});\n');
  chownTree(repo.root, idsOf(owner));
  chmodSync(repo.root, 0o700);
  return { repo, baseline };
}

export function chownTree(p: string, ids: Ids): void {
  chownSync(p, ids.uid, ids.gid);
  if (lstatSync(p).isDirectory()) for (const n of readdirSync(p)) chownTree(join(p, n), ids);
}

/** setup (twice: keys, then the store under a policy that pins what setup installed). */
/** What a policy written by hand (makeSepWorld's policyText) must pin: this machine's digests and the credentials setup made. */
export interface PolicyPins {
  readonly reviewerSha: string;
  readonly bwrapSha: string;
  readonly profileSha: string;
  readonly seccompSha: string;
  readonly credentials: Record<'reviewer' | 'runner' | 'gate' | 'log', { key_id: string; attestor_sha256: string[]; attestor_config_sha256: string[] }>;
  /** The check profile's digest (probes run in it: docs/preservation.md#probes). */
  readonly checkProfileSha: string;
  /** With makeSepWorld's `probe`: the probe credential setup installed and the allowlisted adapter's sha256. */
  readonly probe?: { credential: { key_id: string; attestor_sha256: string[]; attestor_config_sha256: string[] }; adapterSha256: string };
}

export async function makeSepWorld(
  o: {
    modes?: readonly string[];
    policy?: Record<string, unknown>;
    names?: SepNames;
    policyText?: (pins: PolicyPins) => string;
    /** Preservation probes through the daemon: setup installs this probe key, the policy pins its attestor, allowlists the shipped adapter and the check profile, and the trust root holds the key (role probe). */
    probe?: { key: TestKey; adapterSha256: string };
    /** The program installed under every mode's name (default: the scripted reviewer fixture). */
    reviewerSource?: string;
    /** More reviewer programs setup installs under their own names (e.g. a check adapter). */
    extraReviewerFiles?: readonly string[];
    /** Allowlist the check profile too (check slots). */
    checkProfile?: boolean;
    /** Files the writer repository's baseline commit holds besides the request (a product's surfaces). */
    baselineFiles?: Readonly<Record<string, string>>;
  } = {},
): Promise<SepWorld> {
  const names = o.names ?? DEFAULT_NAMES;
  ensureWriterUsers(names);
  const base = makeTempDir('gvd-sep-');
  chmodSync(base, 0o755);
  const socket = join(base, 'run', 'runnerd.sock');
  const scratch = makeTempDir('gvd-sep-keys-');
  const keys = makeKeys(join(scratch, 'keys'));
  const modes = o.modes ?? ['clean', 'dirty', 'sleep'];
  const reviewers = join(scratch, 'reviewers');
  mkdirSync(reviewers);
  const reviewerSource = o.reviewerSource ?? REVIEWER_FIXTURE;
  for (const m of modes) writeFileSync(join(reviewers, `${m}.mjs`), readFileSync(reviewerSource));
  const w = { base, socket, names };
  const first = root(['runnerd', 'setup', ...common(w), '--key', `reviewer=${keys.reviewer.privateKeyPath}`, '--key', `runner=${keys.runner.privateKeyPath}`, '--key', `log=${keys.log.privateKeyPath}`, ...(o.probe === undefined ? [] : ['--key', `probe=${o.probe.key.privateKeyPath}`]), '--reviewer', ...modes.map((m) => join(reviewers, `${m}.mjs`)), ...(o.extraReviewerFiles ?? []), '--json']);
  if (first.code !== 0) throw new Error(`setup failed: ${first.stdout} ${first.stderr}`);
  const out = JSON.parse(first.stdout) as { credentials: Record<string, { key_id: string; attestor_sha256: string; attestor_config_sha256: string }> };
  const bw = await inspectBwrap('/usr/bin/bwrap');
  const cred = (c: string): { key_id: string; attestor_sha256: string[]; attestor_config_sha256: string[] } =>
    c === 'reviewer' || c === 'runner' || c === 'log' || c === 'probe'
      ? { key_id: out.credentials[c]!.key_id, attestor_sha256: [out.credentials[c]!.attestor_sha256], attestor_config_sha256: [out.credentials[c]!.attestor_config_sha256] }
      : { key_id: keys[c as 'gate'].keyId, attestor_sha256: ['7'.repeat(64)], attestor_config_sha256: ['7'.repeat(64)] };
  const reviewerSha = sha256(readFileSync(reviewerSource));
  const policy = policyDoc(keys, {
    max_runs_per_content: 1000,
    stages: { development: { required: false, streak: 2, slots: Object.fromEntries(modes.map((m) => [m, m])) } },
    reviewers: Object.fromEntries(modes.map((m) => [m, { sha256: reviewerSha, interpreter: '/usr/bin/node', env: { REVIEW_MODE: m, ...(m === 'sleep' ? { SLEEP_MS: '3000' } : {}) } }])),
    sandbox: {
      bwrap_sha256: [bw.sha256],
      profile_sha256: o.probe === undefined && o.checkProfile !== true ? [staticProfileSha256()] : [staticProfileSha256(), staticProfileSha256('check')],
      seccomp_sha256: [sha256(seccompBlob())],
      uid: 64500,
      timeout: '20s',
      memory: '2GiB',
      max_output: '64KiB',
      max_bundle: '64MiB',
    },
    credentials: { reviewer: cred('reviewer'), runner: cred('runner'), gate: cred('gate'), log: cred('log'), ...(o.probe === undefined ? {} : { probe: cred('probe') }) },
    ...(o.probe === undefined ? {} : { preservation_adapters: { sha256: [o.probe.adapterSha256], interpreter: '/usr/bin/node' } }),
    ...o.policy,
  });
  const pins: PolicyPins = {
    reviewerSha,
    bwrapSha: bw.sha256,
    profileSha: staticProfileSha256(),
    seccompSha: sha256(seccompBlob()),
    credentials: Object.fromEntries(['reviewer', 'runner', 'gate', 'log'].map((c) => [c, cred(c)])) as PolicyPins['credentials'],
    checkProfileSha: staticProfileSha256('check'),
    ...(o.probe === undefined ? {} : { probe: { credential: cred('probe'), adapterSha256: o.probe.adapterSha256 } }),
  };
  const policyFile = join(scratch, o.policyText === undefined ? 'policy.json' : 'policy.yaml');
  const trustFile = join(scratch, 'trust.json');
  writeFileSync(policyFile, o.policyText === undefined ? JSON.stringify(policy) : o.policyText(pins));
  const trust = trustDoc(keys) as { keys: unknown[] };
  if (o.probe !== undefined) trust.keys.push((trustRootDoc([{ key: o.probe.key, roles: ['probe'] }]) as { keys: unknown[] }).keys[0]);
  writeFileSync(trustFile, JSON.stringify(trust));
  const second = root(['runnerd', 'setup', ...common(w), '--policy', policyFile, '--trust', trustFile, '--json']);
  if (second.code !== 0) throw new Error(`setup 2 failed: ${second.stdout} ${second.stderr}`);
  const { repo, baseline } = writerRepo(names.writer1, o.baselineFiles);
  const contractDir = makeTempDir('gvd-sep-contract-');
  chmodSync(contractDir, 0o755);
  const contractFile = join(contractDir, 'contract.json');
  writeFileSync(contractFile, JSON.stringify(contractDoc()));
  chmodSync(contractFile, 0o644);
  return { base, socket, keys, policyFile, trustFile, repo, baseline, contractFile, home: join(base, 'state', 'home'), setupOut: JSON.parse(second.stdout) as Record<string, unknown>, names };
}

export interface Daemon {
  readonly child: ChildProcess;
  readonly ready: Record<string, unknown>;
  readonly stdout: () => string;
  /** The daemon's log lines. */
  readonly stderr: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function startDaemon(w: { base: string; socket: string; names?: SepNames }, extra: readonly string[] = []): Promise<Daemon> {
  const child = spawn(process.execPath, [CLI, 'runnerd', 'serve', ...common(w), ...extra], { env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`daemon not ready: ${out} ${err}`));
    }, 30_000);
    // The daemon's log is on stderr (one JSON line when ready); stdout carries only a failure's JSON.
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
      const line = err.split('\n').find((l) => l.includes('"ready":true'));
      if (line !== undefined) {
        clearTimeout(t);
        resolve({
          child,
          ready: JSON.parse(line) as Record<string, unknown>,
          stdout: () => out,
          stderr: () => err,
          stop: (signal = 'SIGTERM') => {
            child.kill(signal);
            return exited;
          },
        });
      }
    });
    void exited.then((code) => {
      clearTimeout(t);
      reject(new Error(`daemon exited ${code}: ${out} ${err}`));
    });
  });
}
