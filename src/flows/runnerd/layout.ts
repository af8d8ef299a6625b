// Where separated mode keeps everything (docs/runnerd.md "Layout"), as one definition for setup,
// the daemon and doctor. Pure: names and modes only.
import { join } from 'node:path';

/**
 * The credentials a warm attestor serves, each under its own uid (docs/runnerd.md "Warm attestors"):
 * the two that sign every review receipt, the probe credential that signs the probes the daemon
 * runs (docs/runnerd.md#probes-through-the-daemon), and the log credential that signs the
 * checkpoints of the daemon's store (docs/runnerd.md#checkpoints; its program is the
 * tlog-checkpoint attestor, the others' ed25519-file). The daemon's uid can read none of their keys.
 */
export const WARM_CREDENTIALS = ['reviewer', 'runner', 'probe', 'log'] as const;
export type WarmCredential = (typeof WARM_CREDENTIALS)[number];

export const DEFAULT_BASE = '/var/lib/governed';
export const DEFAULT_SOCKET = '/run/governed/runnerd.sock';
export const DEFAULT_USER = 'governed';
export const DEFAULT_MAX_RUNS = 2;

export interface RunnerdLayout {
  readonly base: string;
  /** root:root 0755 — the pinned attestor programs and configs (root 0444). */
  readonly attestorsDir: string;
  /** root:root 0755 — the reviewer programs the policy pins (root 0444). */
  readonly reviewersDir: string;
  /** root:root 0755, one directory per credential owned by its attestor uid (0700), key 0400. */
  readonly keysDir: string;
  /** governed:governed 0700 — the store (home), the daemon's repositories, scratch. */
  readonly stateDir: string;
  readonly home: string;
  readonly workDir: string;
  readonly tmpDir: string;
  readonly ownersDb: string;
  readonly socket: string;
  /** root:<writers> 0750 — only the writers' group may reach the socket. */
  readonly socketDir: string;
}

export interface RunnerdUsers {
  /** The daemon's uid after the drop; owns the state directory. */
  readonly daemon: string;
  readonly attestors: Readonly<Record<WarmCredential, string>>;
  readonly writersGroup: string;
}

export function layoutOf(base: string, socket: string): RunnerdLayout {
  const stateDir = join(base, 'state');
  return {
    base,
    attestorsDir: join(base, 'attestors'),
    reviewersDir: join(base, 'reviewers'),
    keysDir: join(base, 'keys'),
    stateDir,
    home: join(stateDir, 'home'),
    workDir: join(stateDir, 'work'),
    tmpDir: join(stateDir, 'tmp'),
    ownersDb: join(stateDir, 'runnerd.db'),
    socket,
    socketDir: join(socket, '..'),
  };
}

export function usersOf(prefix: string, writersGroup: string): RunnerdUsers {
  return { daemon: prefix, attestors: { reviewer: `${prefix}-reviewer`, runner: `${prefix}-runner`, probe: `${prefix}-probe`, log: `${prefix}-log` }, writersGroup };
}

export const keyFileOf = (l: RunnerdLayout, c: WarmCredential): string => join(l.keysDir, c, 'key.pem');
export const keyDirOf = (l: RunnerdLayout, c: WarmCredential): string => join(l.keysDir, c);

/** Every key `runnerd setup` installs (--key CRED=FILE): one per warm attestor. */
export const SETUP_CREDENTIALS = WARM_CREDENTIALS;
export type SetupCredential = WarmCredential;

/** Each warm attestor's uid, by credential (the daemon's `attestor_uids`, doctor's expected owners). */
export function attestorUidsOf(att: Readonly<Record<WarmCredential, { readonly uid: number }>>): Record<WarmCredential, number> {
  return Object.fromEntries(WARM_CREDENTIALS.map((c) => [c, att[c].uid])) as Record<WarmCredential, number>;
}
