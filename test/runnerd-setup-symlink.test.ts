// `governed runnerd setup` is run again as root on a machine where the daemon has been running
// (docs/runnerd.md#layout: idempotent). Everything under the state directory belongs to the daemon
// uid, which handles writer content: it can replace `state/work` or `state/tmp` with a symlink. Root
// must then refuse (runnerd_state_unsafe) and never chmod or chown what the link points at.
import { lchownSync, mkdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeSepUsers } from './runnerd-helpers.js';
import { spawnSync } from 'node:child_process';
import { layoutOf, keyFileOf } from '../src/flows/runnerd/layout.js';
import { findUser } from '../src/flows/runnerd/accounts.js';
import { CLI } from './helpers/cli.js';
import { makeTempDir } from './helpers/temp.js';

const IS_ROOT = process.geteuid?.() === 0;
const USER = 'gvd-rv7';
const WRITERS = 'gvd-rv7-w';

interface Setup {
  readonly base: string;
  readonly socket: string;
}

/** `governed runnerd setup --json` as root; its exit and its one JSON object. */
function setup(w: Setup): { code: number | null; json: Record<string, unknown> } {
  const r = spawnSync(process.execPath, [CLI, 'runnerd', 'setup', '--dir', w.base, '--socket', w.socket, '--user', USER, '--writers', WRITERS, '--json'], {
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', NO_COLOR: '1' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status, json: JSON.parse(r.stdout.trim()) as Record<string, unknown> };
}
const codeOf = (r: { json: Record<string, unknown> }): unknown => (r.json.error as { code?: string } | undefined)?.code;

describe.skipIf(!IS_ROOT)('runnerd setup never follows a symlink the daemon or an attestor planted', () => {
  let dir: string;
  let args: Setup;
  let victim: string;
  const victimFile = (): string => join(victim, 'secret');

  beforeAll(() => {
    dir = makeTempDir('gvd-rv7-');
    const base = join(dir, 'base');
    args = { base, socket: join(dir, 'run', 'runnerd.sock') };
    const first = setup(args);
    if (first.code !== 0) throw new Error(`setup failed: ${JSON.stringify(first.json)}`);
    victim = join(dir, 'victim');
    mkdirSync(victim, { mode: 0o755 });
    writeFileSync(victimFile(), 'root only\n', { mode: 0o644 });
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    // The users and groups setup made (names of this file only).
    removeSepUsers({ daemon: USER, writers: WRITERS, writer1: `${USER}-w1`, writer2: `${USER}-w2`, outsider: `${USER}-x` });
  });

  const daemonUid = (): { uid: number; gid: number } => findUser(USER) as { uid: number; gid: number };

  /** Replace `path` with a symlink to `target` owned by `owner` (as that uid would have made it). */
  function plant(path: string, target: string, owner: { uid: number; gid: number }): () => void {
    const aside = `${path}.aside`;
    renameSync(path, aside);
    symlinkSync(target, path);
    lchownSync(path, owner.uid, owner.gid);
    return () => {
      rmSync(path);
      renameSync(aside, path);
    };
  }

  it('positive control: a second run over an untouched layout succeeds and changes nothing', () => {
    const r = setup(args);
    expect(r.code).toBe(0);
    expect(r.json.actions).toEqual([]);
  });

  for (const which of ['workDir', 'tmpDir'] as const) {
    it(`state/${which === 'workDir' ? 'work' : 'tmp'} replaced by a link to a root directory: refused, the target untouched`, () => {
      const restore = plant(layoutOf(args.base, args.socket)[which], victim, daemonUid());
      try {
        const r = setup(args);
        expect(codeOf(r)).toBe('runnerd_state_unsafe');
        expect(r.code).toBe(4);
        const st = statSync(victim);
        expect(st.mode & 0o7777).toBe(0o755);
        expect(st.uid).toBe(0);
      } finally {
        restore();
      }
    });
  }

  it("an attestor's key replaced by a link to a root file: refused, the file neither chmodded nor read", () => {
    const att = findUser(`${USER}-reviewer`) as { uid: number; gid: number };
    const restore = plant(keyFileOf(layoutOf(args.base, args.socket), 'reviewer'), victimFile(), att);
    try {
      const r = setup(args);
        expect(codeOf(r)).toBe('runnerd_state_unsafe');
        expect(r.code).toBe(4);
      const st = statSync(victimFile());
      expect(st.mode & 0o7777).toBe(0o644);
      expect(st.uid).toBe(0);
    } finally {
      restore();
    }
  });
});
