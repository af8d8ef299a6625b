// Lifecycle properties 11–16 of docs/sandbox.md#the-invocation against REAL bwrap: terminal injection under
// a pty, pinning/TOCTOU (a live swap race), timeout and cleanup of double-forked children, the
// stdout cap, death of the governed process, and the identity recorded from outside.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readlinkSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareSandbox, runSandboxed, type SandboxRequest } from '../runner/sandbox/run.js';
import { GO_GATE } from '../runner/sandbox/profile.js';
import { isGovernedError } from '../src/core/errors.js';
import {
  assertToolchain, buildDriver, cleanup, compileSysprobe, driverRequest, kv, LD_SO, NODE, pidsInNamespace, pidsOfUid, realAllow,
  sha256, startDriver, tempDir, testLimits, waitFor, writeBundle, writeJob,
} from './sandbox-helpers.js';

const SANDBOX_UID = 64502;
const dirs: string[] = [];
let work: string;
let driver: string;
let sysprobe: string;

beforeAll(async () => {
  assertToolchain();
  work = tempDir('life');
  dirs.push(work);
  driver = await buildDriver(work);
  sysprobe = compileSysprobe(work);
}, 60_000);

afterAll(() => cleanup(dirs));

async function request(reviewer: Buffer | string, over: Partial<SandboxRequest> = {}): Promise<SandboxRequest> {
  const bytes = typeof reviewer === 'string' ? Buffer.from(reviewer) : reviewer;
  return {
    allow: await realAllow(sha256(bytes)),
    interpreter: NODE,
    reviewer: { bytes },
    bundleBytes: Buffer.from('{}'),
    env: {},
    uid: SANDBOX_UID,
    gid: SANDBOX_UID,
    limits: testLimits(),
    ...over,
  };
}

describe('property 11: terminal injection', () => {
  it('under a pty, TIOCSTI (also with a high bit set) is denied and /dev/tty is unreachable; the control injects', async () => {
    const legacy = readFileSync('/proc/sys/dev/tty/legacy_tiocsti', 'utf8').trim();
    const modeFile = writeBundle(work, 'mode-tiocsti', 'tiocsti\n');
    // Control: the same probe directly on a pty.
    const control = spawnSync('/usr/bin/script', ['-qec', sysprobe, '/dev/null'], { env: { PATH: '/usr/bin', GOVERNED_BUNDLE: modeFile }, encoding: 'utf8', timeout: 20_000 });
    const out = kv(control.stdout.replace(/\r/g, ''));
    expect(out.isatty_fd0).toBe('1');
    if (legacy === '1') {
      expect(out.tiocsti_fd0).toBe('0'); // the kernel lets a process inject into its own terminal
      expect(out.tiocsti_highbit_fd0).toBe('0');
    } else {
      // dev.tty.legacy_tiocsti = 0: the kernel already refuses TIOCSTI (EIO); the sandbox's own
      // defence (seccomp EPERM, no controlling tty) is still checked below.
      expect(out.tiocsti_fd0).toBe('EIO');
    }
    // Inside: the governed process (the driver) itself runs on the pty.
    const bytes = readFileSync(sysprobe);
    const job = writeJob(work, 'job-tty.json', driverRequest({
      allow: await realAllow(sha256(bytes)),
      interpreter: LD_SO,
      reviewerB64: bytes.toString('base64'),
      bundleB64: Buffer.from('tiocsti\n').toString('base64'),
      uid: SANDBOX_UID,
      gid: SANDBOX_UID,
    }));
    const viaPty = spawnSync('/usr/bin/script', ['-qec', `${NODE} ${driver} ${job}`, '/dev/null'], { env: { PATH: '/usr/bin' }, encoding: 'utf8', timeout: 30_000 });
    const line = viaPty.stdout.split(/\r?\n/).find((l) => l.includes('"event":"result"'));
    expect(line).toBeDefined();
    const r = JSON.parse(line as string) as { stdout: string; exitCode: number };
    expect(r.exitCode).toBe(0);
    const k = kv(Buffer.from(r.stdout, 'base64').toString('utf8'));
    for (const fd of [0, 1, 2]) {
      expect(k[`tiocsti_fd${fd}`], `fd${fd}`).toBe('EPERM');
      expect(k[`tiocsti_highbit_fd${fd}`], `fd${fd} high bit`).toBe('EPERM');
      expect(k[`isatty_fd${fd}`]).toBe('0');
    }
    expect(k.open_dev_tty).toBe('ENXIO'); // --new-session: no controlling terminal
  });
});

describe('property 12: pinning and TOCTOU', () => {
  const size = 256 * 1024;
  const good = Buffer.concat([Buffer.from('GOOD\n'), Buffer.alloc(size - 5, 0x20)]);
  const evil = Buffer.concat([Buffer.from('EVIL\n'), Buffer.alloc(size - 5, 0x20)]);

  it('(b) positive control: hashing a path and then binding that path runs whatever is there now', () => {
    const p = join(work, 'naive-reviewer');
    writeFileSync(p, good);
    const hashed = sha256(readFileSync(p));
    writeFileSync(join(work, 'naive-evil'), evil);
    renameSync(join(work, 'naive-evil'), p); // the swap after the check
    const r = spawnSync('/usr/bin/bwrap', ['--unshare-all', '--ro-bind', '/usr', '/usr', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64', '--ro-bind', p, '/opt/reviewer', '--', '/usr/bin/head', '-c', '4', '/opt/reviewer'], { env: {}, encoding: 'utf8' });
    expect(hashed).toBe(sha256(good));
    expect(r.stdout).toBe('EVIL');
  });

  it('(b) a swap race over 100 runs never executes EVIL bytes: each run is GOOD or refused', async () => {
    const target = join(work, 'raced-reviewer');
    writeFileSync(target, good);
    writeFileSync(join(work, 'good.src'), good);
    writeFileSync(join(work, 'evil.src'), evil);
    // The attacker: rename-swaps and rewrites in place, as fast as it can.
    const swapper = spawn(NODE, ['-e', `
      const fs = require('fs'); const d = ${JSON.stringify(work)}; let i = 0;
      const good = fs.readFileSync(d + '/good.src'), evil = fs.readFileSync(d + '/evil.src');
      setInterval(() => {
        for (let k = 0; k < 4; k++, i++) {
          const src = i % 2 ? evil : good;
          if (i % 4 < 2) { fs.writeFileSync(d + '/tmp-' + (i % 2), src); fs.renameSync(d + '/tmp-' + (i % 2), ${JSON.stringify(target)}); }
          else fs.writeFileSync(${JSON.stringify(target)}, src);
        }
      }, 1);`], { stdio: 'ignore' });
    const tally = { good: 0, evil: 0, refused: 0, other: 0 };
    try {
      const base = await request(good, { interpreter: '/usr/bin/head', limits: testLimits({ timeoutMs: 10_000 }) });
      const args = { ...base, reviewer: { path: target }, bundleBytes: Buffer.from('{}') };
      // /usr/bin/head is the "interpreter": `head /opt/reviewer/reviewer` prints the pinned bytes.
      for (let i = 0; i < 100; i++) {
        try {
          const r = await runSandboxed(args);
          const first = r.stdout.subarray(0, 4).toString();
          if (first === 'GOOD') tally.good++;
          else if (first === 'EVIL') tally.evil++;
          else tally.other++;
        } catch (e) {
          if (isGovernedError(e) && e.code === 'reviewer_not_allowlisted') tally.refused++;
          else throw e;
        }
      }
    } finally {
      swapper.kill('SIGKILL');
    }
    expect(tally.evil).toBe(0);
    expect(tally.other).toBe(0);
    expect(tally.good).toBeGreaterThan(0);
    expect(tally.refused).toBeGreaterThan(0); // the attacker really was racing
  }, 60_000);

  it('(c) streamed bytes that are not the allowlisted ones are refused and the reviewer is never released', async () => {
    const p = join(work, 'tampered-reviewer.js');
    const allowed = 'process.stdout.write("RAN")';
    writeFileSync(p, 'process.stdout.write("RAN-TAMPERED")');
    const req = { ...(await request(allowed)), reviewer: { path: p } };
    let code = 'none';
    try {
      await prepareSandbox(req);
    } catch (e) {
      code = isGovernedError(e) ? e.code : 'unexpected';
    }
    expect(code).toBe('reviewer_not_allowlisted');
    expect(await waitFor(() => pidsOfUid(SANDBOX_UID).length === 0, 5000)).toBe(true);
    // Same bytes, allowlisted: this reviewer does run (the check above could have failed).
    const ok = await runSandboxed({ ...(await request(readFileSync(p))), reviewer: { path: p } });
    expect(ok.stdout.toString()).toBe('RAN-TAMPERED');
  });
});

describe('property 13: timeout and cleanup', () => {
  it('a reviewer that double-forks, setsids and nohups is killed at the timeout with no survivor', async () => {
    const reviewer = `
      const { spawn } = require('child_process');
      spawn('/usr/bin/setsid', ['/usr/bin/sh', '-c', '/usr/bin/sleep 1000 & /usr/bin/sleep 1000'], { detached: true, stdio: 'ignore' }).unref();
      spawn('/usr/bin/nohup', ['/usr/bin/sleep', '1000'], { detached: true, stdio: 'ignore' }).unref();
      setInterval(() => {}, 1000);`;
    const sb = await prepareSandbox(await request(reviewer, { limits: testLimits({ timeoutMs: 2000 }) }));
    const ns = sb.identity.namespaces.pid;
    const running = sb.release();
    // Control: while it runs, the scan sees the reviewer and its descendants in the namespace.
    expect(await waitFor(() => pidsInNamespace(ns).length >= 4, 5000)).toBe(true);
    const r = await running;
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBeNull();
    expect(r.signal).toBe('SIGKILL');
    expect(r.durationMs).toBeLessThan(20_000); // within 10× the limit
    expect(r.durationMs).toBeGreaterThanOrEqual(1900);
    expect(r.cleanupVerified).toBe(true);
    expect(pidsInNamespace(ns)).toEqual([]);
    expect(await waitFor(() => pidsOfUid(SANDBOX_UID).length === 0, 5000)).toBe(true);
  });
});

describe('property 14: output cap', () => {
  it('endless stdout is cut at the cap, memory stays bounded, the sandbox is dead', async () => {
    const reviewer = `const b = Buffer.alloc(65536, 0x79); const w = () => { while (process.stdout.write(b)); process.stdout.once('drain', w); }; w();`;
    const sb = await prepareSandbox(await request(reviewer, { limits: testLimits({ maxOutputBytes: 256 * 1024 }) }));
    const r = await sb.release();
    expect(r.outputOverflow).toBe(true);
    expect(r.stdout.length).toBe(256 * 1024);
    expect(r.exitCode).toBeNull();
    expect(r.timedOut).toBe(false);
    expect(r.cleanupVerified).toBe(true);
    expect(pidsInNamespace(sb.identity.namespaces.pid)).toEqual([]);
  });

  it('stderr is drained and only counted', async () => {
    const r = await runSandboxed(await request(`process.stderr.write('secret-stderr-canary'.repeat(1000)); process.stdout.write('ok')`));
    expect(r.stderrBytes).toBe('secret-stderr-canary'.length * 1000);
    expect(JSON.stringify({ ...r, stdout: r.stdout.toString() })).not.toContain('secret-stderr-canary');
    expect(r.stdout.toString()).toBe('ok');
    expect(r.exitCode).toBe(0);
  });
});

describe('property 15: parent death', () => {
  for (const phase of ['running', 'blocked'] as const) {
    it(`SIGKILL of the governed process leaves no process in the sandbox (${phase})`, async () => {
      const bytes = Buffer.from('setInterval(() => {}, 1000); process.stdout.write("up")');
      const job = writeJob(work, `job-death-${phase}.json`, driverRequest({
        allow: await realAllow(sha256(bytes)),
        reviewerB64: bytes.toString('base64'),
        bundleB64: Buffer.from('{}').toString('base64'),
        uid: SANDBOX_UID,
        gid: SANDBOX_UID,
        limits: testLimits({ timeoutMs: 60_000 }),
      }), { waitForGo: phase === 'blocked' });
      const d = startDriver(driver, job);
      const prepared = await d.next('prepared');
      expect(prepared.event).toBe('prepared');
      const id = prepared.identity as { pid: number; namespaces: { pid: number } };
      if (phase === 'running') {
        // Control: the reviewer really runs (bwrap's child has exec'd the interpreter).
        expect(await waitFor(() => { try { return readlinkSync(`/proc/${id.pid}/exe`) === NODE; } catch { return false; } }, 10_000)).toBe(true);
      }
      expect(pidsInNamespace(id.namespaces.pid).length).toBeGreaterThan(0);
      d.child.kill('SIGKILL');
      await d.exited;
      // Blocked: bwrap's --block-fd continues on EOF, but the go-gate then reads EOF and exits
      // 125: the reviewer's interpreter is never executed (sampled until the process is gone).
      const exes = new Set<string>();
      expect(await waitFor(() => {
        try {
          exes.add(readlinkSync(`/proc/${id.pid}/exe`));
        } catch {
          // gone, or a zombie
        }
        return pidsInNamespace(id.namespaces.pid).length === 0;
      }, 10_000, 1)).toBe(true);
      if (phase === 'blocked') expect(exes.has(NODE)).toBe(false);
      expect(await waitFor(() => pidsOfUid(SANDBOX_UID).length === 0, 5000)).toBe(true);
    });
  }
});

describe('the go-gate (release is a positive signal, never EOF)', () => {
  const gate = (input: string | null): { status: number | null; stdout: string } => {
    const r = spawnSync('/bin/bash', ['-c', `exec 8<&0 0</dev/null; exec /usr/bin/sh -c '${GO_GATE.replace(/'/g, "'\\''")}' governed-gate /usr/bin/echo RAN`], {
      input: input ?? '',
      encoding: 'utf8',
    });
    return { status: r.status, stdout: r.stdout };
  };
  it('runs the chain only after reading exactly `go`; EOF or anything else exits 125', () => {
    expect(gate('go\n')).toEqual({ status: 0, stdout: 'RAN\n' });
    expect(gate('')).toEqual({ status: 125, stdout: '' });
    expect(gate('1')).toEqual({ status: 125, stdout: '' });
    expect(gate('gone\n')).toEqual({ status: 125, stdout: '' });
  });
});

describe('property 16: identity record', () => {
  it('pid, start time and namespaces read from outside during the run match the record; boot id is the host\'s', async () => {
    const reviewer = `
      const fs = require('fs'); const ns = {};
      for (const n of ['cgroup','ipc','mnt','net','pid','user','uts']) ns[n] = Number(/\\[(\\d+)\\]/.exec(fs.readlinkSync('/proc/self/ns/' + n))[1]);
      const st = fs.readFileSync('/proc/self/stat', 'latin1');
      process.stdout.write(JSON.stringify({ ns, start: st.slice(st.lastIndexOf(')') + 2).split(' ')[19], pid: process.pid }));`;
    const sb = await prepareSandbox(await request(reviewer));
    const id = sb.identity;
    // Outside, while the sandbox exists (blocked before release):
    const stat = readFileSync(`/proc/${id.pid}/stat`, 'latin1');
    expect(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]).toBe(id.start_time);
    for (const [name, inode] of Object.entries(id.namespaces)) {
      expect(readlinkSync(`/proc/${id.pid}/ns/${name}`)).toBe(`${name}:[${inode}]`);
      expect(readlinkSync(`/proc/self/ns/${name}`)).not.toBe(`${name}:[${inode}]`);
    }
    expect(readFileSync(`/proc/${id.pid}/status`, 'latin1')).toMatch(new RegExp(`^NSpid:\\s+${id.pid}\\s+1$`, 'm'));
    expect(id.boot_id).toBe(readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim());
    const r = await sb.release();
    const seen = JSON.parse(r.stdout.toString()) as { ns: Record<string, number>; start: string; pid: number };
    expect(seen.ns).toEqual(id.namespaces);
    expect(seen.start).toBe(id.start_time);
    expect(seen.pid).toBe(1);
    expect(r.identity).toEqual(id);
  });

  it('release and abort are one-shot; an aborted sandbox never runs its reviewer', async () => {
    const sb = await prepareSandbox(await request('process.stdout.write("ran")'));
    await sb.abort();
    expect(pidsInNamespace(sb.identity.namespaces.pid)).toEqual([]);
    await expect(sb.release()).rejects.toMatchObject({ code: 'sandbox_state_invalid' });
    await expect(sb.abort()).rejects.toMatchObject({ code: 'sandbox_state_invalid' });
  });

  it('onStarted failing aborts the run (the claim could not be recorded)', async () => {
    await expect(
      runSandboxed({ ...(await request('process.stdout.write("ran")')), onStarted: () => { throw new Error('claim failed'); } }),
    ).rejects.toThrow('claim failed');
    expect(await waitFor(() => pidsOfUid(SANDBOX_UID).length === 0, 5000)).toBe(true);
  });
});

describe('exit status reporting', () => {
  it('a non-zero reviewer exit is reported as such, not as a setup failure', async () => {
    const r = await runSandboxed(await request('process.exitCode = 7'));
    expect(r.exitCode).toBe(7);
    expect(r.setupFailed).toBe(false);
  });

});
