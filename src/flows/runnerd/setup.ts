// `governed runnerd setup --writers GROUP` (docs/runnerd.md#layout), as root, idempotent: the
// system users and groups, every directory and file of the layout with its owner and mode, the
// pinned attestor programs and configs, one key per warm credential (reviewer, runner, probe, log;
// given with --key CRED=FILE, else generated) readable only by its attestor uid, and — with --policy
// and --trust — the store,
// initialised and handed to the governed uid. Returns what it did, one line per change; a second
// run with the same arguments does nothing.
import { takeAppendedHomes } from '../../store/appended.js';
import { spawnSync } from 'node:child_process';
import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { chmodSync, chownSync, existsSync, lchownSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { hostname } from 'node:os';
import { fail } from '../../core/errors.js';
import { publicKeyFromSpkiDer } from '../../core/ed25519.js';
import { initFlow } from '../init.js';
import { installRoot } from '../run/locations.js';
import { findGroup, findUser, requireGroup, requireUser } from './accounts.js';
import { keyDirOf, keyFileOf, layoutOf, usersOf, WARM_CREDENTIALS, type RunnerdLayout, type RunnerdUsers, type SetupCredential, type WarmCredential } from './layout.js';
import { TLOG_CHECKPOINT_KIND } from '../../core/tlog-attestor.js';
import { isKeyName } from '../../core/signed-note.js';

export interface SetupArgs {
  readonly base: string;
  readonly socket: string;
  readonly user: string;
  readonly writers: string;
  readonly keys: Partial<Record<SetupCredential, string>>;
  /** The origin line of the daemon's checkpoints (the log's name; default governed-runnerd/<hostname>). */
  readonly logOrigin?: string | undefined;
  readonly reviewers: readonly string[];
  readonly policyFile?: string | undefined;
  readonly trustFile?: string | undefined;
}

export interface SetupResult {
  readonly actions: string[];
  readonly uids: Record<string, number>;
  readonly credentials: Record<SetupCredential, { key_id: string; attestor_sha256: string; attestor_config_sha256: string }>;
  readonly reviewers: Record<string, string>;
  readonly home: string;
  readonly socket: string;
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { stdio: 'ignore', env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' } });
  if (r.status !== 0) fail('runnerd_user_missing', [basename(cmd), args[args.length - 1] ?? '']);
}

type Ids = { uid: number; gid: number };

export function runnerdSetup(a: SetupArgs): SetupResult {
  if (process.geteuid?.() !== 0) fail('runnerd_not_root');
  const actions: string[] = [];
  const l = layoutOf(a.base, a.socket);
  const users = usersOf(a.user, a.writers);
  const { daemon, writers, att } = ensureAccounts(users, actions);
  ensureDirectories(l, daemon, writers.gid, actions);
  const credentials = ensureWarmAttestors(a, l, att, actions);
  const reviewers = ensureReviewers(a, l, actions);
  initAndHandOver(a, l, daemon, actions);
  return {
    actions,
    uids: { [users.daemon]: daemon.uid, ...Object.fromEntries(WARM_CREDENTIALS.map((c) => [users.attestors[c], att[c].uid])), [`group ${users.writersGroup}`]: writers.gid },
    credentials,
    reviewers,
    home: l.home,
    socket: l.socket,
  };
}

// The system users and groups: the writers' group, the daemon's user, one user per warm attestor
// (docs/runnerd.md#processes-and-users); created when missing.
function ensureAccounts(users: RunnerdUsers, actions: string[]): { daemon: Ids; writers: { gid: number }; att: Record<WarmCredential, Ids> } {
  if (findGroup(users.writersGroup) === null) {
    run('groupadd', ['--system', users.writersGroup]);
    actions.push(`created group ${users.writersGroup}`);
  }
  for (const name of [users.daemon, ...WARM_CREDENTIALS.map((c) => users.attestors[c])]) {
    if (findUser(name) === null) {
      run('useradd', ['--system', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', '--user-group', name]);
      actions.push(`created user ${name}`);
    }
  }
  const daemon = requireUser(users.daemon);
  const writers = requireGroup(users.writersGroup);
  const att = Object.fromEntries(WARM_CREDENTIALS.map((c) => [c, requireUser(users.attestors[c])])) as unknown as Record<WarmCredential, Ids>;
  return { daemon, writers, att };
}

// One path of the layout with its owner and mode (docs/runnerd.md#layout): a directory made, a
// file's bytes written, when missing or different.
function ensure(actions: string[], path: string, type: 'dir' | 'file', uid: number, gid: number, mode: number, bytes?: Buffer): void {
  // Never through a symlink or onto another type: the state directory is the daemon uid's and a
  // key directory its attestor's, so either could have planted one, and root follows it
  // (chmod, chown, read) to anything on the machine.
  unlessPlain(path, type);
  if (type === 'dir' && !existsSync(path)) {
    mkdirSync(path, { mode });
    actions.push(`created ${path}`);
  }
  if (type === 'file' && bytes !== undefined) {
    const same = existsSync(path) && readFileSync(path).equals(bytes);
    if (!same) {
      if (existsSync(path)) chmodSync(path, 0o600);
      writeFileSync(path, bytes, { mode });
      actions.push(`wrote ${path}`);
    }
  }
  const st = lstatSync(path);
  if (st.uid !== uid || st.gid !== gid) {
    chownSync(path, uid, gid);
    actions.push(`owner of ${path} set to ${uid}:${gid}`);
  }
  if ((st.mode & 0o7777) !== mode) {
    chmodSync(path, mode);
    actions.push(`mode of ${path} set to 0${mode.toString(8)}`);
  }
}

// The layout's directories, their owners and modes (docs/runnerd.md#layout).
function ensureDirectories(l: RunnerdLayout, daemon: Ids, writersGid: number, actions: string[]): void {
  for (const d of [l.base, l.attestorsDir, l.reviewersDir, l.keysDir]) {
    if (!existsSync(d)) mkdirSync(d, { recursive: true, mode: 0o755 });
    ensure(actions, d, 'dir', 0, 0, 0o755);
  }
  ensure(actions, l.stateDir, 'dir', daemon.uid, daemon.gid, 0o700);
  ensure(actions, l.workDir, 'dir', daemon.uid, daemon.gid, 0o700);
  ensure(actions, l.tmpDir, 'dir', daemon.uid, daemon.gid, 0o700);
  if (!existsSync(l.socketDir)) mkdirSync(l.socketDir, { recursive: true, mode: 0o750 });
  ensure(actions, l.socketDir, 'dir', 0, writersGid, 0o750);
}

// The warm attestors (docs/runnerd.md#warm-attestors): per credential (reviewer, runner, probe, log) a
// key readable only by its attestor uid (given with --key CRED=FILE, else generated; a key an older
// setup left as the daemon's is handed over, printed), the pinned program and its config.
function ensureWarmAttestors(a: SetupArgs, l: RunnerdLayout, att: Record<WarmCredential, Ids>, actions: string[]): SetupResult['credentials'] {
  const programs = {
    signer: readFileSync(join(installRoot(), 'attestors', 'ed25519-file.mjs')),
    log: readFileSync(join(installRoot(), 'attestors', 'tlog-note.mjs')),
  };
  const origin = a.logOrigin ?? `governed-runnerd/${hostname()}`;
  if (!isKeyName(origin)) fail('usage_error', ['--log-origin']);
  const credentials: Partial<SetupResult['credentials']> = {};
  for (const c of WARM_CREDENTIALS) {
    ensure(actions, keyDirOf(l, c), 'dir', att[c].uid, att[c].gid, 0o700);
    const keyFile = keyFileOf(l, c);
    unlessPlain(keyFile, 'file');
    if (!existsSync(keyFile)) {
      const given = a.keys[c];
      const pem = given !== undefined ? readFileSync(given) : Buffer.from(generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }) as string);
      writeFileSync(keyFile, pem, { mode: 0o400, flag: 'wx' });
      actions.push(`${given !== undefined ? 'installed' : 'generated'} key ${keyFile}`);
    }
    ensure(actions, keyFile, 'file', att[c].uid, att[c].gid, 0o400);
    const spki = createPublicKey(readFileSync(keyFile)).export({ format: 'der', type: 'spki' });
    const keyId = publicKeyFromSpkiDer(spki).keyId;
    const program = c === 'log' ? programs.log : programs.signer;
    ensure(actions, join(l.attestorsDir, `${c}.mjs`), 'file', 0, 0, 0o444, program);
    // reviewer and runner sign review receipts, probe the probes the daemon runs; log is the
    // tlog-checkpoint attestor of the daemon's checkpoints (docs/runnerd.md#checkpoints).
    const config = Buffer.from(
      JSON.stringify(
        c === 'log'
          ? { credential: 'log', kind: TLOG_CHECKPOINT_KIND, key_id: keyId, key_ref: keyFile, origin }
          : { credential: c, kind: c === 'probe' ? 'probe' : 'review-receipt', key_id: keyId, key_ref: keyFile },
      ),
    );
    ensure(actions, join(l.attestorsDir, `${c}.json`), 'file', 0, 0, 0o444, config);
    credentials[c] = { key_id: keyId, attestor_sha256: sha256(program), attestor_config_sha256: sha256(config) };
  }
  return credentials as SetupResult['credentials'];
}

// The reviewer programs given, installed read-only; the digest of each one installed (docs/runnerd.md#layout).
function ensureReviewers(a: SetupArgs, l: RunnerdLayout, actions: string[]): Record<string, string> {
  const reviewers: Record<string, string> = {};
  for (const file of a.reviewers) {
    const bytes = readFileSync(file);
    ensure(actions, join(l.reviewersDir, basename(file)), 'file', 0, 0, 0o444, bytes);
  }
  for (const name of readdirSync(l.reviewersDir)) reviewers[name] = sha256(readFileSync(join(l.reviewersDir, name)));
  return reviewers;
}

// With --policy and --trust, the store initialised; then handed to the governed uid (docs/runnerd.md#layout).
function initAndHandOver(a: SetupArgs, l: RunnerdLayout, daemon: Ids, actions: string[]): void {
  if (a.policyFile !== undefined && a.trustFile !== undefined && !existsSync(join(l.home, 'governed.db'))) {
    initFlow({ home: l.home, policyFile: a.policyFile, trustFile: a.trustFile, now: Math.floor(Date.now() / 1000) });
    actions.push(`initialised ${l.home}`);
  }
  // The store is handed to the governed uid now: root cannot open it afterwards (its owner rule), so
  // the CLI's automatic-checkpoint step after this command must not try (docs/audit.md "Automatic
  // checkpoints"; a checkpoint is never due on a freshly initialised log).
  takeAppendedHomes();
  if (existsSync(l.home)) chownTree(l.home, daemon.uid, daemon.gid, actions);
}

/** `path` is absent or exactly a `type` (lstat: a symlink is refused, never followed). */
function unlessPlain(path: string, type: 'dir' | 'file'): void {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return;
  }
  if (type === 'dir' ? !st.isDirectory() : !st.isFile()) fail('runnerd_state_unsafe', [path]);
}

function chownTree(dir: string, uid: number, gid: number, actions: string[]): void {
  let changed = false;
  const walk = (p: string): void => {
    const st = lstatSync(p);
    if (st.uid !== uid || st.gid !== gid) {
      lchownSync(p, uid, gid); // the node lstat saw, never a link target
      changed = true;
    }
    if (st.isDirectory()) for (const n of readdirSync(p)) walk(join(p, n));
  };
  walk(dir);
  if (changed) actions.push(`owner of ${dir} (recursively) set to ${uid}:${gid}`);
}
