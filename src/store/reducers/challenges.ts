// Reducers of review challenges (docs/bundle.md#views, docs/decision.md#the-rules-in-short; docs/state.md#review-challenge).
//
// - `challenge_issue`: one open challenge with every digest bound at issuance. The reducer
//   re-checks what must hold at its log position — the unit's scope version, epoch and work
//   revision are the current ones, the ordinal is the next one for (unit, stage, slot, content
//   digest), and the challenge is one the policy pinned at that position lets the live path issue
//   (digests, slot, reviewer, TTL, budget, view: `assertIssuedUnderPins`) — so a forged, reordered
//   or rewritten entry cannot replay (docs/audit.md "Replay builds only what the live path could
//   have built").
// - `challenge_sweep`: open challenges whose expiry has passed become `expired` (docs/state.md#the-store: sweeping
//   expired challenges is itself a logged change). One entry per unit, like `lease_sweep`.
import * as z from 'zod/mini';
import { int, str } from '../../core/schema-primitives.js';
import { STAGES } from '../../core/receipt-predicate.js';
import { isGovernedError } from '../../core/errors.js';
import { decodeUtf8 } from '../../core/utf8.js';
import { loadPolicy } from '../../core/policy.js';
import { ROLES, ROLE_STAGES } from '../../core/policy-rules.js';
import type { Policy } from '../../core/policy.js';
import { parseStructured } from '../../core/strict-parse.js';
import type { Db } from '../store.js';
import { cached } from '../statements.js';
import { digest, gitOid, seconds, unitId, writerSession } from './schemas.js';
import { expectChanges, reducer } from './reducer.js';
import { CHALLENGE_ID_RE, HEX64_RE, NAME_RE } from '../../core/ids.js';
import { INTERPRETER_PATH_RE } from '../../core/sandbox-bounds.js';

export { CHALLENGE_ID_RE };
const challengeId = str({ re: CHALLENGE_ID_RE });
const hex64 = str({ re: HEX64_RE });
const slotName = str({ re: NAME_RE });

export const challengeIssuePayload = z
  .strictObject({
    challenge: challengeId,
    unit: unitId,
    stage: z.enum(STAGES),
    slot: slotName,
    ordinal: int(1),
    writer_session: writerSession,
    reviewer: z.strictObject({
      name: slotName,
      sha256: hex64,
      interpreter: str({ re: INTERPRETER_PATH_RE }),
    }),
    view: slotName,
    bundle_digest: digest,
    bundle_size: int(2),
    view_digest: digest,
    planning_state_digest: digest,
    content_digest: digest,
    work_state_digest: digest,
    contract_digest: digest,
    sources_digest: digest,
    workspace_digest: digest,
    baseline: z.strictObject({ commit: gitOid, tree: gitOid }),
    policy_digest: digest,
    trust_digest: digest,
    scope_version: int(1),
    scope_epoch: int(1),
    work_revision: int(0),
    issued_at: seconds,
    expires_at: seconds,
  })
  .check(z.refine((p) => p.expires_at > p.issued_at, 'expiry'));

export type ChallengeIssuePayload = z.infer<typeof challengeIssuePayload>;

/**
 * The policy held by pinned bytes, loaded as the live path loads it (flows/challenge/pinned.ts
 * `loadPinned`: strict JSON/YAML, the closed policy schema and its cross-field rules, `loadPolicy`), or
 * null when the bytes hold no valid policy (the live path then refuses `pin_integrity_failed` and
 * issues nothing). One entry is cached by its exact bytes: a replay issues many challenges under the
 * same pin, and the result is a function of the bytes alone, so the reducer stays pure.
 */
let lastPolicy: { readonly bytes: Buffer; readonly policy: Policy | null } | null = null;
function policyOfPin(bytes: Buffer): Policy | null {
  if (lastPolicy !== null && lastPolicy.bytes.equals(bytes)) return lastPolicy.policy;
  let policy: Policy | null;
  try {
    policy = loadPolicy(parseStructured(decodeUtf8(bytes, 'policy'), ''));
  } catch (e) {
    if (!isGovernedError(e)) throw e;
    policy = null;
  }
  lastPolicy = { bytes: Buffer.from(bytes), policy };
  return policy;
}

const own = <T>(o: Readonly<Record<string, T>>, k: string): T | undefined => (Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined);

/**
 * The view the live path builds for (stage, slot) — core/bundle/views.ts `viewFor(stage, slot).name`:
 * a role stage's slot sees its role's view, any other stage the complete view. Restated here so the
 * store does not load the bundle schema at start; test/store-replay-challenge.test.ts checks it equals
 * `viewFor` for every stage and slot.
 */
export function viewNameOf(stage: string, slot: string): string {
  // Integration's check slots (beside its roles) see the complete view, as viewFor builds it.
  return ROLE_STAGES.has(stage as never) && (ROLES as readonly string[]).includes(slot) ? slot : 'complete';
}

/**
 * The challenge is one the live path issues under the pins in force at this log position (docs/state.md#the-store
 * replay, docs/bundle.md#views, docs/reviewers.md#reviewer-output, docs/policy.md#policy-and-trust-root; flows/challenge.ts + store/challenges.ts `issueChallengeIn`): the policy
 * and trust digests are the pinned ones (the `pins` rows, which `store_init` / `policy_update` /
 * `trust_update` replace as replay reaches them, so they are the pins of this position); the stage
 * and slot are listed by that policy and the reviewer (name, sha256, interpreter) is the slot's —
 * never the caller's (`reviewerForSlot`); `expires_at − issued_at` is exactly the policy's
 * `challenge_ttl` (the live path adds it to `tx.now`, and takes no TTL from the caller); the
 * ordinal is within `max_runs_per_content`; the view is the one built for that stage and slot.
 * Without this a rewritten log could hold a challenge answerable by another reviewer program, valid
 * for a year, past the run budget, or issued under a policy not in force at its position.
 */
function assertIssuedUnderPins(db: Db, p: ChallengeIssuePayload): void {
  const pin = cached(db, 'SELECT digest, bytes FROM pins WHERE kind = ?');
  const policyPin = pin.get('policy') as { digest: string; bytes: Buffer } | undefined;
  const trustPin = pin.get('trust') as { digest: string; bytes: Buffer } | undefined;
  if (policyPin === undefined || trustPin === undefined) return expectChanges(0, 1, p.challenge);
  if (policyPin.digest !== p.policy_digest || trustPin.digest !== p.trust_digest) return expectChanges(0, 1, p.challenge);
  const policy = policyOfPin(policyPin.bytes);
  if (policy === null || policy.digest !== p.policy_digest) return expectChanges(0, 1, p.challenge);
  const stage = own(policy.doc.stages as Record<string, { slots: Record<string, string> } | undefined>, p.stage);
  const name = stage === undefined ? undefined : own(stage.slots, p.slot);
  const reviewer = name === undefined ? undefined : own(policy.doc.reviewers, name);
  const ok =
    reviewer !== undefined &&
    name === p.reviewer.name &&
    reviewer.sha256 === p.reviewer.sha256 &&
    reviewer.interpreter === p.reviewer.interpreter &&
    p.expires_at - p.issued_at === policy.challengeTtlSeconds &&
    p.ordinal <= policy.doc.max_runs_per_content &&
    p.view === viewNameOf(p.stage, p.slot);
  expectChanges(ok ? 1 : 0, 1, p.challenge);
}

export const CHALLENGE_REDUCERS = {
  challenge_issue: reducer({
    payload: challengeIssuePayload,
    unitOf: (p) => p.unit,
    apply(db, p) {
      assertIssuedUnderPins(db, p);
      // Bound to the unit's state at this log position (docs/contract.md#the-states-a-receipt-is-judged-against): current scope version and counters,
      // the unit's own baseline, and no mutation lease active anywhere (docs/overview.md#words: no review is issued
      // while any lease is active).
      const state = cached(
          db,
          `SELECT 1 FROM units u
           WHERE u.id = ? AND u.scope_epoch = ? AND u.work_revision = ? AND u.baseline_commit = ? AND u.baseline_tree = ?
             AND ? = (SELECT MAX(version) FROM scope_versions WHERE unit = u.id)
             AND NOT EXISTS (SELECT 1 FROM leases WHERE state = 'active' AND expires_at > ?)`,
        )
        .get(p.unit, p.scope_epoch, p.work_revision, p.baseline.commit, p.baseline.tree, p.scope_version, p.issued_at);
      expectChanges(state === undefined ? 0 : 1, 1, p.challenge);
      const count = cached(db, 'SELECT COUNT(*) AS n FROM challenges WHERE unit = ? AND stage = ? AND slot = ? AND content_digest = ?')
        .get(p.unit, p.stage, p.slot, p.content_digest) as { n: number };
      expectChanges(count.n + 1 === p.ordinal ? 1 : 0, 1, p.challenge);
      const r = cached(
          db,
          `INSERT INTO challenges (id, unit, stage, slot, ordinal, writer_session, reviewer_name, reviewer_sha256,
             reviewer_interpreter, view, bundle_digest, bundle_size, view_digest, planning_state_digest, content_digest,
             work_state_digest, contract_digest, sources_digest, workspace_digest, baseline_commit, baseline_tree,
             policy_digest, trust_digest, scope_version, scope_epoch, work_revision, issued_at, expires_at, status, ended_at)
           VALUES (@challenge, @unit, @stage, @slot, @ordinal, @writer_session, @reviewer_name, @reviewer_sha256,
             @reviewer_interpreter, @view, @bundle_digest, @bundle_size, @view_digest, @planning_state_digest, @content_digest,
             @work_state_digest, @contract_digest, @sources_digest, @workspace_digest, @baseline_commit, @baseline_tree,
             @policy_digest, @trust_digest, @scope_version, @scope_epoch, @work_revision, @issued_at, @expires_at, 'open', NULL)`,
        )
        .run({
          challenge: p.challenge,
          unit: p.unit,
          stage: p.stage,
          slot: p.slot,
          ordinal: p.ordinal,
          writer_session: p.writer_session,
          reviewer_name: p.reviewer.name,
          reviewer_sha256: p.reviewer.sha256,
          reviewer_interpreter: p.reviewer.interpreter,
          view: p.view,
          bundle_digest: p.bundle_digest,
          bundle_size: p.bundle_size,
          view_digest: p.view_digest,
          planning_state_digest: p.planning_state_digest,
          content_digest: p.content_digest,
          work_state_digest: p.work_state_digest,
          contract_digest: p.contract_digest,
          sources_digest: p.sources_digest,
          workspace_digest: p.workspace_digest,
          baseline_commit: p.baseline.commit,
          baseline_tree: p.baseline.tree,
          policy_digest: p.policy_digest,
          trust_digest: p.trust_digest,
          scope_version: p.scope_version,
          scope_epoch: p.scope_epoch,
          work_revision: p.work_revision,
          issued_at: p.issued_at,
          expires_at: p.expires_at,
        });
      expectChanges(r.changes, 1, p.challenge);
    },
  }),

  challenge_sweep: reducer({
    payload: z
      .strictObject({ unit: unitId, challenges: z.array(challengeId).check(z.minLength(1)), swept_at: seconds })
      .check(z.refine((p) => p.challenges.every((id, i) => i === 0 || (p.challenges[i - 1] as string) < id), 'sorted unique')),
    unitOf: (p) => p.unit,
    apply(db, p) {
      const expire = db.prepare(
        `UPDATE challenges SET status = 'expired', ended_at = ?
         WHERE id = ? AND unit = ? AND status = 'open' AND expires_at <= ?`,
      );
      for (const id of p.challenges) expectChanges(expire.run(p.swept_at, id, p.unit, p.swept_at).changes, 1, id);
    },
  }),
} as const;
