// Guards the sandbox's lifetime (docs/sandbox.md "Lifetime"): a `governed review-run` SIGKILLed while its sandbox is being set up, right after the release, or while the reviewer runs leaves no process of the sandbox uid behind.
//
// Before the lifeline watcher and the two-step release, a runner killed during bwrap's setup left
// bwrap's first process waiting forever on bwrap's internal eventfd (PID 1 of its namespace, parent
// pid 1, deaf to SIGTERM), and one killed right after the release left the reviewer running as an
// orphan: --die-with-parent had not been armed yet in either. The exact points are reached with a
// fault injection that makes the runner SIGKILL itself (test/fixtures/run/kill-self-at.mjs); the
// last case kills it from outside. The world's sandbox uid is this file's own, so no other suite's
// sandbox is counted.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/cli.js';
import { cleanupDirs } from './state-helpers.js';
import { challengeStatus, expectLogSound, govOk, issue, makeRunWorld, runReviewAsync, waitForStatus, type RunWorld } from './run-helpers.js';
import { IS_ROOT, NODE, pidsOfUid, waitFor } from './sandbox-helpers.js';
import { readFileSync, readlinkSync } from 'node:fs';

const SANDBOX_UID = 64541;
const KILL_HOOK = join(REPO_ROOT, 'test', 'fixtures', 'run', 'kill-self-at.mjs');

let w: RunWorld;
beforeAll(async () => {
  // A reviewer that would outlive the test if it survived: it sleeps a minute.
  w = await makeRunWorld({ modes: ['clean', 'sleep'], sleepMs: 60_000, timeout: '120s', sandbox: { uid: SANDBOX_UID } });
}, 120_000);
afterAll(cleanupDirs);

/** Poll (up to 10 s, a bound on a hang, not on speed) until no live process of the uid is left;
 * whatever is left is killed so it cannot linger, and reported. */
async function expectNoSandboxLeft(): Promise<void> {
  const gone = await waitFor(() => pidsOfUid(SANDBOX_UID).length === 0, 10_000, 50);
  const pids = pidsOfUid(SANDBOX_UID);
  const left = pids.map(describe_);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  expect({ gone, left }).toEqual({ gone: true, left: [] });
}

/** What a leftover is, for the failure message: pid, parent, namespace pid list, the syscall it waits in, argv[0]. */
function describe_(pid: number): string {
  const read = (f: string): string => {
    try {
      return readFileSync(`/proc/${pid}/${f}`, 'latin1');
    } catch {
      return '?';
    }
  };
  const field = (name: string): string => new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(read('status'))?.[1]?.trim() ?? '?';
  return `${pid} ppid=${field('PPid')} nspid=${field('NSpid')} syscall=${read('syscall').split(' ').slice(0, 2).join(',')} argv0=${read('cmdline').split('\0')[0]}`;
}

async function killedAt(point: 'spawn' | 'release'): Promise<void> {
  const id = issue(w, 'sleep');
  const run = runReviewAsync(w, id, [], { nodeArgs: ['--import', KILL_HOOK], env: { GOVERNED_TEST_KILL_AT: point } });
  const r = await run.done;
  // Control: the injection fired (the runner died by SIGKILL, never printed a result) after its
  // claim, i.e. at the sandbox step.
  expect({ code: r.code, stdout: r.stdout }).toEqual({ code: null, stdout: '' });
  expect(challengeStatus(w, id)).toBe('claimed');
  await expectNoSandboxLeft();
  // The dead runner's claim is reaped as ABORTED, as after any crash.
  expect(govOk(w, ['run', 'reap', '--unit', w.unit]).aborted).toHaveLength(1);
  expect(challengeStatus(w, id)).toBe('aborted');
}

describe.skipIf(!IS_ROOT)('SIGKILL of review-run leaves no process of the sandbox uid (as root: the sandbox has its own uid)', () => {
  it('killed right after the sandbox was spawned, while bwrap sets it up (before release)', async () => {
    for (let i = 0; i < 3; i++) await killedAt('spawn');
  }, 120_000);

  it('killed right after the release byte was written to --block-fd', async () => {
    for (let i = 0; i < 3; i++) await killedAt('release');
  }, 120_000);

  it('killed from outside while the reviewer runs', async () => {
    const id = issue(w, 'sleep');
    const run = runReviewAsync(w, id);
    await waitForStatus(w, id, 'claimed');
    // Control: the reviewer really runs (a process of the sandbox uid executing the interpreter).
    const running = await waitFor(() => pidsOfUid(SANDBOX_UID).some((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/exe`) === NODE;
      } catch {
        return false;
      }
    }), 30_000);
    expect(running).toBe(true);
    run.kill('SIGKILL');
    expect((await run.done).code).toBeNull();
    await expectNoSandboxLeft();
    govOk(w, ['run', 'reap', '--unit', w.unit]);
    expect(challengeStatus(w, id)).toBe('aborted');
    expectLogSound(w);
  }, 120_000);

  it('positive control: the same world runs a review to its receipt, leaving nothing behind', async () => {
    const id = issue(w, 'clean');
    const r = await runReviewAsync(w, id).done;
    expect(r.code).toBe(0);
    await expectNoSandboxLeft();
  }, 60_000);
});
