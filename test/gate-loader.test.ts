// The fact loader of `status` and `gate` (src/flows/decide/facts.ts; docs/decision.md#11-loading-only-what-counts-lean-gate-path): over a
// generated history in a real store — DIRTY and CLEAN receipts, ABORTED runs, vetoes, several
// planning states, contents and work revisions — its indexed queries select exactly the receipts
// `sufficientReceipts` names, the decision on them equals the decision on the whole history, the
// queries use the indexes of migration 0006, and replaying the log still rebuilds the store.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, digestOf, sha256Digest } from '../src/core/canonical.js';
import { sourcesDigest } from '../src/core/bundle/sources-digest.js';
import { CONTROL_REGISTRY, decide, sufficientReceipts, type ReceiptFact, type StateDigests, type VetoFinding } from '../src/core/decision/index.js';
import { loadPolicy, ROLES } from '../src/core/policy.js';
import { loadAbortedRuns, loadReceipts, loadUnitFacts } from '../src/flows/decide/facts.js';
import { logField } from '../src/store/receipt-entries.js';
import {
  acquireLeaseIn,
  assertReplayMatches,
  bindScopeIn,
  closeStore,
  createUnitIn,
  initStore,
  listReceipts,
  mutate,
  readProcessIdentity,
  registerWriterIn,
  releaseLeaseIn,
  type Store,
} from '../src/store/index.js';
import { syntheticAbortIn, syntheticReceiptIn, type SyntheticState, type SyntheticUnit } from './helpers/store-receipts.js';
import { specExample } from './contract-fixtures.js';
import { cleanupDirs, makeKeys, policyDoc, tempDir, trustDoc } from './state-helpers.js';

const T0 = 1_780_000_000;
let store: Store;
let u: SyntheticUnit;
let policyJson: Record<string, unknown>;
let keysAll: ReturnType<typeof makeKeys>;
let trustJson: Record<string, unknown>;
const states: SyntheticState[] = [];

/** A deterministic generator (mulberry32) so a failing history can be reproduced. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

beforeAll(() => {
  const keys = makeKeys();
  keysAll = keys;
  policyJson = policyDoc(keys, {
    stages: {
      planning: { required: true, streak: 2, slots: Object.fromEntries(ROLES.map((r) => [r, 'coverage'])) },
      development: { required: true, streak: 2, slots: { coverage: 'coverage', lint: 'coverage' } },
      integration: { required: true, streak: 2, slots: Object.fromEntries(ROLES.map((r) => [r, 'coverage'])) },
    },
  });
  const trust = trustDoc(keys);
  trustJson = trust;
  store = initStore(join(tempDir(), 'state'), { policyBytes: Buffer.from(JSON.stringify(policyJson)), trustBytes: Buffer.from(JSON.stringify(trust)), now: T0 });
  const { contract } = specExample();
  const sources = [{ id: 'SRC-1', path: 'requests/export.md', digest: sha256Digest('source') }];
  const unit = mutate(store, T0, (tx) => {
    const { unitId } = createUnitIn(tx, { baselineCommit: 'a'.repeat(40), baselineTree: 'b'.repeat(40) });
    bindScopeIn(tx, {
      unit: unitId,
      contractBytes: Buffer.from(JSON.stringify(contract)),
      contractDigest: digestOf(contract),
      sources,
      sourcesDigest: sourcesDigest(sources),
      diff: null,
      scopeChanged: true,
      authorities: [],
    });
    registerWriterIn(tx, { unit: unitId, writerSession: 'agent-1', identity: readProcessIdentity(process.pid) });
    return unitId;
  });
  u = {
    unit,
    writerSession: 'agent-1',
    scopeVersion: 1,
    scopeEpoch: 1,
    baseline: { commit: 'a'.repeat(40), tree: 'b'.repeat(40) },
    contractDigest: digestOf(contract),
    sourcesDigest: sourcesDigest(sources),
    policyDigest: digestOf(policyJson),
    trustDigest: digestOf(trust),
    keys: { reviewer: keys.reviewer, runner: keys.runner },
  };

  // A history: 3 planning states x 4 contents, work revisions bumped by lease cycles, every stage.
  const rnd = prng(20261129);
  const veto = { code: 'scope_omission' as const, class: 'scope' as const, severity: 'CRITICAL' as const, refs: ['DIR-1'] };
  const bug = { code: 'test_gap' as const, class: 'correctness' as const, severity: 'MEDIUM' as const, refs: ['AC-1'] };
  let clock = T0 + 10;
  for (let step = 0; step < 60; step++) {
    mutate(store, clock++, (tx) => {
      if (rnd() < 0.4) {
        const lease = acquireLeaseIn(tx, { unit, writerSession: 'agent-1', ttlSeconds: 60 });
        releaseLeaseIn(tx, { leaseId: lease.leaseId, writerSession: 'agent-1' });
      }
      const revision = tx.db.prepare('SELECT work_revision FROM units WHERE id = ?').pluck().get(unit) as number;
      const p = Math.floor(rnd() * 3);
      const c = Math.floor(rnd() * 4);
      const state = {
        planning: sha256Digest(`planning-${p}`),
        content: sha256Digest(`content-${p}-${c}`),
        work: sha256Digest(`work-${p}-${c}-${revision}`),
        workspace: sha256Digest(`workspace-${c}`),
      };
      states.push(state);
      for (let k = 0; k < 3; k++) {
        const stage = (['planning', 'development', 'integration'] as const)[Math.floor(rnd() * 3)] as string;
        const slots = stage === 'development' ? ['coverage', 'lint'] : [...ROLES];
        const slot = slots[Math.floor(rnd() * slots.length)] as string;
        const roll = rnd();
        if (roll < 0.1) syntheticAbortIn(tx, u, stage, slot, state);
        else if (roll < 0.2) syntheticReceiptIn(tx, u, stage, slot, state, { findings: [bug] });
        else if (roll < 0.25) syntheticReceiptIn(tx, u, stage, slot, state, { findings: [bug, veto] });
        else syntheticReceiptIn(tx, u, stage, slot, state);
      }
    });
  }
});
afterAll(() => {
  closeStore(store);
  cleanupDirs();
});

/** Every receipt of the unit as a fact, read independently of the loader (store API + payload). */
function allReceiptFacts(): ReceiptFact[] {
  return listReceipts(store, u.unit).map((r) => {
    const env = JSON.parse(r.envelope.toString('utf8')) as { payload: string };
    const predicate = (JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8')) as { predicate: { vetoes: VetoFinding[]; trust_mode: ReceiptFact['trustMode'] } }).predicate;
    return {
      receiptId: r.id,
      unit: r.unit,
      stage: r.stage as ReceiptFact['stage'],
      slot: r.slot,
      verdict: r.verdict,
      vetoes: predicate.vetoes,
      trustMode: predicate.trust_mode,
      planningStateDigest: r.planningStateDigest,
      contentDigest: r.contentDigest,
      workStateDigest: r.workStateDigest,
      policyDigest: r.policyDigest,
      trustDigest: r.trustDigest,
      seq: r.logSeq,
      time: r.recordedAt,
    };
  });
}

const currents = (): StateDigests[] => [
  ...states.map((s) => ({ planningStateDigest: s.planning, contentDigest: s.content, workStateDigest: s.work })),
  { planningStateDigest: sha256Digest('nothing'), contentDigest: sha256Digest('nothing-c'), workStateDigest: sha256Digest('nothing-w') },
];

describe('the loader selects exactly the sufficient receipts', () => {
  it('the generated history is rich enough to mean something', () => {
    const all = allReceiptFacts();
    expect(all.length).toBeGreaterThan(120);
    expect(all.filter((r) => r.verdict === 'DIRTY').length).toBeGreaterThan(10);
    expect(all.filter((r) => r.vetoes.length > 0).length).toBeGreaterThan(3);
    expect(loadAbortedRuns(store.db, u.unit).length).toBeGreaterThan(5);
  });

  it('for every state of the history taken as current: same ids as sufficientReceipts, same facts', () => {
    const all = allReceiptFacts();
    const aborted = loadAbortedRuns(store.db, u.unit);
    let nonTrivial = 0;
    for (const current of currents()) {
      const loaded = loadReceipts(store.db, u.unit, current, aborted).map((r) => r.fact);
      const expected = sufficientReceipts({ receipts: all, abortedRuns: aborted, current });
      expect(loaded.map((r) => r.receiptId)).toEqual(expected.map((r) => r.receiptId));
      expect(canonicalJson(loaded)).toBe(canonicalJson(expected));
      if (loaded.length < all.length) nonTrivial++;
    }
    expect(nonTrivial).toBeGreaterThan(10);
  });

  it('and the decision on the loaded facts equals the decision on the whole history', () => {
    const all = allReceiptFacts();
    const policy = loadPolicy(structuredClone(policyJson));
    for (const current of currents().slice(-12)) {
      const facts = loadUnitFacts(store.db, u.unit, current);
      const base = {
        unit: u.unit,
        now: T0 + 100_000,
        policy,
        trustDigest: u.trustDigest,
        current,
        abortedRuns: facts.abortedRuns,
        authorities: facts.authorities.map((a) => a.fact),
        resets: facts.resets,
        trustMode: 'co-located' as const,
        openLeases: [],
        directives: [],
        preservation: { contract: false, incidentHistory: false, unsatisfiedSurfaces: [] },
        controls: CONTROL_REGISTRY,
      };
      expect(decide({ ...base, receipts: facts.receipts.map((r) => r.fact) })).toEqual(decide({ ...base, receipts: all }));
    }
  });
});

describe('indexed queries (migration 0006)', () => {
  const plan = (sql: string, ...params: unknown[]): string =>
    (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join(' | ');

  it.each([
    ["SELECT id FROM receipts WHERE unit = ? AND planning_state_digest = ? AND stage = 'planning'", 'receipts_unit_planning_state'],
    ["SELECT id FROM receipts WHERE unit = ? AND work_state_digest = ? AND stage <> 'planning'", 'receipts_unit_work_state'],
    ["SELECT id FROM receipts WHERE unit = ? AND verdict = 'DIRTY'", 'receipts_unit_dirty'],
    [
      "SELECT id FROM receipts WHERE unit = ? AND stage = ? AND slot = ? AND log_seq > ? AND verdict = 'CLEAN' ORDER BY log_seq LIMIT 1",
      'receipts_unit_slot_seq',
    ],
    ["SELECT id FROM runs WHERE unit = ? AND status = 'aborted' ORDER BY end_seq", 'runs_unit_aborted'],
    ['SELECT record FROM authority_consumptions WHERE unit = ? ORDER BY consumed_seq', 'authority_consumptions_unit'],
    ["SELECT id FROM challenges WHERE unit = ? AND work_revision = ? AND stage <> 'planning'", 'challenges_unit_revision'],
  ])('%s uses %s', (sql, index) => {
    const params = Array.from({ length: (sql.match(/\?/g) ?? []).length }, (_, i) => (i === 0 ? u.unit : 'x'));
    const detail = plan(sql, ...params);
    expect(detail).toContain(index);
    expect(detail).not.toMatch(/SCAN (receipts|runs|authority_consumptions|challenges)\b(?! USING)/);
  });
});

describe('the same subsets read from the log (migration 0007: the table-log cross-check stays indexed)', () => {
  const plan = (sql: string, ...params: unknown[]): string =>
    (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join(' | ');
  const F = (n: Parameters<typeof logField>[0]): string => logField(n);
  const R = "SELECT seq FROM log WHERE type = 'run_receipt' AND unit = ?";

  it.each([
    [`${R} AND ${F('stage')} = 'planning' AND ${F('planning_state_digest')} = ? ORDER BY seq`, 'log_receipt_planning_state'],
    [`${R} AND ${F('work_state_digest')} = ? AND ${F('stage')} <> 'planning'`, 'log_receipt_work_state'],
    [`${R} AND ${F('verdict')} = 'DIRTY'`, 'log_receipt_verdict'],
    [`${R} AND ${F('stage')} = ? AND ${F('slot')} = ? AND ${F('verdict')} = 'CLEAN' AND seq > ? ORDER BY seq LIMIT 1`, 'log_receipt_slot_seq'],
    ["SELECT seq FROM log WHERE type = 'run_abort' AND unit = ? ORDER BY seq", 'log_unit_run_abort'],
    ["SELECT seq FROM log WHERE type = 'authority_consume' AND unit = ? ORDER BY seq", 'log_unit_authority_consume'],
    // The incident-history lift witness (src/flows/decide/lift-witness.ts) reads a unit's bindings on
    // every gate; unindexed it scanned the whole log (migration 0010 adds the index).
    ["SELECT seq, payload FROM log WHERE type = 'preservation_set' AND unit = ? ORDER BY seq", 'log_unit_preservation_set'],
  ])('%s uses %s', (sql, index) => {
    const params = Array.from({ length: (sql.match(/\?/g) ?? []).length }, (_, i) => (i === 0 ? u.unit : i === 3 ? 1 : 'x'));
    const detail = plan(sql, ...params);
    expect(detail).toContain(index);
    expect(detail).not.toMatch(/SCAN log\b(?! USING)/);
  });
});

describe('trust roots by log position (status judges each record under the one in force there, docs/state.md#the-store)', () => {
  it('before a trust_update the old root, from its position on the new one', async () => {
    const { trustRootsByPosition } = await import('../src/flows/decide/pins.js');
    const { requestAuthority, recordAuthority, replacePinIn } = await import('../src/store/index.js');
    const { encodeEnvelope, IN_TOTO_PAYLOAD_TYPE, pae } = await import('../src/core/dsse.js');
    const { sign } = await import('node:crypto');
    const { makeKey } = await import('./helpers/receipts.js');
    const extra = makeKey(tempDir(), 'extra');
    const next = { ...trustJson, keys: [...(trustJson.keys as unknown[]), { key_id: extra.keyId, public_key: extra.publicPem, roles: ['log'], not_before: '2020-01-01T00:00:00Z', not_after: '2099-01-01T00:00:00Z' }] };
    const now = T0 + 200_000;
    const before = (store.db.prepare('SELECT MAX(seq) FROM log').pluck().get() as number) + 0;
    const req = requestAuthority(store, { operation: 'trust_update', ids: [], unit: null, stateBefore: null, stateAfter: digestOf(next), ttlSeconds: 3600, now });
    const sig = sign(null, pae(IN_TOTO_PAYLOAD_TYPE, req.payload), keysAll.authority.privateKey);
    const rec = recordAuthority(store, { envelope: Buffer.from(JSON.stringify(encodeEnvelope(IN_TOTO_PAYLOAD_TYPE, req.payload, [{ keyid: keysAll.authority.keyId, sig }]))), now });
    const update = mutate(store, now, (tx) => replacePinIn(tx, { kind: 'trust', bytes: Buffer.from(JSON.stringify(next)), recordId: rec.recordId }));
    const at = await trustRootsByPosition(store.db);
    expect(at(before).digest).toBe(digestOf(trustJson));
    expect(at(update.seq - 1).keys.has(extra.keyId)).toBe(false);
    expect(at(update.seq).digest).toBe(digestOf(next));
    expect(at(update.seq + 100).keys.has(extra.keyId)).toBe(true);
  });
});

describe('replay', () => {
  it('replaying the log (with the decision indexes in the schema) rebuilds the store', () => {
    expect(() => assertReplayMatches(store, join(tempDir(), 'replay.db'))).not.toThrow();
  });
});
