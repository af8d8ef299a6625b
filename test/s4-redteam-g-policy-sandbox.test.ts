// Red team G (SPEC §9 steps 1–5, §10.1): a pinned policy that loads (src/core/policy.ts) but whose
// sandbox settings the sandbox refuses (runner/sandbox/limits.ts ranges, argv.ts interpreter rule)
// can never run a review. Before the fix every `review-run` of such a policy CLAIMED the challenge
// and then recorded it ABORTED (`sandbox_argument_invalid`): an ABORTED run counts DIRTY and blocks
// the slot until the content changes — a policy update does not lift it. The runner now applies the
// sandbox's own checks in step 1, before the claim: refused, store unchanged, challenge still open.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupDirs } from './issue-helpers.js';
import {
  challengeStatus,
  currentPolicy,
  errorCode,
  expectNoSecrets,
  issue,
  makeRunWorld,
  runReview,
  storeDigest,
  updatePin,
  type RunWorld,
} from './run-helpers.js';

let w: RunWorld;
beforeAll(async () => {
  w = await makeRunWorld({ modes: ['clean'] });
}, 120_000);
afterAll(cleanupDirs);

function withPolicy(edit: (p: Record<string, any>) => void): void {
  const p = currentPolicy(w) as Record<string, any>;
  edit(p);
  updatePin(w, 'policy', p);
  // The world's "current policy" file follows the pin (the helpers read it back).
}

function refusedBeforeClaim(id: string, ids: string[]): void {
  const before = storeDigest(w);
  const r = runReview(w, id);
  expectNoSecrets(r);
  expect({ code: errorCode(r).code, ids: errorCode(r).ids, exit: r.code }).toEqual({ code: 'sandbox_argument_invalid', ids, exit: 2 });
  expect(storeDigest(w)).toBe(before);
  expect(challengeStatus(w, id)).toBe('open');
}

describe('a policy the sandbox cannot run → refused before the claim (store unchanged)', () => {
  it('sandbox.max_output above the sandbox cap (512MiB > 256MiB)', () => {
    withPolicy((p) => (p.sandbox.max_output = '512MiB'));
    refusedBeforeClaim(issue(w, 'clean'), ['limits.maxOutputBytes']);
  }, 60_000);

  it('sandbox.timeout above a day (2d)', () => {
    withPolicy((p) => {
      p.sandbox.max_output = '64KiB';
      p.sandbox.timeout = '2d';
    });
    refusedBeforeClaim(issue(w, 'clean'), ['limits.timeoutMs']);
  }, 60_000);

  it('sandbox.memory below what the sandbox accepts (8MiB)', () => {
    withPolicy((p) => {
      p.sandbox.timeout = '20s';
      p.sandbox.memory = '8MiB';
    });
    refusedBeforeClaim(issue(w, 'clean'), ['limits.memoryBytes']);
  }, 60_000);

  it('a reviewer interpreter with a "." segment (/usr/bin/./node)', () => {
    withPolicy((p) => {
      p.sandbox.memory = '2GiB';
      p.reviewers.clean.interpreter = '/usr/bin/./node';
    });
    refusedBeforeClaim(issue(w, 'clean'), ['interpreter']);
  }, 60_000);

  it('control: the same world with a runnable policy reviews CLEAN', () => {
    withPolicy((p) => (p.reviewers.clean.interpreter = '/usr/bin/node'));
    const r = runReview(w, issue(w, 'clean'));
    expect(r.code).toBe(0);
  }, 60_000);
});
