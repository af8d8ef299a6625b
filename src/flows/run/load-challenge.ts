// docs/runner.md#the-run-step-by-step step 1: load the challenge and reject unknown, expired, consumed, claimed or tampered ones —
// before anything is claimed, so every refusal here leaves the store as it was.
//
// "Tampered" is decided by recomputing what can be recomputed (docs/runner.md "Step 1"):
//  - the challenge ROW must equal the payload of its own `challenge_issue` log entry, and that entry
//    must still hash and link into the chain (an UPDATE of the row — a later expiry, another bundle
//    digest, another reviewer — is detected; rewriting the log suffix too is what checkpoints catch);
//  - the pinned policy and trust root must pass their integrity check and be the ones the challenge
//    bound, and the unit's scope version, epoch and work revision must still be the ones it was
//    issued on (otherwise the challenge is stale: `challenge_stale`, nothing is claimed — running it
//    could only end in drift);
//  - the bundle FILE must be a private regular file whose bytes hash to `bundle_digest` (and have
//    `bundle_size` bytes); its header must name this challenge and its view digest. The bytes read
//    here are the very bytes the sandbox receives (docs/runner.md#the-run-step-by-step step 4: nothing is read twice).
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { canonicalJson, sha256Digest } from '../../core/canonical.js';
import { fail } from '../../core/errors.js';
import { coverageSchema, type Coverage } from '../../core/bundle/coverage-schema.js';
import {
  challengeIssueEntry,
  challengeStateAt,
  challengeRunState,
  findChallenge,
  getUnit,
  type Challenge,
  type Db,
} from '../../store/index.js';
import { bundlePath } from '../challenge/bundle-file.js';
import { loadPinned, type Pinned } from '../challenge/pinned.js';
import { CHALLENGE_ID_RE } from '../../core/ids.js';

/** A challenge id is looked up only when well-formed, and never echoed otherwise. */

export function challengeIdOrUnknown(id: string): string {
  if (typeof id !== 'string' || !CHALLENGE_ID_RE.test(id)) fail('challenge_unknown');
  return id;
}

/** The row or `challenge_unknown`. */
export function requireChallenge(db: Db, challengeId: string): Challenge {
  const c = findChallenge(db, challengeIdOrUnknown(challengeId));
  if (c === null) fail('challenge_unknown', [challengeId]);
  return c;
}

/** Status at `now`: only an open, unexpired challenge can be claimed (one-time, docs/overview.md#words). */
export function assertClaimable(c: Challenge, now: number): void {
  const state = challengeStateAt(c, now);
  if (state === 'claimed') fail('challenge_claimed', [c.challengeId]);
  if (state === 'consumed' || state === 'aborted') fail('challenge_consumed', [c.challengeId]);
  if (state !== 'open') fail('challenge_expired', [c.challengeId]);
}

/** The `challenge_issue` payload this row must have come from (reducers/challenges.ts, in reverse). */
function issuePayloadOf(c: Challenge): Record<string, unknown> {
  return {
    challenge: c.challengeId,
    unit: c.unit,
    stage: c.stage,
    slot: c.slot,
    ordinal: c.ordinal,
    writer_session: c.writerSession,
    reviewer: { name: c.reviewer.name, sha256: c.reviewer.sha256, interpreter: c.reviewer.interpreter },
    view: c.view,
    bundle_digest: c.bundleDigest,
    bundle_size: c.bundleSize,
    view_digest: c.viewDigest,
    planning_state_digest: c.planningStateDigest,
    content_digest: c.contentDigest,
    work_state_digest: c.workStateDigest,
    contract_digest: c.contractDigest,
    sources_digest: c.sourcesDigest,
    workspace_digest: c.workspaceDigest,
    baseline: { commit: c.baseline.commit, tree: c.baseline.tree },
    policy_digest: c.policyDigest,
    trust_digest: c.trustDigest,
    scope_version: c.scopeVersion,
    scope_epoch: c.scopeEpoch,
    work_revision: c.workRevision,
    issued_at: c.issuedAt,
    expires_at: c.expiresAt,
  };
}

/** The row equals its hash-chained log entry (docs/state.md#the-store: the log is the record; tables are derived). */
export function assertRowMatchesLog(db: Db, c: Challenge): void {
  const logged = challengeIssueEntry(db, c.challengeId, c.issuedAt);
  if (logged === null) fail('challenge_tampered', [c.challengeId]);
  let row: string;
  try {
    row = canonicalJson(issuePayloadOf(c));
  } catch {
    return fail('challenge_tampered', [c.challengeId]);
  }
  if (canonicalJson(logged) !== row) fail('challenge_tampered', [c.challengeId]);
  // The status is not in the issue entry: an "open" row that already has a run was set back by hand
  // (the runs table and its log entries are the record of what happened to it). Status and runs are
  // read in one statement: a racing runner's claim moves both at once, never one without the other.
  const state = challengeRunState(db, c.challengeId);
  if (state === null) fail('challenge_unknown', [c.challengeId]);
  if (state.status !== 'open') assertClaimable({ ...c, status: state.status as Challenge['status'] }, 0);
  if (state.runs > 0) fail('challenge_tampered', [c.challengeId]);
}

/** The pins in force are sound and are the ones bound; the unit has not moved since issuance. */
export function assertChallengeCurrent(db: Db, c: Challenge, now: number): Pinned {
  const pinned = loadPinned(db, now);
  if (pinned.policyDigest !== c.policyDigest || pinned.trustDigest !== c.trustDigest) fail('challenge_stale', [c.challengeId]);
  const unit = getUnit(db, c.unit);
  const latest = db.prepare('SELECT MAX(version) FROM scope_versions WHERE unit = ?').pluck().get(c.unit) as number | null;
  if (
    unit.scopeEpoch !== c.scopeEpoch ||
    unit.workRevision !== c.workRevision ||
    latest !== c.scopeVersion ||
    unit.baselineCommit !== c.baseline.commit ||
    unit.baselineTree !== c.baseline.tree
  ) {
    fail('challenge_stale', [c.challengeId]);
  }
  return pinned;
}

export interface LoadedBundle {
  /** The exact file bytes (hash = bundle_digest): what the sandbox receives. */
  readonly bytes: Buffer;
  /** The view's coverage object: what the reviewer must echo (docs/reviewers.md#reviewer-output). */
  readonly coverage: Coverage;
}

function euid(): number {
  return typeof process.geteuid === 'function' ? process.geteuid() : -1;
}

/** Read the bundle file once: private regular file of ours, exactly `bundle_size` bytes (also the
 * drift check's re-read, docs/runner.md#the-run-step-by-step step 8: no symlink followed, a FIFO never waited on). */
export function readBundleFile(bundlesDir: string, c: Challenge, maxBytes: number): Buffer {
  let fd: number;
  try {
    fd = openSync(bundlePath(bundlesDir, c.challengeId), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return fail('challenge_bundle_missing', [c.challengeId]);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.uid !== euid() || (st.mode & 0o077) !== 0) fail('challenge_bundle_missing', [c.challengeId]);
    if (st.size !== c.bundleSize || st.size > maxBytes) fail('challenge_bundle_mismatch', [c.challengeId]);
    const bytes = Buffer.alloc(st.size);
    let off = 0;
    while (off < st.size) {
      const n = readSync(fd, bytes, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
    // One byte more than recorded (a file grown while read) is a mismatch too.
    if (off !== st.size || readSync(fd, Buffer.alloc(1), 0, 1, off) !== 0) fail('challenge_bundle_mismatch', [c.challengeId]);
    return bytes;
  } finally {
    closeSync(fd);
  }
}

/** The bundle bytes, checked against the digest bound at issuance, and its coverage object. */
export function loadBundle(db: Db, bundlesDir: string, c: Challenge, maxBytes: number): LoadedBundle {
  let bytes: Buffer;
  try {
    bytes = readBundleFile(bundlesDir, c, maxBytes);
  } catch (e) {
    // A racing runner may have claimed, finished and deleted the bundle since the row was read:
    // that is a claimed/consumed challenge, not a missing file.
    const state = challengeRunState(db, c.challengeId);
    if (state !== null && state.status !== 'open') assertClaimable({ ...c, status: state.status as Challenge['status'] }, 0);
    throw e;
  }
  if (sha256Digest(bytes) !== c.bundleDigest) fail('challenge_bundle_mismatch', [c.challengeId]);
  let header: { challenge_id?: unknown; unit?: unknown; stage?: unknown; slot?: unknown; view?: { digest?: unknown }; coverage?: unknown };
  try {
    header = JSON.parse(bytes.toString('utf8')) as typeof header;
  } catch {
    return fail('challenge_bundle_mismatch', [c.challengeId]);
  }
  const coverage = coverageSchema.safeParse(header.coverage);
  if (
    !coverage.success ||
    header.challenge_id !== c.challengeId ||
    header.unit !== c.unit ||
    header.stage !== c.stage ||
    header.slot !== c.slot ||
    header.view?.digest !== c.viewDigest
  ) {
    fail('challenge_bundle_mismatch', [c.challengeId]);
  }
  return { bytes, coverage: coverage.data };
}
