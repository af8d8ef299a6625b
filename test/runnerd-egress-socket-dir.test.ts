// The hosted broker-socket directory of separated mode (src/flows/runnerd/sandbox-host-egress.ts,
// docs/runnerd.md#model-reviewers-and-the-egress-broker): made by the daemon as root at start,
// owner the daemon's uid, group the sandbox gid, mode 0710, emptied of a previous daemon's leftovers,
// never through a symlink; and the rule by which the daemon hands an egress run to the sandbox host:
// only a broker socket directly inside a `governed-egress-*` directory of it.
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { egressSocketDirOf, hostsEgressSocket, prepareEgressSocketDir } from '../src/flows/runnerd/sandbox-host-egress.js';
import type { SandboxRequest } from '../runner/sandbox/index.js';

const IS_ROOT = process.geteuid?.() === 0;
const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
const base = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'gvd-m4s-'));
  made.push(d);
  return d;
};
const req = (socket: string | undefined): SandboxRequest => ({ ...(socket === undefined ? {} : { egress: { socket, env: {} } }) }) as unknown as SandboxRequest;

describe('the hosted egress socket directory', () => {
  it.skipIf(!IS_ROOT)('is made owner daemon uid, group sandbox gid, 0710, and emptied of leftovers', () => {
    const b = base();
    mkdirSync(join(b, 'egress', 'governed-egress-old'), { recursive: true });
    writeFileSync(join(b, 'egress', 'governed-egress-old', 'egress.sock'), '');
    const dir = prepareEgressSocketDir(b, 64531, 64532);
    expect(dir).toBe(egressSocketDirOf(b));
    const st = lstatSync(dir);
    expect({ uid: st.uid, gid: st.gid, mode: st.mode & 0o7777, dir: st.isDirectory() }).toEqual({ uid: 64531, gid: 64532, mode: 0o710, dir: true });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a symlink in its place is refused (runnerd_state_unsafe) and its target untouched', () => {
    const b = base();
    const target = join(b, 'elsewhere');
    mkdirSync(target);
    writeFileSync(join(target, 'keep'), 'x');
    symlinkSync(target, join(b, 'egress'));
    expect(() => prepareEgressSocketDir(b, 64531, 64532)).toThrow(expect.objectContaining({ code: 'runnerd_state_unsafe' }));
    expect(readdirSync(target)).toEqual(['keep']);
  });

  it('only a socket directly inside a governed-egress-* directory of it goes to the host', () => {
    const dir = '/var/lib/governed/egress';
    expect(hostsEgressSocket(dir, req(`${dir}/governed-egress-AbC123/egress.sock`))).toBe(true);
    // Controls: no directory (no host), no egress, and every other shape stays in the daemon.
    expect(hostsEgressSocket(null, req(`${dir}/governed-egress-AbC123/egress.sock`))).toBe(false);
    expect(hostsEgressSocket(dir, req(undefined))).toBe(false);
    for (const s of [
      '/tmp/governed-egress-AbC123/egress.sock',
      `${dir}-x/governed-egress-AbC123/egress.sock`,
      `${dir}/governed-egress-AbC123/../../state/egress.sock`,
      `${dir}/governed-egress-AbC123/other.sock`,
      `${dir}/governed-egress-AbC123/x/egress.sock`,
      `${dir}/egress.sock`,
    ]) {
      expect(hostsEgressSocket(dir, req(s)), s).toBe(false);
    }
  });
});
