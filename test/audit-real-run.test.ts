// `governed audit verify` over receipts made by the real runner (`governed review-run`: bwrap,
// pinned attestors, SQLite) — a CLEAN, a DIRTY and an ABORTED run — so the binding rule of the
// audit is checked against what the runner actually signs, not only against test-made receipts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOut } from './helpers/cli.js';
import { cleanupDirs } from './state-helpers.js';
import { gov, issue, makeRunWorld, runReview, storeDigest, type RunWorld } from './run-helpers.js';

let w: RunWorld;

beforeAll(async () => {
  w = await makeRunWorld({ modes: ['clean', 'dirty', 'extra-key'] });
  expect(runReview(w, issue(w, 'clean')).code).toBe(0);
  expect(runReview(w, issue(w, 'dirty')).code).toBe(9);
  expect(runReview(w, issue(w, 'extra-key')).code).not.toBe(0); // ABORTED: output refused
}, 180_000);
afterAll(cleanupDirs);

describe('audit verify on real review-run receipts', () => {
  it('every receipt verifies and matches its issue, claim and receipt entries; nothing is written', () => {
    const before = storeDigest(w);
    const r = gov(w, ['audit', 'verify', '--json']);
    const out = jsonOut(r) as Record<string, unknown>;
    expect(r.code, JSON.stringify(out.failures)).toBe(0);
    expect(out.receipts).toEqual({ checked: 2, failed: 0, workers: 0 });
    expect(out.challenges).toMatchObject({ issued: 3, claimed: 3, answered: 2, aborted: 1 });
    expect(out.trust_modes).toEqual(['co-located']);
    expect(storeDigest(w)).toBe(before);
  });
});
