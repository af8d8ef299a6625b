// Guards docs/runner.md "Reviewer independence": the sandboxed reviewer (and anything of a live run's sandbox) can never be registered as a writer, and a run whose reviewer identity is a registered writer's ends ABORTED — a CLEAN receipt never lists the reviewer's own process among the unit's writers.
//
// Before the fix, `writer register --pid <host pid of the sandboxed reviewer>` was accepted during
// the run and the CLEAN receipt named the reviewer's own process as one of the unit's writers.
// A real run with a reviewer that stays alive until the test signals it (mode `signal`), so every
// registration below happens while it runs, however loaded the machine; its host pid is found from
// /proc by the world's own sandbox uid (as root the reviewer runs as the policy's sandbox.uid).
import { spawn } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeStore, openStore, readProcessIdentity, registerWriter } from '../src/store/index.js';
import { cleanupDirs } from './state-helpers.js';
import { expectAborted, gov, govOk, headSeq, issue, makeRunWorld, readDb, runReviewAsync, storeDigest, waitForStatus, type RunWorld } from './run-helpers.js';
import { BWRAP, catchesUsr2, IS_ROOT, NODE, pidsOfUid, releaseUsr2, waitFor } from './sandbox-helpers.js';

const SANDBOX_UID = 64542;
let w: RunWorld;
beforeAll(async () => {
  // The reviewer ends when the test sends SIGUSR2; the sandbox timeout only bounds a test that fails first.
  w = await makeRunWorld({ modes: ['clean', 'signal'], timeout: '60s', sandbox: { uid: SANDBOX_UID } });
}, 120_000);
afterAll(cleanupDirs);

const exeOf = (pid: number): string | null => {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return null;
  }
};
const ppidOf = (pid: number): number | null => {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1]?.split(' ')[1]);
  } catch {
    return null;
  }
};

/** Every live process of the sandbox uid, as `pid<-ppid exe sigcgt`: what a failed search saw (ids and paths only). */
const sandboxProcesses = (): string =>
  pidsOfUid(SANDBOX_UID)
    .map((p) => `${p}<-${ppidOf(p)} ${exeOf(p)} usr2:${catchesUsr2(p)}`)
    .join('; ') || 'none';

/**
 * The host pid of this run's reviewer, once it waits for SIGUSR2: the interpreter process whose
 * parent is the bwrap that `runner` (the review-run process) started. Tracing the parentage, not
 * just "a node process of the sandbox uid", is what makes it this run's reviewer.
 */
async function reviewerPid(runner: number): Promise<number> {
  const isReviewer = (p: number): boolean => {
    const bwrap = ppidOf(p);
    return exeOf(p) === NODE && bwrap !== null && exeOf(bwrap) === BWRAP && ppidOf(bwrap) === runner;
  };
  let found: number | undefined;
  const seen = await waitFor(() => (found = pidsOfUid(SANDBOX_UID).find(isReviewer)) !== undefined, 30_000);
  expect(seen, `no reviewer of runner ${runner}; sandbox uid processes: ${sandboxProcesses()}`).toBe(true);
  const waiting = await waitFor(() => catchesUsr2(found as number), 30_000);
  expect(waiting, `reviewer ${found} never caught SIGUSR2; sandbox uid processes: ${sandboxProcesses()}`).toBe(true);
  return found as number;
}

interface ReceiptWriter {
  readonly writer_session: string;
  readonly pid: number;
  readonly start_time: string;
}
function receiptWriters(receiptId: string): ReceiptWriter[] {
  const db = readDb(w);
  try {
    const env = JSON.parse((db.prepare('SELECT envelope FROM receipts WHERE id = ?').pluck().get(receiptId) as Buffer).toString('utf8')) as { payload: string };
    return (JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8')) as { predicate: { writers: ReceiptWriter[] } }).predicate.writers;
  } finally {
    db.close();
  }
}

describe.skipIf(!IS_ROOT)('a reviewer is never a writer (as root: the reviewer runs as its own uid)', () => {
  it('writer register --pid of the running reviewer, of the outer bwrap → writer_process_not_independent (8), nothing recorded; the receipt lists no sandbox process', async () => {
    const id = issue(w, 'signal');
    const run = runReviewAsync(w, id);
    await waitForStatus(w, id, 'claimed');
    const runner = run.pid() as number;
    const reviewer = await reviewerPid(runner);
    const outer = pidsOfUid(SANDBOX_UID).find((p) => exeOf(p) === BWRAP && ppidOf(p) === runner);
    expect(outer).toBeDefined();
    // Positive control: an ordinary host process registers at the same moment.
    const host = spawn('/usr/bin/sleep', ['30'], { stdio: 'ignore' });
    try {
      const before = storeDigest(w);
      for (const [session, pid, why] of [['rev-1', reviewer, 'ns.pid'], ['rev-2', outer as number, 'run:']] as const) {
        const r = gov(w, ['writer', 'register', '--unit', w.unit, '--writer-session', session, '--pid', String(pid), '--json']);
        const error = (JSON.parse(r.stdout) as { error: { code: string; ids: string[] } }).error;
        expect({ code: error.code, exit: r.code }).toEqual({ code: 'writer_process_not_independent', exit: 8 });
        expect(error.ids[0]).toBe(`pid:${pid}`);
        expect(error.ids[1]?.startsWith(why)).toBe(true);
        expect(storeDigest(w)).toBe(before);
      }
      expect(govOk(w, ['writer', 'register', '--unit', w.unit, '--writer-session', 'host-1', '--pid', String(host.pid)]).pid).toBe(host.pid);
    } finally {
      host.kill('SIGKILL');
      releaseUsr2([reviewer]); // it prints CLEAN and exits 0
    }
    const r = await run.done;
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { verdict: string; receipt_id: string };
    expect(out.verdict).toBe('CLEAN');
    const pids = receiptWriters(out.receipt_id).map((x) => x.pid);
    expect(pids).toContain(host.pid);
    expect(pids).not.toContain(reviewer);
    expect(pids).not.toContain(outer);
  }, 90_000);

  it('a writer registered with the reviewer\'s identity behind the CLI\'s back → review_process_not_independent (9), ABORTED', async () => {
    const id = issue(w, 'signal');
    const before = headSeq(w);
    const run = runReviewAsync(w, id);
    await waitForStatus(w, id, 'claimed');
    const reviewer = await reviewerPid(run.pid() as number);
    // The store's own registration (no independence check): what an older governed, or an edit of
    // the database through the store API, would have recorded.
    const store = openStore(w.home);
    try {
      registerWriter(store, { unit: w.unit, writerSession: 'rev-3', identity: readProcessIdentity(reviewer), now: Math.floor(Date.now() / 1000) });
    } finally {
      closeStore(store);
      releaseUsr2([reviewer]); // it prints CLEAN and exits 0
    }
    const r = await run.done;
    expectAborted(w, before, r, 'review_process_not_independent', 9, ['writer_register']);
  }, 90_000);
});
