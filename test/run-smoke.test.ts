import { afterAll, describe, expect, it } from 'vitest';
import { cleanupDirs } from './issue-helpers.js';
import { issue, makeRunWorld, runReview } from './run-helpers.js';

afterAll(cleanupDirs);
describe('smoke', () => {
  it('clean run', async () => {
    const w = await makeRunWorld({ modes: ['clean', 'dirty'] });
    const id = issue(w, 'clean');
    const t0 = Date.now();
    const r = runReview(w, id);
    console.log(Date.now() - t0, r.code, r.stdout, r.stderr);
    const r2 = runReview(w, issue(w, 'dirty'));
    console.log(r2.code, r2.stdout, r2.stderr);
    expect(r.code).toBe(0);
  });
});
