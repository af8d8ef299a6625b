// Red team G (SPEC §9 steps 4 and 8, §3 "fail closed"): a FIFO where review-run expects a regular
// file must never hang the runner while it holds a claim. Three places: the reviewer program
// (runner/pinned-file.ts), an attestor configuration (same reader) and the bundle file re-hashed by
// the drift check (src/flows/run/drift.ts). Before the fix each open blocked forever (open(2) of a
// FIFO without O_NONBLOCK waits for a writer): the claim stayed `claimed` until its deadline and the
// process never exited. The first two are now found by the location check before the claim (the
// same non-blocking open, store unchanged); the reader itself is checked on a FIFO directly.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupDirs, tempDir } from './issue-helpers.js';
import { errorCode, expectAborted, expectNoSecrets, headSeq, issue, makeRunWorld, runReviewAsync, storeDigest, waitForStatus, type RunWorld } from './run-helpers.js';
import { probePinned, readPinned } from '../runner/pinned-file.js';

let w: RunWorld;
beforeAll(async () => {
  w = await makeRunWorld({ modes: ['clean', 'sleep'], sleepMs: 2500 });
}, 120_000);
afterAll(cleanupDirs);

const mkfifo = (path: string): void => {
  execFileSync('mkfifo', ['-m', '600', path]);
};

/** review-run --json as a child that is killed after `ms` (a hang shows as code null). */
async function runBounded(challenge: string, extra: readonly string[], ms: number, during?: () => Promise<void>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = runReviewAsync(w, challenge, extra);
  const timer = setTimeout(() => run.kill('SIGKILL'), ms);
  if (during !== undefined) void during();
  try {
    return await run.done;
  } finally {
    clearTimeout(timer);
  }
}

describe('a FIFO in place of a file review-run reads after its claim → a code, never a hang', () => {
  it('the reviewer program is a FIFO → reviewer_file_unavailable (2), refused before the claim, no hang', async () => {
    const dir = tempDir('governed-rtg-fifo-reviewers-');
    mkfifo(join(dir, 'clean.mjs'));
    const id = issue(w, 'clean');
    const before = storeDigest(w);
    const r = await runBounded(id, ['--reviewers-dir', dir], 15_000);
    expectNoSecrets(r);
    expect(r.code).toBe(2);
    expect(errorCode(r).code).toBe('reviewer_file_unavailable');
    expect(storeDigest(w)).toBe(before);
  }, 60_000);

  it('an attestor configuration is a FIFO → attestor_file_unavailable (2), refused before the claim, no hang', async () => {
    const dir = tempDir('governed-rtg-fifo-attestors-');
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(w.attestorsDir, 'reviewer.mjs'), join(dir, 'reviewer.mjs'));
    copyFileSync(join(w.attestorsDir, 'runner.mjs'), join(dir, 'runner.mjs'));
    copyFileSync(join(w.attestorsDir, 'runner.json'), join(dir, 'runner.json'));
    mkfifo(join(dir, 'reviewer.json'));
    const id = issue(w, 'clean');
    const before = storeDigest(w);
    const r = await runBounded(id, ['--attestors', dir], 15_000);
    expectNoSecrets(r);
    expect(r.code).toBe(2);
    expect(errorCode(r).code).toBe('attestor_file_unavailable');
    expect(storeDigest(w)).toBe(before);
  }, 60_000);

  it('the pinned-file reader itself refuses a FIFO at once (the step-4 read after the claim)', () => {
    const dir = tempDir('governed-rtg-fifo-reader-');
    const fifo = join(dir, 'program');
    mkfifo(fifo);
    expect(() => readPinned(fifo, 1024)).toThrow(expect.objectContaining({ code: 'input_unreadable' }));
    expect(probePinned(fifo, 1024)).toBe('not_a_regular_file');
  });

  it('the bundle file becomes a FIFO while the reviewer runs → review_post_launch_drift [bundle] (9), ABORTED', async () => {
    const id = issue(w, 'sleep');
    const before = headSeq(w);
    const bundle = join(w.home, 'bundles', `${id}.json`);
    const r = await runBounded(id, [], 30_000, async () => {
      await waitForStatus(w, id, 'claimed');
      unlinkSync(bundle);
      mkfifo(bundle);
    });
    expectNoSecrets(r);
    expect(r.code).not.toBeNull();
    const { ids } = expectAborted(w, before, r, 'review_post_launch_drift', 9);
    expect(ids).toEqual(['bundle']);
  }, 60_000);
});
