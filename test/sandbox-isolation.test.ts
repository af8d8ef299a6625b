// Isolation properties 1–10 and 19 of docs/sandbox.md#the-invocation, against REAL bwrap. Each property is
// checked twice with the same probe: inside the sandbox (must be denied) and directly on the host
// as the positive control (must succeed), so every assertion could fail. The governed side runs as
// its own process (test/fixtures/sandbox/driver.ts) started the way an attacker-controlled caller
// would start it: a fake HOME, cwd inside a fake repository, a canary environment variable and a
// canary file open on descriptor 50 without O_CLOEXEC. A missing bwrap or gcc fails the suite.
import { spawn, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { createSocket, type Socket } from 'node:dgram';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSandboxed } from '../runner/sandbox/run.js';
import {
  assertToolchain, buildDriver, cleanup, compileSysprobe, driverRequest, IS_ROOT, kv, LD_SO, NODE, PROBE, realAllow, runOutside,
  sha256, startDriver, tempDir, testLimits, waitFor, writeBundle, writeJob,
} from './sandbox-helpers.js';

const SANDBOX_UID = 64501; // distinct per suite: RLIMIT_NPROC counts per uid
const UNPRIV_UID = 64505;
const dirs: string[] = [];
const canary = `canary-${randomBytes(12).toString('hex')}`;
const abstractName = `governed-probe-${randomBytes(6).toString('hex')}`;
const hits = { tcp: 0, unix: 0, udp: 0 };
let tcpServer: Server;
let unixServer: Server;
let udpServer: Socket;
let tcpPort = 0;
let udpPort = 0;

type Probe = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
let inside: Probe; // the probe's report from inside the sandbox
let outside: Probe; // the same probe run on the host (positive control)
let prepared: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
let result: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
let work: string;
let fakeHome: string;
let fakeRepo: string;
let tmpMarker: string;
let driver: string;
let sysprobe: string;
const probeBytes = readFileSync(PROBE);

function probeConfig(o: { selfPath: string; write: string[]; own: string; fillTmp: string; fillShm: string; tmpMarker?: string }): Record<string, unknown> {
  return {
    net: { tcpPort, udpPort, abstractName, externalIp: '192.0.2.1' },
    read: [join(fakeRepo, 'secret.txt'), join(fakeHome, '.ssh', 'id_ed25519'), join(fakeHome, '.npmrc'), '/root/.bashrc', '/etc/shadow', '/etc/passwd', join(work, 'fd50-canary')],
    fdProbe: 50,
    write: o.write,
    tmpMarker: o.tmpMarker,
    fill: { tmpDir: o.fillTmp, tmpBytes: 6 << 20, shmDir: o.fillShm, shmBytes: 18 << 20 },
    own: o.own,
    hostPid: process.pid,
    unshare: true,
    selfPath: o.selfPath,
  };
}

beforeAll(async () => {
  assertToolchain();
  work = tempDir('iso');
  dirs.push(work);
  fakeHome = join(work, 'home');
  fakeRepo = join(work, 'repo');
  mkdirSync(join(fakeHome, '.ssh'), { recursive: true });
  mkdirSync(join(fakeRepo, '.git'), { recursive: true });
  writeFileSync(join(fakeHome, '.ssh', 'id_ed25519'), `-----BEGIN OPENSSH PRIVATE KEY----- ${canary}\n`);
  writeFileSync(join(fakeHome, '.npmrc'), `//registry.npmjs.org/:_authToken=${canary}\n`);
  writeFileSync(join(fakeRepo, 'secret.txt'), `repo secret ${canary}\n`);
  writeFileSync(join(work, 'fd50-canary'), `descriptor secret ${canary}\n`);
  tmpMarker = `/tmp/governed-probe-marker-${randomBytes(8).toString('hex')}`;

  tcpServer = createServer((s) => {
    hits.tcp++;
    s.destroy();
  });
  await new Promise<void>((r) => tcpServer.listen(0, '127.0.0.1', r));
  tcpPort = (tcpServer.address() as { port: number }).port;
  unixServer = createServer((s) => {
    hits.unix++;
    s.destroy();
  });
  await new Promise<void>((r) => unixServer.listen(`\0${abstractName}`, r));
  udpServer = createSocket('udp4');
  udpServer.on('message', () => hits.udp++);
  await new Promise<void>((r) => udpServer.bind(0, '127.0.0.1', r));
  udpPort = udpServer.address().port;

  driver = await buildDriver(work);
  sysprobe = compileSysprobe(work);

  // Inside: the driver (the governed side) runs with the attacker-shaped environment.
  const bundle = Buffer.from(JSON.stringify(probeConfig({
    selfPath: '/opt/reviewer/reviewer',
    write: ['/probe-x', '/usr/probe-x', '/bundle/probe-x', '/opt/reviewer/probe-x', '/dev/probe-x', '/proc/probe-x', '/etc/probe-x'],
    own: '/opt/reviewer/reviewer',
    fillTmp: '/tmp',
    fillShm: '/dev/shm',
    tmpMarker,
  })));
  const allow = await realAllow(sha256(probeBytes));
  const job = writeJob(work, 'job.json', driverRequest({
    allow,
    reviewerPath: PROBE,
    bundleB64: bundle.toString('base64'),
    env: { POLICY_VAR: 'from-policy' },
    uid: SANDBOX_UID,
    gid: SANDBOX_UID,
    limits: testLimits({ tmpfsBytes: 4 << 20, nproc: 64 }),
  }));
  const d = startDriver(driver, job, {
    shell: `exec 50<"${join(work, 'fd50-canary')}";`,
    env: { HOME: fakeHome, GOVERNED_TEST_CANARY: canary, SSH_AUTH_SOCK: join(fakeHome, 'agent.sock') },
    cwd: fakeRepo,
  });
  prepared = await d.next('prepared');
  result = await d.next('result');
  await d.exited;
  if (result.event !== 'result') throw new Error(`driver failed: ${JSON.stringify(result)}`);
  inside = JSON.parse(Buffer.from(result.stdout as string, 'base64').toString('utf8')) as Probe;

  // Outside: the same probe, same environment, descriptor and cwd, directly on the host.
  const ownCopy = join(work, 'own-copy.cjs');
  copyFileSync(PROBE, ownCopy);
  const shmDir = join(work, 'shm');
  mkdirSync(shmDir);
  const controlBundle = writeBundle(work, 'control.json', JSON.stringify(probeConfig({
    selfPath: PROBE,
    write: [join(work, 'w1'), join(work, 'w2')],
    own: ownCopy,
    fillTmp: work,
    fillShm: shmDir,
  })));
  // Asynchronously: the host servers must keep accepting while the control probe connects.
  const control = spawn('/bin/bash', ['-c', `exec 50<"${join(work, 'fd50-canary')}"; exec "$@"`, 'sh', NODE, PROBE], {
    env: { PATH: '/usr/bin:/bin', HOME: fakeHome, GOVERNED_TEST_CANARY: canary, GOVERNED_BUNDLE: controlBundle },
    cwd: fakeRepo,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let controlOut = '';
  control.stdout.on('data', (c: Buffer) => (controlOut += c.toString('utf8')));
  await new Promise((r) => control.on('close', r));
  await waitFor(() => hits.tcp > 0 && hits.unix > 0 && hits.udp > 0, 5000);
  outside = JSON.parse(controlOut) as Probe;
}, 120_000);

afterAll(() => {
  tcpServer?.close();
  unixServer?.close();
  udpServer?.close();
  cleanup(dirs);
});

describe('the sandboxed run itself', () => {
  it('ran to completion under the sandbox uid with the streamed, allowlisted bytes', () => {
    expect(result.exitCode).toBe(0);
    expect(result.timedOut).toBe(false);
    expect(result.setupFailed).toBe(false);
    expect(result.cleanupVerified).toBe(true);
    expect(result.facts.reviewerSha256).toBe(sha256(probeBytes));
    expect(result.facts.uidSeparated).toBe(IS_ROOT);
    expect(inside.crashed).toBeUndefined();
  });
});

describe('property 1: no network', () => {
  it('TCP to a host loopback port, an external IP, UDP and a host abstract unix socket all fail; the servers saw nothing', () => {
    expect(outside.net.tcpHost.ok).toBe(true);
    expect(outside.net.unixAbstract.ok).toBe(true);
    expect(outside.net.udp.ok).toBe(true);
    // Offline CI cannot reach 192.0.2.1, but outside the socket is created: the error is never EAFNOSUPPORT.
    expect(outside.net.tcpExternal.code).not.toBe('EAFNOSUPPORT');
    const before = { ...hits };
    expect(inside.net.tcpHost).toEqual({ ok: false, code: 'EAFNOSUPPORT' });
    expect(inside.net.tcpExternal).toEqual({ ok: false, code: 'EAFNOSUPPORT' });
    expect(inside.net.udp).toEqual({ ok: false, code: 'EAFNOSUPPORT' });
    // AF_UNIX is allowed by the filter; the empty network namespace has no host abstract sockets.
    expect(inside.net.unixAbstract).toEqual({ ok: false, code: 'ECONNREFUSED' });
    // Only the control's three connections (tcp, unix, udp) reached the servers.
    expect(before).toEqual({ tcp: 1, unix: 1, udp: 1 });
  });
});

describe('property 2: no repository, HOME or key access', () => {
  it('canary files in the repo, HOME, .ssh and .npmrc, /root and /etc/shadow are absent; the canary appears nowhere', () => {
    for (const p of [join(fakeRepo, 'secret.txt'), join(fakeHome, '.ssh', 'id_ed25519'), join(fakeHome, '.npmrc')]) {
      expect(outside.read[p].ok, p).toBe(true);
      expect(outside.read[p].value, p).toContain(canary);
      expect(inside.read[p], p).toEqual({ ok: false, code: 'ENOENT' });
    }
    expect(outside.read['/etc/passwd'].ok).toBe(true);
    for (const p of ['/root/.bashrc', '/etc/shadow', '/etc/passwd']) expect(inside.read[p], p).toEqual({ ok: false, code: 'ENOENT' });
    expect(JSON.stringify(inside)).not.toContain(canary);
    expect(inside.cwd).toBe('/tmp');
  });
});

describe('property 3: no environment leak', () => {
  it('exactly the docs/reviewers.md#the-reviewers-world variables plus the policy ones; /proc/1/environ and /proc/self/environ hold no canary', () => {
    expect(outside.env.keys).toContain('GOVERNED_TEST_CANARY');
    expect(outside.env.self.value).toContain(canary);
    expect(inside.env.keys).toEqual(['GOVERNED_BUNDLE', 'HOME', 'LANG', 'PATH', 'POLICY_VAR', 'TMPDIR']);
    expect(inside.env.proc1.value).not.toContain(canary);
    expect(inside.env.self.value).not.toContain(canary);
    expect(inside.env.proc1.value).not.toContain('SSH_AUTH_SOCK');
    expect(inside.env.proc1.value).toContain('GOVERNED_BUNDLE=/bundle/review-bundle.json\0');
  });
});

describe('property 4: no descriptor leak', () => {
  it('descriptor 50 (inherited without O_CLOEXEC by the governed process) does not reach the reviewer', () => {
    expect(outside.fdProbe.ok).toBe(true);
    expect(outside.fdProbe.value).toContain(canary);
    expect(inside.fdProbe).toEqual({ ok: false, code: 'ENOENT' });
    // 0 is /dev/null, 1 and 2 the capped pipes; everything else is the interpreter's own
    // (epoll, eventfd, its internal pipes, /dev/null) — never a file of the host.
    const targets = (inside.fds as { fd: number; target: { ok: boolean; value: string } }[]).filter((f) => f.target.ok);
    expect(targets.find((f) => f.fd === 0)?.target.value).toBe('/dev/null');
    for (const f of targets) {
      if (f.fd === 0) continue;
      expect(f.target.value, String(f.fd)).toMatch(/^(socket|pipe|anon_inode):|^\/proc\/\d+\/fd$|^\/dev\/null$/);
    }
  });
});

describe('property 5: no host path leak', () => {
  it('/proc/self/mountinfo and /proc/1/cmdline name no host path', () => {
    expect(inside.cmdline1.value).toBe('/usr/bin/node\0/opt/reviewer/reviewer\0');
    for (const leak of [work, fakeRepo, fakeHome, 'fixtures', '/work/', '/tmp/governed-sbx']) {
      expect(inside.mountinfo.value, leak).not.toContain(leak);
      expect(inside.cmdline1.value, leak).not.toContain(leak);
    }
    expect(inside.mountinfo.value).toMatch(/\/bindfile[^\n]* \/bundle\/review-bundle\.json /);
  });

  it('positive control: the same check catches a host path bound with --ro-bind', () => {
    const bundle = writeBundle(work, 'leaky.json', '{}');
    const r = spawnSync('/usr/bin/bwrap', ['--unshare-all', '--ro-bind', '/usr', '/usr', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64', '--proc', '/proc', '--ro-bind', bundle, '/bundle/b.json', '--', '/usr/bin/cat', '/proc/self/mountinfo'], { env: {}, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(work);
  });
});

describe('property 6: read-only filesystem', () => {
  it('writes to /, /usr, /bundle, /opt/reviewer, /dev, /proc and /etc fail; the control writes succeed', () => {
    for (const w of Object.values(outside.write) as { ok: boolean }[]) expect(w.ok).toBe(true);
    for (const [p, w] of Object.entries(inside.write) as [string, { ok: boolean; code: string }][]) {
      expect(w.ok, p).toBe(false);
      expect(['EROFS', 'EACCES', 'ENOENT', 'EPERM'], `${p}: ${w.code}`).toContain(w.code);
    }
    for (const p of ['/probe-x', '/usr/probe-x', '/bundle/probe-x', '/opt/reviewer/probe-x', '/dev/probe-x']) expect(inside.write[p].code, p).toBe('EROFS');
  });

  it('/tmp is writable, invisible on the host, and capped (ENOSPC); /dev/shm likewise', () => {
    expect(inside.tmpMarker.ok).toBe(true);
    expect(existsSync(tmpMarker)).toBe(false);
    expect(outside.fill.tmp.ok).toBe(true);
    expect(outside.fill.shm.ok).toBe(true);
    expect(inside.fill.tmp.code).toBe('ENOSPC');
    expect(inside.fill.tmp.written).toBeLessThanOrEqual(4 << 20);
    expect(inside.fill.shm.code).toBe('ENOSPC');
    expect(inside.fill.shm.written).toBeLessThanOrEqual(16 << 20);
  });
});

describe('property 7: PID isolation', () => {
  it('only its own PIDs are visible and the host test process cannot be signalled', () => {
    expect(outside.killHost.ok).toBe(true);
    expect(outside.procPids).toContain(process.pid);
    expect(inside.killHost).toEqual({ ok: false, code: 'ESRCH' });
    expect(inside.identity.pid).toBe(1);
    expect(Math.max(...inside.procPids)).toBeLessThan(10);
    expect(inside.procPids).not.toContain(process.pid);
  });
});

describe('property 8: privileges', () => {
  it('CapEff = CapBnd = 0, NoNewPrivs = 1, Seccomp = 2 (filter mode), as the dedicated uid when governed is root', () => {
    expect(outside.status.Seccomp).toBe('0');
    if (IS_ROOT) expect(outside.status.CapEff).not.toBe('0000000000000000');
    expect(inside.status.CapEff).toBe('0000000000000000');
    expect(inside.status.CapBnd).toBe('0000000000000000');
    expect(inside.status.CapPrm).toBe('0000000000000000');
    expect(inside.status.NoNewPrivs).toBe('1');
    expect(inside.status.Seccomp).toBe('2');
    if (IS_ROOT) {
      expect(inside.status.Uid.split(/\s+/)).toEqual(Array(4).fill(String(SANDBOX_UID)));
      expect(inside.status.Groups).toBe('');
    }
  });

  it('the same holds when governed itself is unprivileged (uid_separated: false)', async () => {
    expect(IS_ROOT).toBe(true); // CI runs as root; the unprivileged run is started from it
    const job = writeJob(work, 'job-unpriv.json', driverRequest({
      allow: await realAllow(sha256(probeBytes)),
      reviewerPath: join(work, 'probe-unpriv.cjs'),
      bundleB64: Buffer.from(JSON.stringify({ selfPath: '/opt/reviewer/reviewer' })).toString('base64'),
      uid: SANDBOX_UID,
      gid: SANDBOX_UID,
    }));
    copyFileSync(PROBE, join(work, 'probe-unpriv.cjs'));
    const d = startDriver(driver, job, { uid: UNPRIV_UID });
    const r = await d.next('result');
    await d.exited;
    expect(r.event).toBe('result');
    const report = JSON.parse(Buffer.from(r.stdout as string, 'base64').toString('utf8')) as Probe;
    const facts = r.facts as { uidSeparated: boolean; uid: number };
    expect(facts.uidSeparated).toBe(false);
    expect(facts.uid).toBe(UNPRIV_UID);
    expect(report.status.CapEff).toBe('0000000000000000');
    expect(report.status.CapBnd).toBe('0000000000000000');
    expect(report.status.NoNewPrivs).toBe('1');
    expect(report.status.Seccomp).toBe('2');
    expect(report.status.Uid.split(/\s+/)).toEqual(Array(4).fill(String(UNPRIV_UID)));
  });
});

describe('property 9: nested namespaces disabled', () => {
  it('unshare -U / -n / -m fail inside and succeed outside', () => {
    if (IS_ROOT) expect(outside.unshare).toEqual({ user: 0, net: 0, mount: 0 });
    else expect(outside.unshare.user).toBe(0);
    expect(inside.unshare.user).not.toBe(0);
    expect(inside.unshare.net).not.toBe(0);
    expect(inside.unshare.mount).not.toBe(0);
  });
});

describe('property 10: syscall filter (C probe)', () => {
  let inC: Record<string, string>;
  let outC: Record<string, string>;
  const runC = async (mode: string, limits = testLimits()): Promise<{ r: Awaited<ReturnType<typeof runSandboxed>>; kv: Record<string, string> }> => {
    const bytes = readFileSync(sysprobe);
    const r = await runSandboxed({
      allow: await realAllow(sha256(bytes)),
      interpreter: LD_SO,
      reviewer: { bytes },
      bundleBytes: Buffer.from(`${mode}\n`),
      env: {},
      uid: SANDBOX_UID,
      gid: SANDBOX_UID,
      limits,
    });
    return { r, kv: kv(r.stdout.toString('utf8')) };
  };

  beforeAll(async () => {
    inC = (await runC('syscalls')).kv;
    outC = kv(runOutside([sysprobe], writeBundle(work, 'mode-syscalls', 'syscalls\n')).stdout);
  });

  it('debugging, keyrings, eBPF, perf, userfaultfd, personality: reach the kernel outside, EPERM inside', () => {
    for (const k of ['ptrace_attach', 'process_vm_readv', 'keyctl', 'add_key', 'personality', 'userfaultfd']) {
      expect(outC[k], `outside ${k}`).toBe('0');
      expect(inC[k], `inside ${k}`).toBe('EPERM');
    }
    for (const k of ['bpf', 'perf_event_open', 'setns', 'mount', 'umount2']) {
      expect(outC[k], `outside ${k}`).not.toBe('EPERM');
      expect(inC[k], `inside ${k}`).toBe('EPERM');
    }
  });

  it('io_uring, open_tree and clone3: ENOSYS inside so libc falls back (reached the kernel outside)', () => {
    for (const k of ['io_uring_setup', 'open_tree', 'clone3']) {
      expect(outC[k], `outside ${k}`).not.toBe('ENOSYS');
      expect(inC[k], `inside ${k}`).toBe('ENOSYS');
    }
  });

  it('sockets: AF_UNIX only (high bits cannot disguise AF_INET)', () => {
    for (const k of ['socket_inet', 'socket_inet6', 'socket_netlink', 'socket_inet_highbits']) {
      expect(outC[k], `outside ${k}`).toBe('0');
      expect(inC[k], `inside ${k}`).toBe('EAFNOSUPPORT');
    }
    if (IS_ROOT) expect(outC.socket_packet).toBe('0');
    expect(inC.socket_packet).toBe('EAFNOSUPPORT');
    expect(inC.socket_unix).toBe('0');
    expect(inC.socketpair_unix).toBe('0');
  });

  it('namespace creation through unshare and clone flags is denied; plain fork still works', () => {
    expect(outC.unshare_user).toBe('0');
    expect(outC.clone_newnet).toBe(IS_ROOT ? '0' : 'EPERM');
    expect(inC.unshare_user).toBe('EPERM');
    expect(inC.unshare_ns).toBe('EPERM');
    expect(inC.clone_newnet).toBe('EPERM');
    expect(inC.fork).toBe('0');
    expect(inC.done).toBe('1');
  });

  it('an x32-ABI syscall kills the process (SIGSYS); outside this kernel answers ENOSYS', async () => {
    const out = kv(runOutside([sysprobe], writeBundle(work, 'mode-x32', 'x32\n')).stdout);
    expect(out.x32_getpid).toBe('ENOSYS');
    const { r, kv: k } = await runC('x32');
    expect(k.x32_getpid).toBeUndefined();
    expect(k.done).toBeUndefined();
    expect(r.exitCode).toBe(128 + 31); // bwrap reports 128 + SIGSYS
  });
});

describe('property 19: resource limits', () => {
  it('/proc/self/limits shows the configured values', () => {
    const lim = inside.limits.value as string;
    const row = (name: string): string[] => (new RegExp(`^${name}\\s+(\\S+)\\s+(\\S+)`, 'm').exec(lim) ?? []).slice(1);
    expect(row('Max cpu time')).toEqual(['20', '20']);
    expect(row('Max file size')).toEqual([String(64 << 20), String(64 << 20)]);
    expect(row('Max processes')).toEqual(['64', '64']);
    expect(row('Max open files')).toEqual(['256', '256']);
    expect(row('Max address space')).toEqual([String(2 * 1024 ** 3), String(2 * 1024 ** 3)]);
    expect(row('Max core file size')).toEqual(['0', '0']);
    expect(outside.limits.value).not.toMatch(/^Max processes\s+64\s/m);
  });

  it('a fork storm is bounded by RLIMIT_NPROC (the sandbox uid is unprivileged); unbounded outside', async () => {
    const out = kv(runOutside([sysprobe], writeBundle(work, 'mode-fork', 'forkstorm 100\n')).stdout);
    expect(out.forked).toBe('100');
    const bytes = readFileSync(sysprobe);
    const r = await runSandboxed({
      allow: await realAllow(sha256(bytes)),
      interpreter: LD_SO,
      reviewer: { bytes },
      bundleBytes: Buffer.from('forkstorm 100\n'),
      env: {},
      uid: SANDBOX_UID,
      gid: SANDBOX_UID,
      limits: testLimits({ nproc: 24 }),
    });
    const k = kv(r.stdout.toString('utf8'));
    expect(Number(k.forked)).toBeLessThan(24);
    expect(k.fork_error).toBe('EAGAIN');
    expect(r.cleanupVerified).toBe(true);
  });
});

describe('property 12(a, d): pinned bytes are the bytes that run, and they are immutable', () => {
  it('the reviewer hashes its own file to the allowlisted digest', () => {
    expect(outside.selfSha256.value).toBe(sha256(probeBytes));
    expect(inside.selfSha256.value).toBe(sha256(probeBytes));
  });

  it('opening its own file read-write, chmod, rename and unlink fail inside and succeed outside', () => {
    expect(outside.own.openRw.ok).toBe(true);
    expect(outside.own.chmod.ok).toBe(true);
    expect(outside.own.rename.ok).toBe(true);
    for (const op of ['openRw', 'chmod', 'rename', 'unlink', 'exeWrite']) {
      expect(inside.own[op].ok, op).toBe(false);
      expect(['EROFS', 'EACCES', 'EPERM', 'ETXTBSY'], `${op}: ${inside.own[op].code}`).toContain(inside.own[op].code);
    }
  });
});

describe('property 16 (part): identity recorded from outside matches what the reviewer sees', () => {
  it('the namespaces the driver recorded are the reviewer\'s, differ from the host\'s, and the boot id is the host\'s', () => {
    const id = prepared.identity as { boot_id: string; pid: number; start_time: string; namespaces: Record<string, number> };
    expect(id).toEqual(result.identity);
    expect(inside.identity.ns).toEqual(id.namespaces);
    expect(inside.identity.startTime).toBe(id.start_time);
    expect(inside.identity.bootId).toBe(readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim());
    expect(id.boot_id).toBe(inside.identity.bootId);
    for (const [name, inode] of Object.entries(id.namespaces)) expect(inode, name).not.toBe(outside.identity.ns[name]);
    expect(inside.hostname.value).toBe('governed');
  });
});
