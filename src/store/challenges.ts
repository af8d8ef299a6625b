// Review challenges (docs/overview.md#words, docs/bundle.md#views, docs/decision.md#the-rules-in-short; docs/state.md#review-challenge): the store side of `review-challenge`.
//
// - `issueChallengeIn` records one open challenge inside the caller's IMMEDIATE transaction, after
//   re-checking, under the write lock, everything a concurrent process could have changed since
//   the flow built the bundle: no lease active (anywhere), the unit's scope version and counters
//   unchanged, and the run budget of (unit, stage, slot, content digest) not exhausted.
// - `sweepExpiredChallengesIn` records the expiry of open challenges (logged, docs/state.md#the-store).
// The runs domain reads this table (docs/state.md) and moves a challenge open → claimed → consumed
// or aborted with its own log entries.
import { randomBytes } from 'node:crypto';
import { fail } from '../core/errors.js';
import type { Stage } from '../core/policy.js';
import type { Tx } from './log.js';
import { CHALLENGE_ID_RE, type ChallengeIssuePayload } from './reducers/challenges.js';
import { dbOf, type Db, type Store } from './store.js';
import { getUnit } from './units.js';

export { CHALLENGE_ID_RE };

export type ChallengeStatus = 'open' | 'claimed' | 'consumed' | 'aborted' | 'expired';

export function newChallengeId(): string {
  return `CHL-${randomBytes(16).toString('hex')}`;
}

export interface Challenge {
  readonly challengeId: string;
  readonly unit: string;
  readonly stage: Stage;
  readonly slot: string;
  readonly ordinal: number;
  readonly writerSession: string;
  readonly reviewer: { readonly name: string; readonly sha256: string; readonly interpreter: string };
  readonly view: string;
  readonly bundleDigest: string;
  readonly bundleSize: number;
  readonly viewDigest: string;
  readonly planningStateDigest: string;
  readonly contentDigest: string;
  readonly workStateDigest: string;
  readonly contractDigest: string;
  readonly sourcesDigest: string;
  readonly workspaceDigest: string;
  readonly baseline: { readonly commit: string; readonly tree: string };
  readonly policyDigest: string;
  readonly trustDigest: string;
  readonly scopeVersion: number;
  readonly scopeEpoch: number;
  readonly workRevision: number;
  readonly issuedAt: number;
  readonly expiresAt: number;
  /** As stored; an `open` row past its expiry is reported `expired` by `challengeStateAt`. */
  readonly status: ChallengeStatus;
  readonly endedAt: number | null;
}

interface ChallengeRow {
  id: string;
  unit: string;
  stage: Stage;
  slot: string;
  ordinal: number;
  writer_session: string;
  reviewer_name: string;
  reviewer_sha256: string;
  reviewer_interpreter: string;
  view: string;
  bundle_digest: string;
  bundle_size: number;
  view_digest: string;
  planning_state_digest: string;
  content_digest: string;
  work_state_digest: string;
  contract_digest: string;
  sources_digest: string;
  workspace_digest: string;
  baseline_commit: string;
  baseline_tree: string;
  policy_digest: string;
  trust_digest: string;
  scope_version: number;
  scope_epoch: number;
  work_revision: number;
  issued_at: number;
  expires_at: number;
  status: ChallengeStatus;
  ended_at: number | null;
}

function toChallenge(r: ChallengeRow): Challenge {
  return {
    challengeId: r.id,
    unit: r.unit,
    stage: r.stage,
    slot: r.slot,
    ordinal: r.ordinal,
    writerSession: r.writer_session,
    reviewer: { name: r.reviewer_name, sha256: r.reviewer_sha256, interpreter: r.reviewer_interpreter },
    view: r.view,
    bundleDigest: r.bundle_digest,
    bundleSize: r.bundle_size,
    viewDigest: r.view_digest,
    planningStateDigest: r.planning_state_digest,
    contentDigest: r.content_digest,
    workStateDigest: r.work_state_digest,
    contractDigest: r.contract_digest,
    sourcesDigest: r.sources_digest,
    workspaceDigest: r.workspace_digest,
    baseline: { commit: r.baseline_commit, tree: r.baseline_tree },
    policyDigest: r.policy_digest,
    trustDigest: r.trust_digest,
    scopeVersion: r.scope_version,
    scopeEpoch: r.scope_epoch,
    workRevision: r.work_revision,
    issuedAt: r.issued_at,
    expiresAt: r.expires_at,
    status: r.status,
    endedAt: r.ended_at,
  };
}

/** The challenge with this id, or null (a malformed id is never looked up, never echoed). */
export function findChallenge(x: Store | Db, challengeId: string): Challenge | null {
  if (typeof challengeId !== 'string' || !CHALLENGE_ID_RE.test(challengeId)) return null;
  const row = dbOf(x).prepare('SELECT * FROM challenges WHERE id = ?').get(challengeId) as ChallengeRow | undefined;
  return row === undefined ? null : toChallenge(row);
}

/** Challenges of a unit (or all), oldest first. */
export function listChallenges(x: Store | Db, args: { readonly unit?: string } = {}): Challenge[] {
  const db = dbOf(x);
  const rows = (
    args.unit === undefined
      ? db.prepare('SELECT * FROM challenges ORDER BY issued_at, id').all()
      : db.prepare('SELECT * FROM challenges WHERE unit = ? ORDER BY issued_at, id').all(args.unit)
  ) as ChallengeRow[];
  return rows.map(toChallenge);
}

/** Status at `now`: an open challenge at or past its expiry is expired even before it is swept. */
export function challengeStateAt(c: Challenge, now: number): ChallengeStatus {
  return c.status === 'open' && c.expiresAt <= now ? 'expired' : c.status;
}

export interface BudgetKey {
  readonly unit: string;
  readonly stage: Stage;
  readonly slot: string;
  readonly contentDigest: string;
}

/**
 * Challenges ever issued for (unit, stage, slot, content digest), whatever became of them: an
 * expired or aborted challenge still spent budget (docs/reviewers.md#reviewer-output, so re-rolls are bounded).
 */
export function countChallenges(x: Store | Db, key: BudgetKey): number {
  const row = dbOf(x)
    .prepare('SELECT COUNT(*) AS n FROM challenges WHERE unit = ? AND stage = ? AND slot = ? AND content_digest = ?')
    .get(key.unit, key.stage, key.slot, key.contentDigest) as { n: number };
  return row.n;
}

/**
 * Inside a mutate: record one `challenge_sweep` entry per unit whose open challenges expired at
 * `tx.now`. Returns the swept challenge ids (their bundle files are the caller's to delete after
 * the commit).
 */
export function sweepExpiredChallengesIn(tx: Tx): string[] {
  const rows = tx.db
    .prepare("SELECT id, unit FROM challenges WHERE status = 'open' AND expires_at <= ? ORDER BY unit, id")
    .all(tx.now) as { id: string; unit: string }[];
  const byUnit = new Map<string, string[]>();
  for (const r of rows) byUnit.set(r.unit, [...(byUnit.get(r.unit) ?? []), r.id]);
  for (const [unit, challenges] of byUnit) tx.append('challenge_sweep', unit, { unit, challenges, swept_at: tx.now });
  return rows.map((r) => r.id);
}

export interface IssueChallengeArgs extends Omit<ChallengeIssuePayload, 'ordinal' | 'issued_at' | 'expires_at' | 'unit' | 'stage'> {
  readonly unit: string;
  readonly stage: Stage;
  readonly ttlSeconds: number;
  readonly maxRunsPerContent: number;
}

/**
 * Inside a mutate: record an open challenge. Everything that can change between the flow's reads
 * and this write is re-checked here under the write lock (BEGIN IMMEDIATE), in docs/commands.md#exit-codes order of
 * precedence: a lease became active (8), the unit's state moved (8), the budget ran out (8). The
 * UNIQUE (unit, stage, slot, content_digest, ordinal) constraint backs the budget check.
 */
export function issueChallengeIn(tx: Tx, args: IssueChallengeArgs): { challengeId: string; issuedAt: number; expiresAt: number; ordinal: number } {
  if (!Number.isSafeInteger(args.ttlSeconds) || args.ttlSeconds < 1) fail('internal_error', ['challenge_ttl']);
  const active = tx.db.prepare("SELECT 1 FROM leases WHERE state = 'active' AND expires_at > ? LIMIT 1").get(tx.now);
  if (active !== undefined) fail('challenge_lease_active', [args.unit]);
  const unit = getUnit(tx.db, args.unit);
  const latest = tx.db.prepare('SELECT MAX(version) AS v FROM scope_versions WHERE unit = ?').get(args.unit) as { v: number | null };
  if (
    unit.scopeEpoch !== args.scope_epoch ||
    unit.workRevision !== args.work_revision ||
    latest.v !== args.scope_version ||
    unit.baselineCommit !== args.baseline.commit ||
    unit.baselineTree !== args.baseline.tree
  ) {
    fail('challenge_state_moved', [args.unit]);
  }
  const used = countChallenges(tx.db, { unit: args.unit, stage: args.stage, slot: args.slot, contentDigest: args.content_digest });
  if (used >= args.maxRunsPerContent) fail('challenge_budget_exhausted', [args.unit, `${args.stage}.${args.slot}`]);
  const issuedAt = tx.now;
  const expiresAt = issuedAt + args.ttlSeconds;
  const ordinal = used + 1;
  const { ttlSeconds: _ttl, maxRunsPerContent: _max, ...fields } = args;
  tx.append('challenge_issue', args.unit, { ...fields, ordinal, issued_at: issuedAt, expires_at: expiresAt });
  return { challengeId: args.challenge, issuedAt, expiresAt, ordinal };
}
