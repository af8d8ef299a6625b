// The pinned relay program on its own (runner/egress/relay.mjs; docs/egress.md#the-in-sandbox-relay):
// it refuses malformed arguments before listening, passes the program's exit status through (a
// signal as 128 + n, the convention bwrap reports), and starts the program only once it listens.
// Each run is in a bare bwrap with its own network namespace, so the relay's port is the sandbox's
// loopback, never the host's.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/cli.js';

const RELAY = join(REPO_ROOT, 'runner', 'egress', 'relay.mjs');

function inSandbox(args: string[], env: Record<string, string> = {}): { status: number | null; stdout: string } {
  const r = spawnSync(
    '/usr/bin/bwrap',
    [...Object.entries(env).flatMap(([k, v]) => ['--setenv', k, v]), '--unshare-all', '--die-with-parent', '--ro-bind', '/usr', '/usr', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64', '--symlink', 'usr/bin', '/bin', '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--ro-bind', RELAY, '/relay.mjs', '--', '/usr/bin/node', '/relay.mjs', ...args],
    { encoding: 'utf8', timeout: 30_000, env: {} },
  );
  return { status: r.status, stdout: r.stdout };
}

describe('the relay program', () => {
  it('refuses a bad port, a relative socket path or a relative program with 64, running nothing', () => {
    const ran = ['-c', 'echo ran'];
    for (const args of [['0', '/run/x.sock', '/usr/bin/sh', ...ran], ['70000', '/run/x.sock', '/usr/bin/sh', ...ran], ['3128', 'x.sock', '/usr/bin/sh', ...ran], ['3128', '/run/x.sock', 'sh', ...ran], ['3128', '/run/x.sock']]) {
      expect(inSandbox(args), args.join(' ')).toEqual({ status: 64, stdout: '' });
    }
  });

  it('passes the exit status through: 0, 7, and a signal as 128 + n; nothing of its own on stdout', () => {
    expect(inSandbox(['3128', '/run/x.sock', '/usr/bin/sh', '-c', 'echo out; exit 0'])).toEqual({ status: 0, stdout: 'out\n' });
    expect(inSandbox(['3128', '/run/x.sock', '/usr/bin/sh', '-c', 'exit 7']).status).toBe(7);
    expect(inSandbox(['3128', '/run/x.sock', '/usr/bin/sh', '-c', 'kill -TERM $$']).status).toBe(128 + 15);
  });

  it('the program starts only once the relay listens: its first connection to 127.0.0.1:3128 is accepted', () => {
    // /dev/tcp is bash's; the relay accepts, then fails to reach the (absent) broker socket and closes.
    const r = inSandbox(['3128', '/run/absent.sock', '/usr/bin/bash', '-c', 'exec 3<>/dev/tcp/127.0.0.1/3128 && echo accepted']);
    expect(r).toEqual({ status: 0, stdout: 'accepted\n' });
    // Control: with nothing listening on that port the same connection is refused.
    const c = spawnSync('/usr/bin/bwrap', ['--unshare-all', '--ro-bind', '/usr', '/usr', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64', '--proc', '/proc', '--dev', '/dev', '--', '/usr/bin/bash', '-c', 'exec 3<>/dev/tcp/127.0.0.1/3128 && echo accepted'], { encoding: 'utf8', env: {} });
    expect(c.status).not.toBe(0);
    expect(c.stdout).toBe('');
  });

  it('TLS-terminating mode: it writes the run CA from GOVERNED_EGRESS_CA_PEM to /tmp/governed-egress-ca.pem (0444) before the program starts; a value that is not one PEM certificate → 65, running nothing', () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIBAAAA\n-----END CERTIFICATE-----\n';
    const ok = inSandbox(['3128', '/run/x.sock', '/usr/bin/sh', '-c', 'stat -c %a /tmp/governed-egress-ca.pem && cat /tmp/governed-egress-ca.pem'], { GOVERNED_EGRESS_CA_PEM: pem });
    expect(ok).toEqual({ status: 0, stdout: `444\n${pem}` });
    for (const bad of ['not a certificate', `${pem}-----BEGIN PRIVATE KEY-----\nAA==\n-----END PRIVATE KEY-----\n`, pem.replace('MIIBAAAA', 'MII$(id)')]) {
      expect(inSandbox(['3128', '/run/x.sock', '/usr/bin/sh', '-c', 'echo ran'], { GOVERNED_EGRESS_CA_PEM: bad })).toEqual({ status: 65, stdout: '' });
    }
    // Control: without the variable nothing is written.
    expect(inSandbox(['3128', '/run/x.sock', '/usr/bin/sh', '-c', 'test -e /tmp/governed-egress-ca.pem && echo present || echo absent'])).toEqual({ status: 0, stdout: 'absent\n' });
  });
});
