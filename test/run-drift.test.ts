// docs/runner.md#the-run-step-by-step step 8 (and step 9's lease re-check) through the built CLI: while the reviewer runs (a
// scripted reviewer that sleeps inside the real sandbox), the test changes one thing the challenge
// bound — the workspace, the contract, the source bytes, the pinned policy or trust root — or takes
// a mutation lease. The run must end ABORTED with `review_post_launch_drift` naming what moved (or
// `review_lease_taken`), the store holding exactly the claim and its ABORTED entry beside the test's
// own change.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireLease, closeStore, openStore, releaseLease } from '../src/store/index.js';
import { cleanupDirs, writeJsonFile } from './state-helpers.js';
import {
  contractDoc,
  currentPolicy,
  currentTrust,
  expectAborted,
  expectNoSecrets,
  govOk,
  headSeq,
  issue,
  makeRunWorld,
  runReviewAsync,
  updatePin,
  waitForStatus,
  type RunWorld,
} from './run-helpers.js';

let w: RunWorld;
beforeAll(async () => {
  w = await makeRunWorld({ modes: ['clean', 'sleep'], sleepMs: 2500 });
}, 120_000);
afterAll(cleanupDirs);

/** Start a sleeping review, wait for its claim, change something, and collect the result. */
async function driftDuringRun(change: () => void): Promise<{ before: number; r: Awaited<ReturnType<typeof runReviewAsync>['done']> }> {
  const id = issue(w, 'sleep');
  const before = headSeq(w);
  const run = runReviewAsync(w, id);
  await waitForStatus(w, id, 'claimed');
  change();
  const r = await run.done;
  expectNoSecrets(r);
  return { before, r };
}

describe('post-launch drift → review_post_launch_drift (9), ABORTED', () => {
  it('control: the same sleeping review with nothing changed records a CLEAN receipt', async () => {
    const { r } = await driftDuringRun(() => undefined);
    expect(r.code).toBe(0);
  });

  it('workspace: a product file edited during the run', async () => {
    const path = join(w.repo.root, 'src', 'export.ts');
    const original = readFileSync(path);
    const { before, r } = await driftDuringRun(() => writeFileSync(path, 'export const csv = "edited during the review";\n'));
    const { ids } = expectAborted(w, before, r, 'review_post_launch_drift', 9);
    expect(ids).toEqual(expect.arrayContaining(['workspace', 'content', 'work_state']));
    expect(ids).not.toContain('contract');
    writeFileSync(path, original);
  });

  it('workspace: a new untracked file appears during the run', async () => {
    const { before, r } = await driftDuringRun(() => w.repo.write('src/extra.ts', 'export const x = 1;\n'));
    expect(expectAborted(w, before, r, 'review_post_launch_drift', 9).ids).toContain('workspace');
    // Leave the workspace as the contract covers it.
    w.repo.git('clean', '-fq', 'src/extra.ts');
  });

  it('sources: the baseline blob of the human request rewritten in the object store', async () => {
    const oid = w.repo.git('rev-parse', `${w.baseline}:requests/export.md`);
    const file = join(w.repo.root, '.git', 'objects', oid.slice(0, 2), oid.slice(2));
    const original = readFileSync(file);
    const forged = Buffer.from('Add nothing.\n');
    const { before, r } = await driftDuringRun(() => {
      chmodSync(file, 0o644);
      writeFileSync(file, deflateSync(Buffer.concat([Buffer.from(`blob ${forged.length}\0`), forged])));
    });
    writeFileSync(file, original);
    const { ids } = expectAborted(w, before, r, 'review_post_launch_drift', 9);
    expect(ids).toEqual(expect.arrayContaining(['sources', 'planning_state', 'content', 'work_state']));
  });

  it('contract: a new scope version bound during the run (unit bind)', async () => {
    const file = writeJsonFile(join(w.dir, 'contract-v2.json'), contractDoc({ state: 'done' }));
    const { before, r } = await driftDuringRun(() => govOk(w, ['unit', 'bind', '--unit', w.unit, '--contract', file]));
    const { ids } = expectAborted(w, before, r, 'review_post_launch_drift', 9, ['scope_bind']);
    expect(ids).toEqual(expect.arrayContaining(['contract', 'scope_version', 'work_revision']));
  });

  it('policy: the pinned policy replaced (signed policy_update) during the run', async () => {
    const { before, r } = await driftDuringRun(() => updatePin(w, 'policy', { ...currentPolicy(w), challenge_ttl: '12m' }));
    const { ids } = expectAborted(w, before, r, 'review_post_launch_drift', 9, ['authority_request', 'authority_record', 'authority_consume', 'policy_update']);
    expect(ids).toEqual(['policy']);
  });

  it('trust: the pinned trust root replaced (signed trust_update) during the run', async () => {
    const { before, r } = await driftDuringRun(() => updatePin(w, 'trust', { ...currentTrust(w), expires: '2098-01-01T00:00:00Z' }));
    const { ids } = expectAborted(w, before, r, 'review_post_launch_drift', 9, ['authority_request', 'authority_record', 'authority_consume', 'trust_update']);
    expect(ids).toEqual(['trust']);
  });
});

// The drift check compares the pins' bytes with the ones step 1 verified and re-parses them only
// when they differ (flows/challenge/pinned.ts reloadPinned): an edit of the row that keeps the
// digest column is still caught by the full integrity check.
describe('the pins row edited behind governed during the run', () => {
  function editPolicyBytes(bytes: Buffer | ((old: Buffer) => Buffer)): Buffer {
    const store = openStore(w.home);
    try {
      const old = store.db.prepare("SELECT bytes FROM pins WHERE kind = 'policy'").pluck().get() as Buffer;
      store.db.prepare("UPDATE pins SET bytes = ? WHERE kind = 'policy'").run(typeof bytes === 'function' ? bytes(old) : bytes);
      return old;
    } finally {
      closeStore(store);
    }
  }

  it('other policy bytes under the pinned digest → pin_integrity_failed (4), ABORTED', async () => {
    let original: Buffer = Buffer.alloc(0);
    const forged = Buffer.from(JSON.stringify({ ...currentPolicy(w), challenge_ttl: '59m' }));
    const { before, r } = await driftDuringRun(() => (original = editPolicyBytes(forged)));
    editPolicyBytes(original);
    expectAborted(w, before, r, 'pin_integrity_failed', 4);
  });

  it('the same policy re-encoded (same canonical digest) → still CLEAN: meaning is compared, not whitespace', async () => {
    let original: Buffer = Buffer.alloc(0);
    // The pinned policy now (an earlier test may have updated it), pretty-printed.
    const reencode = (old: Buffer): Buffer => Buffer.from(JSON.stringify(JSON.parse(old.toString('utf8')), null, 2));
    const { r } = await driftDuringRun(() => (original = editPolicyBytes(reencode)));
    editPolicyBytes(original);
    expect(r.code).toBe(0);
  });
});

describe('a lease taken during the run → review_lease_taken (9), ABORTED', () => {
  it('the lease is seen after the review and the run never commits', async () => {
    let lease = '';
    const { before, r } = await driftDuringRun(() => {
      const store = openStore(w.home);
      try {
        lease = acquireLease(store, { unit: w.unit, writerSession: 'agent-1', ttlSeconds: 600, now: Math.floor(Date.now() / 1000) }).leaseId;
      } finally {
        closeStore(store);
      }
    });
    expectAborted(w, before, r, 'review_lease_taken', 9, ['lease_acquire']);
    const store = openStore(w.home);
    try {
      releaseLease(store, { leaseId: lease, writerSession: 'agent-1', now: Math.floor(Date.now() / 1000) });
    } finally {
      closeStore(store);
    }
  });
});
