// Honest store-level fixtures for the replay tests (docs/audit.md "Replay builds only what the live
// path could have built"): replay now recomputes what `unit create` / `unit bind` derive from the
// contract bytes and checks every challenge against the policy pinned at its log position, so a
// test that writes through the store API must bind real contracts and issue challenges as
// `review-challenge` issues them.
//   - `newReviewStore`: a store whose pinned policy is a complete one (store-helpers' POLICY_YAML is
//     not a loadable policy: the live path could never issue a challenge under it);
//   - `scopeArgs`: the bind arguments of a real contract (the docs/contract.md#validation-rules two-directive example),
//     its digest and sources digest computed as the live flows compute them;
//   - `issueArgsFor`: the challenge arguments review-challenge would pass (the slot's reviewer, the
//     pinned digests, TTL and run budget), the state digests left to the test.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { canonicalJson, digestOf, sha256Digest } from '../../src/core/canonical.js';
import { entryHashOf } from '../../src/store/log.js';
import { sourcesDigest } from '../../src/core/bundle/sources-digest.js';
import { contractDigest } from '../../src/core/contract/digests.js';
import { type Contract } from '../../src/core/contract/schema.js';
import { parseContractText } from '../../src/core/contract/text.js';
import { loadPolicy, reviewerForSlot, type Stage } from '../../src/core/policy.js';
import { initStore, readPin } from '../../src/store/pins.js';
import { getScopeVersion, type BindScopeArgs } from '../../src/store/scope.js';
import type { IssueChallengeArgs } from '../../src/store/challenges.js';
import { newChallengeId } from '../../src/store/challenges.js';
import type { Db, Store } from '../../src/store/store.js';
import { DEFERRAL_SOURCE, deferralExample } from '../contract-fixtures.js';
import { COMMIT, T0, tempDir, TRUST_JSON, TREE } from '../store-helpers.js';

const H = (c: string): string => c.repeat(64);
const cred = (c: string): Record<string, unknown> => ({ key_id: H(c), attestor_sha256: [H(c)], attestor_config_sha256: [H(c)] });

/** A complete policy: one development slot `coverage`, TTL 60 s, 3 runs per content. */
export const REVIEW_POLICY = {
  kind: 'governed/policy',
  version: 1,
  trust_mode: 'co-located',
  accept_co_located: true,
  challenge_ttl: '60s',
  max_runs_per_content: 3,
  product_roots: ['.'],
  exclude: ['.governed'],
  preservation: { waived: 'store-level tests' },
  stages: { development: { required: true, streak: 2, slots: { coverage: 'coverage', lint: 'linter' } } },
  reviewers: {
    coverage: { sha256: H('a'), interpreter: '/usr/bin/node', env: {} },
    linter: { sha256: H('e'), interpreter: '/usr/bin/python3', env: {} },
  },
  sandbox: {
    bwrap_sha256: [H('2')],
    profile_sha256: [H('3')],
    seccomp_sha256: [H('4')],
    uid: 64500,
    timeout: '120s',
    memory: '2GiB',
    max_output: '1MiB',
    max_bundle: '64MiB',
  },
  credentials: { reviewer: cred('5'), runner: cred('6'), gate: cred('7'), log: cred('8') },
  controls: [],
} as const;

export const REVIEW_TTL = 60;
export const REVIEW_MAX_RUNS = 3;

/** An initialised store in `<tmp>/state` pinning REVIEW_POLICY (as JSON) and store-helpers' trust root. */
export function newReviewStore(now = T0, policy: Record<string, unknown> = REVIEW_POLICY): Store {
  return initStore(join(tempDir(), 'state'), {
    policyBytes: Buffer.from(JSON.stringify(policy, null, 2)),
    trustBytes: Buffer.from(TRUST_JSON),
    now,
  });
}

export interface ContractShape {
  /** Evidence items beyond EVD-1 (each one an addition). */
  readonly extraEvidence?: number;
  /** Directives moved to `done` (progress). */
  readonly done?: readonly string[];
  /** Edit this contract further (e.g. a narrowing). */
  readonly edit?: (c: Contract) => void;
}

/** The docs/contract.md#validation-rules two-directive example (both active), shaped; exact JSON bytes as a file would hold. */
export function contractBytes(shape: ContractShape = {}): Buffer {
  const c = structuredClone(deferralExample(false).contract) as Contract;
  for (let i = 0; i < (shape.extraEvidence ?? 0); i++) {
    (c.evidence as { id: string; kind: string; paths: string[] }[]).push({ id: `EVD-${i + 2}`, kind: 'test', paths: [`test/extra-${i + 2}.test.ts`] });
  }
  for (const d of c.directives) if (shape.done?.includes(d.id)) (d as { state: string }).state = 'done';
  shape.edit?.(c);
  return Buffer.from(`${JSON.stringify(c, null, 2)}\n`);
}

export const SOURCES = [{ id: 'SRC-1', path: 'requests/export.md', digest: sha256Digest(DEFERRAL_SOURCE) }];

/**
 * `bindScopeIn` arguments for these bytes, with the digest the flows record (`contractDigest` of
 * the parsed bytes) and the sources digest of SOURCES. The diff is the caller's (what `diffScope`
 * gave the live bind); null for version 1.
 */
export function scopeArgs(unit: string, bytes: Buffer, diff: BindScopeArgs['diff'], scopeChanged = true, authorities: string[] = []): BindScopeArgs {
  return {
    unit,
    contractBytes: bytes,
    contractDigest: contractDigest(parseContractText(bytes.toString('utf8'), '')),
    sources: SOURCES,
    sourcesDigest: sourcesDigest(SOURCES),
    diff,
    scopeChanged,
    authorities,
  };
}

/** The arguments review-challenge passes for (stage, slot) under the pins of `db`; state digests by the test. */
export function issueArgsFor(db: Db | Store, unit: string, over: Partial<IssueChallengeArgs> = {}): IssueChallengeArgs {
  const d = 'db' in db ? db.db : db;
  const policyPin = readPin(d, 'policy');
  const policy = loadPolicy(JSON.parse(policyPin.bytes.toString('utf8')) as unknown);
  const stage = (over.stage ?? 'development') as Stage;
  const slot = over.slot ?? 'coverage';
  const r = reviewerForSlot(policy, stage, slot);
  const v = getScopeVersion(d, unit);
  const D = (c: string): string => `sha256:${c.repeat(64)}`;
  return {
    challenge: newChallengeId(),
    unit,
    stage,
    slot,
    writer_session: 'w0',
    reviewer: { name: r.name, sha256: r.sha256, interpreter: r.interpreter },
    view: 'complete',
    bundle_digest: D('5'),
    bundle_size: 100,
    view_digest: D('6'),
    planning_state_digest: D('7'),
    content_digest: D('8'),
    work_state_digest: D('9'),
    contract_digest: v.contractDigest,
    sources_digest: v.sourcesDigest,
    workspace_digest: D('a'),
    baseline: { commit: COMMIT, tree: TREE },
    policy_digest: policyPin.digest,
    trust_digest: readPin(d, 'trust').digest,
    scope_version: v.version,
    scope_epoch: v.scopeEpoch,
    work_revision: d.prepare('SELECT work_revision FROM units WHERE id = ?').pluck().get(unit) as number,
    ttlSeconds: policy.challengeTtlSeconds,
    maxRunsPerContent: policy.doc.max_runs_per_content,
    ...over,
  };
}

/**
 * The attacker of docs/audit.md "Replay builds only what the live path could have built", with the
 * store file: rewrite entry `seq`'s payload, recompute its digest and every later entry hash (the
 * chain holds again), and `patch` the tables to what the rewritten log replays to — so, before the
 * replay checks, chain AND replay held and `audit verify` passed. The technique of
 * test/store-replay-live-differential.test.ts. `time`, when given, also rewrites the entry's own time.
 */
export function forgeEntry(store: Store, seq: number, change: (p: Record<string, unknown>) => void, patch?: (db: Database.Database) => void, time?: number): void {
  const db = new Database(store.dbPath);
  try {
    db.exec('DROP TRIGGER IF EXISTS log_no_update; DROP TRIGGER IF EXISTS log_no_delete; DROP TRIGGER IF EXISTS log_append_extends_chain;');
    db.transaction(() => {
      const row = db.prepare('SELECT payload, time FROM log WHERE seq = ?').get(seq) as { payload: Buffer; time: number };
      const payload = JSON.parse(row.payload.toString('utf8')) as Record<string, unknown>;
      change(payload);
      const bytes = Buffer.from(canonicalJson(payload as never), 'utf8');
      db.prepare('UPDATE log SET payload = ?, payload_digest = ?, time = ? WHERE seq = ?').run(bytes, digestOf(payload as never), time ?? row.time, seq);
      const rows = db.prepare('SELECT seq, time, type, unit, payload_digest, prev_hash FROM log WHERE seq >= ? ORDER BY seq').all(seq) as Parameters<typeof entryHashOf>[0][];
      let prev = db.prepare('SELECT entry_hash FROM log WHERE seq = ?').pluck().get(seq - 1) as string;
      // entry_hash is UNIQUE: move the rewritten range out of the way before relinking it.
      db.prepare("UPDATE log SET entry_hash = 'sha256:' || substr('0000000000000000000000000000000000000000000000000000000000000000' || printf('%x', seq), -64) WHERE seq >= ?").run(seq);
      for (const r of rows) {
        const entryHash = entryHashOf({ ...r, prev_hash: prev });
        db.prepare('UPDATE log SET prev_hash = ?, entry_hash = ? WHERE seq = ?').run(prev, entryHash, r.seq);
        prev = entryHash;
      }
      patch?.(db);
    })();
  } finally {
    db.close();
  }
}

/** The seq of the last entry of `type`. */
export function lastSeqOf(store: Store, type: string): number {
  return store.db.prepare('SELECT MAX(seq) FROM log WHERE type = ?').pluck().get(type) as number;
}
