// A pinned policy (docs/runner.md#the-run-step-by-step steps 1–5, docs/threat-model.md#fail-closed) whose sandbox settings the
// sandbox refuses (src/core/sandbox-bounds.ts: the ranges of runner/sandbox/limits.ts and the
// interpreter rule of argv.ts) can never run a review. Before the first fix every `review-run` of
// such a policy CLAIMED the challenge and then recorded it ABORTED (`sandbox_argument_invalid`): an
// ABORTED run counts DIRTY and blocks the slot until the content changes.
//
// Since the bounds moved into the policy's own cross-field rules (src/core/policy-rules.ts), such a
// policy no longer LOADS anywhere: `init` and `policy update` refuse it (policy_invalid, naming the
// field, store unchanged). A store can still hold one — pinned by a governed from before the fix, or
// by a logged, authorised update that bypassed the loader (`pinBypassingLoader` below writes exactly
// that log entry through the store API) — and `review-run` must still refuse it before its claim:
// the pinned bytes no longer load under the policy schema, so step 1 (`loadPinned`) refuses them as
// `pin_integrity_failed` (exit 4), store unchanged, challenge still open.
import { sign as nodeSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEnvelope, IN_TOTO_PAYLOAD_TYPE, pae } from '../src/core/dsse.js';
import { isGovernedError } from '../src/core/errors.js';
import { pinUpdateFlow } from '../src/flows/authority/pin-update.js';
import { closeStore, mutate, openStore, pinDigestOf, recordAuthority, replacePinIn, requestAuthority } from '../src/store/index.js';
import { cleanupDirs, tempDir, writeJsonFile } from './state-helpers.js';
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

function edited(edit: (p: Record<string, any>) => void): Record<string, any> {
  const p = structuredClone(currentPolicy(w)) as Record<string, any>;
  edit(p);
  return p;
}

/** Record a consumed-on-use `policy_update` authority record for `bytes` (signed by the authority key). */
function authorise(bytes: Buffer): string {
  const store = openStore(w.home);
  const now = Math.floor(Date.now() / 1000);
  try {
    const req = requestAuthority(store, {
      operation: 'policy_update',
      ids: [],
      unit: null,
      stateBefore: null,
      stateAfter: pinDigestOf(bytes, 'policy'),
      ttlSeconds: 3600,
      now,
    });
    const sig = nodeSign(null, pae(IN_TOTO_PAYLOAD_TYPE, req.payload), w.keys.authority.privateKey);
    const envelope = Buffer.from(JSON.stringify(encodeEnvelope(IN_TOTO_PAYLOAD_TYPE, req.payload, [{ keyid: w.keys.authority.keyId, sig }])));
    return recordAuthority(store, { envelope, now }).recordId;
  } finally {
    closeStore(store);
  }
}

/** A logged, authorised policy pin update WITHOUT the loader's check — what a store written before
 * the fix holds. Only the policy document is the attacker's; the log entry is a genuine one. */
function pinBypassingLoader(doc: Record<string, unknown>): void {
  const bytes = readFileSync(writeJsonFile(join(tempDir('governed-s4b-pin-'), 'policy.json'), doc));
  const recordId = authorise(bytes);
  const store = openStore(w.home);
  try {
    mutate(store, Math.floor(Date.now() / 1000), (tx) => replacePinIn(tx, { kind: 'policy', bytes, recordId }));
  } finally {
    closeStore(store);
  }
}

/** `policy update` (the flow behind the CLI command) refuses the document: field named, store unchanged. */
function updateRefused(doc: Record<string, unknown>, path: string): void {
  const file = writeJsonFile(join(tempDir('governed-s4b-upd-'), 'policy.json'), doc);
  const recordId = authorise(readFileSync(file));
  const before = storeDigest(w);
  let caught: unknown;
  try {
    pinUpdateFlow({ home: w.home, kind: 'policy', file, recordId, now: Math.floor(Date.now() / 1000) });
  } catch (e) {
    caught = e;
  }
  expect(isGovernedError(caught)).toBe(true);
  if (isGovernedError(caught)) expect({ code: caught.code, ids: caught.ids }).toEqual({ code: 'policy_invalid', ids: [path] });
  expect(storeDigest(w)).toBe(before);
}

function refusedBeforeClaim(id: string): void {
  const before = storeDigest(w);
  const r = runReview(w, id);
  expectNoSecrets(r);
  expect({ code: errorCode(r).code, ids: errorCode(r).ids, exit: r.code }).toEqual({ code: 'pin_integrity_failed', ids: ['policy'], exit: 4 });
  expect(storeDigest(w)).toBe(before);
  expect(challengeStatus(w, id)).toBe('open');
}

const cases: readonly [string, (p: Record<string, any>) => void, string][] = [
  ['sandbox.max_output above the sandbox cap (512MiB > 256MiB)', (p) => (p.sandbox.max_output = '512MiB'), 'sandbox.max_output'],
  ['sandbox.timeout above a day (2d)', (p) => (p.sandbox.timeout = '2d'), 'sandbox.timeout'],
  ['sandbox.memory below what the sandbox accepts (8MiB)', (p) => (p.sandbox.memory = '8MiB'), 'sandbox.memory'],
  ['a reviewer interpreter with a "." segment (/usr/bin/./node)', (p) => (p.reviewers.clean.interpreter = '/usr/bin/./node'), 'reviewers.clean.interpreter'],
];

describe('a policy the sandbox cannot run: refused by policy update, and refused before the claim when a store holds one', () => {
  for (const [label, edit, path] of cases) {
    it(label, () => {
      const bad = edited(edit);
      updateRefused(bad, path);
      // A challenge issued under the runnable policy, then a store that holds the bad one.
      const id = issue(w, 'clean');
      pinBypassingLoader(bad);
      refusedBeforeClaim(id);
      // Back to the runnable policy for the next case (a normal, checked update).
      updatePin(w, 'policy', currentPolicy(w));
    }, 60_000);
  }

  it('control: the same world with a runnable policy reviews CLEAN', () => {
    const r = runReview(w, issue(w, 'clean'));
    expect(r.code).toBe(0);
  }, 60_000);
});
