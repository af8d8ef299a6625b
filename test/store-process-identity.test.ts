// docs/state.md#writers-and-leases: a writer's host process identity (boot id, pid, start time = field 22 of
// /proc/<pid>/stat) and liveness, with real processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isProcessAlive, readBootId, readProcessIdentity } from '../src/store/process-identity.js';
import { parseProcStat } from '../src/core/proc-stat.js';
import { cleanupDirs, codeOf, tempDir } from './store-helpers.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  cleanupDirs();
});

function exited(c: ChildProcess): Promise<void> {
  return new Promise((resolve) => (c.exitCode !== null || c.signalCode !== null ? resolve() : c.once('exit', () => resolve())));
}

/** Start `sleep` under an executable name whose comm is hostile: spaces and parentheses. */
function hostileSleeper(): ChildProcess {
  const dir = tempDir();
  const name = 'a) (b c) 9 9';
  const exe = join(dir, name);
  symlinkSync('/bin/sleep', exe);
  const child = spawn(exe, ['30'], { stdio: 'ignore' });
  children.push(child);
  return child;
}

async function waitForComm(pid: number, comm: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'latin1').trim() === comm) return;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('child never exec-ed');
}

describe('parseProcStat', () => {
  it('counts fields from the last ")" so a comm with spaces and parentheses cannot shift them', () => {
    const tail = Array.from({ length: 50 }, (_, i) => String(i + 3));
    tail[0] = 'S';
    tail[22 - 3] = '123456';
    const line = `4242 (x) (y z) 1 2 3) ${tail.join(' ')}\n`;
    expect(parseProcStat(Buffer.from(line))).toEqual({ state: 'S', ppid: 4, startTime: 123456 });
    // Non-UTF-8 bytes in comm are fine too.
    const bytes = Buffer.concat([Buffer.from('7 ('), Buffer.from([0xff, 0x29, 0x20]), Buffer.from(`) ${tail.join(' ')}`)]);
    expect(parseProcStat(bytes).startTime).toBe(123456);
  });

  it('refuses malformed stat lines (process_identity_invalid)', () => {
    expect(codeOf(() => parseProcStat(Buffer.from('1 no paren S 1 2')))).toBe('process_identity_invalid');
    expect(codeOf(() => parseProcStat(Buffer.from('1 (x) S 1 2 3')))).toBe('process_identity_invalid');
    const tail = Array.from({ length: 50 }, () => '1');
    tail[0] = 'S';
    tail[19] = '-5';
    expect(codeOf(() => parseProcStat(Buffer.from(`1 (x) ${tail.join(' ')}`)))).toBe('process_identity_invalid');
    tail[19] = '99999999999999999999';
    expect(codeOf(() => parseProcStat(Buffer.from(`1 (x) ${tail.join(' ')}`)))).toBe('process_identity_invalid');
  });
});

describe('process identity and liveness', () => {
  it('reads this process: boot id, pid and a start time matching field 22 of /proc/self/stat', () => {
    const id = readProcessIdentity(process.pid);
    expect(id.bootId).toBe(readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim());
    expect(id.pid).toBe(process.pid);
    const naive = readFileSync('/proc/self/stat', 'latin1').split(') ')[1]?.split(' ')[19];
    expect(String(id.startTime)).toBe(naive);
    expect(isProcessAlive(id)).toBe(true);
    expect(readBootId()).toBe(id.bootId);
  });

  it('reads a real process whose comm contains spaces and parentheses, then sees it die', async () => {
    const child = hostileSleeper();
    const pid = child.pid as number;
    await waitForComm(pid, 'a) (b c) 9 9');
    const id = readProcessIdentity(pid);
    // The naive split on the first ") " would read the wrong field for this comm.
    const raw = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const correct = raw.slice(raw.lastIndexOf(')') + 2).split(' ')[19];
    expect(String(id.startTime)).toBe(correct);
    expect(raw.split(') ')[1]?.split(' ')[19]).not.toBe(correct);
    expect(isProcessAlive(id)).toBe(true);
    // A recycled pid (other start time) or another boot is not the same process.
    expect(isProcessAlive({ ...id, startTime: id.startTime + 1 })).toBe(false);
    expect(isProcessAlive({ ...id, bootId: '00000000-0000-4000-8000-000000000000' })).toBe(false);
    child.kill('SIGKILL');
    await exited(child);
    expect(isProcessAlive(id)).toBe(false);
    expect(codeOf(() => readProcessIdentity(pid))).toBe('process_not_found');
  });

  it('refuses invalid pids (process_identity_invalid)', () => {
    for (const pid of [0, -1, 1.5, Number.NaN]) {
      expect(codeOf(() => readProcessIdentity(pid))).toBe('process_identity_invalid');
    }
  });
});
