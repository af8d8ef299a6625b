// Replay checks each `challenge_issue` against the policy and trust root pinned AT ITS LOG POSITION
// (docs/audit.md "Replay builds only what the live path could have built"; docs/state.md#the-store, docs/bundle.md#views, docs/reviewers.md#reviewer-output, docs/policy.md#policy-and-trust-root):
// the digests are the pins in force, the stage and slot are the policy's, the reviewer (name, sha256,
// interpreter) is the slot's, the TTL is exactly `challenge_ttl`, the ordinal within
// `max_runs_per_content`. Each test rewrites ONE entry consistently (payload digest and every later
// hash recomputed, the tables patched to what the rewritten log replays to): before the fix chain
// and replay held and `audit verify` exited 0; now replay refuses `log_entry_not_applicable` (4) and
// the audit leaves the store unchanged. A receipt or claim whose stage/slot is not its challenge's was
// already refused (held; regression tests at the end).
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { auditVerify } from '../src/flows/audit/verify.js';
import { issueChallengeIn } from '../src/store/challenges.js';
import { viewNameOf } from '../src/store/reducers/challenges.js';
import { viewFor } from '../src/core/bundle/views.js';
import { ROLES, ROLE_STAGES } from '../src/core/policy-rules.js';
import { STAGES } from '../src/core/receipt-predicate.js';
import { mutate } from '../src/store/log.js';
import { closeStore } from '../src/store/open.js';
import { pinDigestOf, readPin } from '../src/store/pins.js';
import { recordAuthority, replacePinIn, requestAuthority } from '../src/store/authority.js';
import { assertReplayMatches, replayInto } from '../src/store/replay.js';
import { tablesDigest } from '../src/store/state-digest.js';
import type { Store } from '../src/store/store.js';
import { createUnitIn } from '../src/store/units.js';
import { registerWriterIn } from '../src/store/writers.js';
import { claimRunIn } from '../src/store/runs.js';
import { bindScopeIn, getScopeVersion } from '../src/store/scope.js';
import { sha256Digest } from '../src/core/canonical.js';
import { makeKeys } from './state-helpers.js';
import { payloadOf, signEnvelope } from './helpers/receipts.js';
import { syntheticReceiptIn, type SyntheticUnit } from './helpers/store-receipts.js';
import { bytesOf, newStore as newAuthorityStore, signPayload, world } from './authority-helpers.js';
import {
  contractBytes,
  forgeEntry,
  issueArgsFor,
  lastSeqOf,
  newReviewStore,
  REVIEW_MAX_RUNS,
  REVIEW_POLICY,
  REVIEW_TTL,
  scopeArgs,
} from './helpers/replay-fixtures.js';
import { cleanupDirs, codeOf, COMMIT, identityN, T0, tempDir, TREE } from './store-helpers.js';

afterEach(cleanupDirs);

const D = (c: string): string => `sha256:${c.repeat(64)}`;
const H = (c: string): string => c.repeat(64);

/** A unit with scope v1 and writer w0. */
function unitIn(store: Store, now = T0 + 1): string {
  return mutate(store, now, (tx) => {
    const { unitId } = createUnitIn(tx, { baselineCommit: COMMIT, baselineTree: TREE });
    bindScopeIn(tx, scopeArgs(unitId, contractBytes(), null));
    registerWriterIn(tx, { unit: unitId, writerSession: 'w0', identity: identityN(0) });
    return unitId;
  });
}

/** One challenge issued on the live path (development.coverage unless told). */
function issued(store: Store, now = T0 + 2, over: Parameters<typeof issueArgsFor>[2] = {}): { unit: string; challenge: string } {
  const unit = unitIn(store);
  const { challengeId } = mutate(store, now, (tx) => issueChallengeIn(tx, issueArgsFor(tx.db, unit, over)));
  return { unit, challenge: challengeId };
}

/** The challenges row patched to what the rewritten payload replays to. */
const patchChallenge =
  (id: string, cols: Record<string, unknown>) =>
  (db: Database.Database): void => {
    const sets = Object.keys(cols).map((k) => `${k} = @${k}`).join(', ');
    db.prepare(`UPDATE challenges SET ${sets} WHERE id = @id`).run({ ...cols, id });
  };

async function refused(store: Store): Promise<void> {
  expect(codeOf(() => replayInto(store, join(tempDir(), 'r.db')))).toBe('log_entry_not_applicable');
  const before = tablesDigest(store);
  const report = await auditVerify(join(store.dbPath, '..'));
  expect(tablesDigest(store)).toBe(before);
  expect({ exit: report.exit, codes: report.failures.map((f) => f.code) }).toEqual({ exit: 4, codes: ['log_entry_not_applicable'] });
}

describe('challenge_issue against the policy pinned at its position', () => {
  it('honest challenges (both slots, the budget used up exactly) replay', () => {
    const store = newReviewStore();
    try {
      const unit = unitIn(store);
      for (let i = 0; i < REVIEW_MAX_RUNS; i++) mutate(store, T0 + 2 + i, (tx) => issueChallengeIn(tx, issueArgsFor(tx.db, unit)));
      mutate(store, T0 + 9, (tx) => issueChallengeIn(tx, issueArgsFor(tx.db, unit, { slot: 'lint' })));
      expect(store.db.prepare('SELECT DISTINCT expires_at - issued_at FROM challenges').pluck().all()).toEqual([REVIEW_TTL]);
      expect(() => assertReplayMatches(store, join(tempDir(), 'r.db'))).not.toThrow();
    } finally {
      closeStore(store);
    }
  });

  it('a TTL other than challenge_ttl (a year, or shorter) is refused', async () => {
    for (const ttl of [365 * 24 * 3600, REVIEW_TTL - 1]) {
      const store = newReviewStore();
      try {
        const { challenge } = issued(store);
        forgeEntry(store, lastSeqOf(store, 'challenge_issue'), (p) => (p.expires_at = (p.issued_at as number) + ttl), patchChallenge(challenge, { expires_at: T0 + 2 + ttl }));
        await refused(store);
      } finally {
        closeStore(store);
      }
    }
  });

  it('a reviewer program other than the slot’s (sha256, interpreter, or another reviewer’s name) is refused', async () => {
    const forgeries: [Record<string, string>, Record<string, unknown>][] = [
      [{ sha256: H('f') }, { reviewer_sha256: H('f') }],
      [{ interpreter: '/usr/bin/python3' }, { reviewer_interpreter: '/usr/bin/python3' }],
      // The other slot's reviewer, consistent in all three fields: still not THIS slot's.
      [{ name: 'linter', sha256: H('e'), interpreter: '/usr/bin/python3' }, { reviewer_name: 'linter', reviewer_sha256: H('e'), reviewer_interpreter: '/usr/bin/python3' }],
    ];
    for (const [reviewer, cols] of forgeries) {
      const store = newReviewStore();
      try {
        const { challenge } = issued(store);
        forgeEntry(
          store,
          lastSeqOf(store, 'challenge_issue'),
          (p) => (p.reviewer = { ...(p.reviewer as Record<string, string>), ...reviewer }),
          patchChallenge(challenge, cols),
        );
        await refused(store);
      } finally {
        closeStore(store);
      }
    }
  });

  it('a stage or slot the policy does not list is refused', async () => {
    for (const [field, value] of [
      ['stage', 'integration'],
      ['slot', 'security'],
    ] as const) {
      const store = newReviewStore();
      try {
        const { challenge } = issued(store);
        forgeEntry(store, lastSeqOf(store, 'challenge_issue'), (p) => (p[field] = value), patchChallenge(challenge, { [field]: value }));
        await refused(store);
      } finally {
        closeStore(store);
      }
    }
  });

  it('an ordinal beyond max_runs_per_content is refused', async () => {
    const store = newReviewStore();
    try {
      const unit = unitIn(store);
      for (let i = 0; i < REVIEW_MAX_RUNS; i++) mutate(store, T0 + 2, (tx) => issueChallengeIn(tx, issueArgsFor(tx.db, unit)));
      // The live path refuses a 4th on the same content (challenge_budget_exhausted); one on another
      // content is rewritten into the 4th on the first (ordinal = count + 1 holds, the budget does not).
      const { challengeId } = mutate(store, T0 + 3, (tx) => issueChallengeIn(tx, issueArgsFor(tx.db, unit, { content_digest: D('d') })));
      forgeEntry(
        store,
        lastSeqOf(store, 'challenge_issue'),
        (p) => {
          p.content_digest = D('8');
          p.ordinal = REVIEW_MAX_RUNS + 1;
        },
        patchChallenge(challengeId, { content_digest: D('8'), ordinal: REVIEW_MAX_RUNS + 1 }),
      );
      await refused(store);
    } finally {
      closeStore(store);
    }
  });

  it('a view other than the one built for the stage and slot is refused; the rule is viewFor’s', async () => {
    for (const stage of STAGES) {
      for (const slot of [...ROLES, 'coverage', 'lint']) {
        if (ROLE_STAGES.has(stage) && !(ROLES as readonly string[]).includes(slot)) continue; // viewFor fails closed there
        expect(viewNameOf(stage, slot), `${stage}.${slot}`).toBe(viewFor(stage, slot).name);
      }
    }
    const store = newReviewStore();
    try {
      const { challenge } = issued(store);
      forgeEntry(store, lastSeqOf(store, 'challenge_issue'), (p) => (p.view = 'source_fidelity'), patchChallenge(challenge, { view: 'source_fidelity' }));
      await refused(store);
    } finally {
      closeStore(store);
    }
  });

  it('a policy or trust digest other than the pinned one is refused', async () => {
    for (const field of ['policy_digest', 'trust_digest'] as const) {
      const store = newReviewStore();
      try {
        const { challenge } = issued(store);
        forgeEntry(store, lastSeqOf(store, 'challenge_issue'), (p) => (p[field] = D('b')), patchChallenge(challenge, { [field]: D('b') }));
        await refused(store);
      } finally {
        closeStore(store);
      }
    }
  });
});

describe('the pins change with policy_update: each challenge is judged under the pin of its position', () => {
  const NEW_POLICY = { ...REVIEW_POLICY, challenge_ttl: '120s', reviewers: { ...REVIEW_POLICY.reviewers, coverage: { sha256: H('c'), interpreter: '/usr/bin/node', env: {} } } };

  /** A challenge under the first policy, a signed policy update, a challenge under the new one. */
  function history(): { store: Store; before: string; after: string } {
    const w = world();
    const store = newAuthorityStore(w.trust, T0, REVIEW_POLICY);
    const unit = unitIn(store);
    const before = mutate(store, T0 + 2, (tx) => issueChallengeIn(tx, issueArgsFor(tx.db, unit))).challengeId;
    const bytes = bytesOf(NEW_POLICY);
    const req = requestAuthority(store, {
      operation: 'policy_update',
      ids: [],
      unit: null,
      stateBefore: null,
      stateAfter: pinDigestOf(bytes, 'policy'),
      ttlSeconds: 3600,
      now: T0 + 3,
    });
    recordAuthority(store, { envelope: signPayload(req.payload, [w.human]), now: T0 + 4 });
    mutate(store, T0 + 5, (tx) => replacePinIn(tx, { kind: 'policy', bytes, recordId: req.recordId }));
    const after = mutate(store, T0 + 6, (tx) => issueChallengeIn(tx, issueArgsFor(tx.db, unit, { content_digest: D('d') }))).challengeId;
    return { store, before, after };
  }

  it('the honest history replays; the two challenges carry each their own policy', () => {
    const { store, before, after } = history();
    try {
      const rows = store.db.prepare('SELECT id, policy_digest, expires_at - issued_at AS ttl, reviewer_sha256 FROM challenges').all() as { id: string; policy_digest: string; ttl: number; reviewer_sha256: string }[];
      const byId = new Map(rows.map((r) => [r.id, r]));
      expect(byId.get(before)).toMatchObject({ ttl: 60, reviewer_sha256: H('a') });
      expect(byId.get(after)).toMatchObject({ ttl: 120, reviewer_sha256: H('c'), policy_digest: readPin(store, 'policy').digest });
      expect(byId.get(before)?.policy_digest).not.toBe(byId.get(after)?.policy_digest);
      expect(() => assertReplayMatches(store, join(tempDir(), 'r.db'))).not.toThrow();
    } finally {
      closeStore(store);
    }
  });

  it('a challenge after the update rewritten to the replaced policy (its digest, TTL and reviewer) is refused', async () => {
    const { store, before, after } = history();
    try {
      const old = store.db.prepare('SELECT policy_digest FROM challenges WHERE id = ?').pluck().get(before) as string;
      forgeEntry(
        store,
        lastSeqOf(store, 'challenge_issue'),
        (p) => {
          p.policy_digest = old;
          p.expires_at = (p.issued_at as number) + 60;
          p.reviewer = { name: 'coverage', sha256: H('a'), interpreter: '/usr/bin/node' };
        },
        patchChallenge(after, { policy_digest: old, expires_at: T0 + 6 + 60, reviewer_sha256: H('a') }),
      );
      await refused(store);
    } finally {
      closeStore(store);
    }
  });

  it('a challenge before the update rewritten to the policy that came later is refused', async () => {
    const { store, before } = history();
    try {
      const next = readPin(store, 'policy').digest;
      const seq = store.db.prepare("SELECT MIN(seq) FROM log WHERE type = 'challenge_issue'").pluck().get() as number;
      forgeEntry(
        store,
        seq,
        (p) => {
          p.policy_digest = next;
          p.expires_at = (p.issued_at as number) + 120;
          p.reviewer = { name: 'coverage', sha256: H('c'), interpreter: '/usr/bin/node' };
        },
        patchChallenge(before, { policy_digest: next, expires_at: T0 + 2 + 120, reviewer_sha256: H('c') }),
      );
      await refused(store);
    } finally {
      closeStore(store);
    }
  });
});

describe('claims and receipts name their challenge’s stage and slot (held already)', () => {
  /** One challenge issued and claimed on the live path. */
  function claimed(store: Store): { unit: string; challenge: string } {
    const { unit, challenge } = issued(store);
    mutate(store, T0 + 3, (tx) =>
      claimRunIn(tx, {
        challengeId: challenge,
        unit,
        stage: 'development',
        slot: 'coverage',
        reviewerName: 'coverage',
        reviewerSha256: H('a'),
        runner: identityN(1),
        deadline: tx.now + 60,
      }),
    );
    return { unit, challenge };
  }

  it('a claim naming another slot or stage than its challenge is refused', () => {
    for (const [field, value] of [
      ['slot', 'lint'],
      ['stage', 'test'],
    ] as const) {
      const store = newReviewStore();
      try {
        claimed(store);
        expect(() => assertReplayMatches(store, join(tempDir(), 'ok.db'))).not.toThrow();
        forgeEntry(store, lastSeqOf(store, 'run_claim'), (p) => (p[field] = value));
        expect(codeOf(() => replayInto(store, join(tempDir(), 'r.db')))).toBe('log_entry_not_applicable');
      } finally {
        closeStore(store);
      }
    }
  });

  it('a receipt re-signed to name another slot than its run and challenge is refused', () => {
    const store = newReviewStore();
    try {
      const unit = unitIn(store);
      const keys = makeKeys();
      const v = getScopeVersion(store, unit);
      const u: SyntheticUnit = {
        unit,
        writerSession: 'w0',
        scopeVersion: v.version,
        scopeEpoch: v.scopeEpoch,
        baseline: { commit: COMMIT, tree: TREE },
        contractDigest: v.contractDigest,
        sourcesDigest: v.sourcesDigest,
        policyDigest: readPin(store, 'policy').digest,
        trustDigest: readPin(store, 'trust').digest,
        keys: { reviewer: keys.reviewer, runner: keys.runner },
      };
      mutate(store, T0 + 2, (tx) => syntheticReceiptIn(tx, u, 'development', 'coverage', { planning: D('7'), content: D('8'), work: D('9'), workspace: D('a') }));
      expect(() => assertReplayMatches(store, join(tempDir(), 'ok.db'))).not.toThrow();
      // The co-located writer holds the keys: the envelope is re-signed with the other slot, so the
      // receipt's own envelope check passes; only the run's (and so the challenge's) slot refuses it.
      forgeEntry(store, lastSeqOf(store, 'run_receipt'), (p) => {
        const env = JSON.parse(Buffer.from(p.envelope_b64 as string, 'base64').toString('utf8')) as { payload: string };
        const st = JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8')) as { predicate: { slot: string } };
        st.predicate.slot = 'lint';
        const payload = payloadOf(st);
        p.envelope_b64 = Buffer.from(signEnvelope(payload, [keys.reviewer, keys.runner])).toString('base64');
        p.receipt = sha256Digest(payload);
        p.slot = 'lint';
      });
      expect(codeOf(() => replayInto(store, join(tempDir(), 'r.db')))).toBe('log_entry_not_applicable');
    } finally {
      closeStore(store);
    }
  });
});
