// Authority records in the store (docs/state.md#the-store, docs/authority.md#human-authority-records, docs/policy.md#policy-and-trust-root): request → record → consume once, every
// refusal with its own code and the store exactly unchanged (tablesDigest), judgement at the log
// position of consumption (trust root in force then, expiry vs that time), pin updates, and replay.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalJson, sha256Digest } from '../src/core/canonical.js';
import { fail } from '../src/core/errors.js';
import { buildAuthorityStatement, isoOfSeconds, type AuthorityPredicate } from '../src/core/authority/index.js';
import {
  consumeAuthorityIn,
  createUnit,
  getAuthorityRecord,
  isAuthorityConsumedFor,
  lastPinUpdateSeq,
  listAuthorityRecords,
  logHead,
  mutate,
  pinDigestOf,
  pinInForceAt,
  pinUpdates,
  readAuthorityEnvelope,
  readLog,
  readPin,
  recordAuthority,
  replacePinIn,
  replayInto,
  assertReplayMatches,
  requestAuthority,
  stateDigest,
  tablesDigest,
  trustRootAt,
  entryHashOf,
  type AuthorityRequestArgs,
  type IssuedAuthorityRequest,
  type Store,
} from '../src/store/index.js';
import { rawConnection } from './store-helpers.js';
import {
  bytesOf,
  cleanupDirs,
  codeOf,
  COMMIT,
  expectRefusedUnchanged,
  newStore,
  payloadOf,
  policyDoc,
  signPayload,
  T0,
  tempDir,
  TREE,
  trustWith,
  world,
  type World,
} from './authority-helpers.js';

afterEach(cleanupDirs);

const D = (c: string): string => `sha256:${c.repeat(64)}`;
const IDS = ['DIR-2', 'DIR-2>TGT-2', 'TGT-2'];

interface Setup {
  readonly w: World;
  readonly store: Store;
  readonly unit: string;
}

function setup(): Setup {
  const w = world();
  const store = newStore(w.trust);
  const { unitId } = createUnit(store, { baselineCommit: COMMIT, baselineTree: TREE, now: T0 + 1 });
  return { w, store, unit: unitId };
}

function issue(s: Setup, over: Partial<AuthorityRequestArgs> = {}, now = T0 + 2): IssuedAuthorityRequest {
  return requestAuthority(s.store, {
    operation: 'defer',
    ids: IDS,
    unit: s.unit,
    stateBefore: D('a'),
    stateAfter: D('b'),
    ttlSeconds: 3600,
    now,
    ...over,
  });
}

const deferUse = (s: Setup, recordId: string) => ({
  recordId,
  operation: 'defer' as const,
  ids: IDS,
  unit: s.unit,
  stateBefore: D('a'),
  stateAfter: D('b'),
});

/** Re-sign an edited copy of an issued statement with a real authority key. */
function resigned(s: Setup, req: IssuedAuthorityRequest, over: Partial<AuthorityPredicate>): Buffer {
  return signPayload(payloadOf(buildAuthorityStatement({ ...req.statement.predicate, ...over })), [s.w.human]);
}

describe('authority request', () => {
  it('logs a one-time nonce and the exact statement to sign', () => {
    const s = setup();
    const req = issue(s);
    expect(req.requestId).toMatch(/^ARQ-[0-9a-f]{32}$/);
    expect(req.recordId).toMatch(/^REC-[0-9a-f]{24}$/);
    expect(req.payload.toString()).toBe(canonicalJson(req.statement));
    expect(req.statement.predicate.ids).toEqual(IDS);
    const entry = readLog(s.store).at(-1);
    expect(entry?.type).toBe('authority_request');
    expect(entry?.unit).toBe(s.unit);
    const other = issue(s);
    expect(other.statement.predicate.nonce).not.toBe(req.statement.predicate.nonce);
  });

  it('refuses malformed requests, each store unchanged', () => {
    const s = setup();
    const refused = (over: Partial<AuthorityRequestArgs>, code = 'authority_request_invalid'): void =>
      expectRefusedUnchanged(s.store, code, () => issue(s, over));
    refused({ operation: 'delete' });
    refused({ ids: ['dir 1'] });
    refused({ ids: ['DIR-1', 'DIR-1'] });
    refused({ ids: [] });
    refused({ ttlSeconds: 0 });
    refused({ ttlSeconds: 7 * 86400 + 1 });
    refused({ unit: null });
    refused({ unit: `UNIT-${'9'.repeat(32)}` }, 'unit_unknown');
    refused({ stateBefore: 'sha256:xyz' });
    refused({ stateAfter: null });
    refused({ operation: 'dismiss' }); // dismiss binds no state_after
    refused({ operation: 'policy_update', unit: null, ids: [], stateBefore: null, stateAfter: null }); // no new document digest
    refused({ operation: 'policy_update', unit: s.unit, ids: [], stateBefore: null, stateAfter: D('b') });
    refused({ operation: 'trust_update', unit: null, ids: [], stateBefore: D('c'), stateAfter: D('b') }); // not the pinned digest
  });

  it('a pin update request starts from the digest pinned now', () => {
    const s = setup();
    const req = issue(s, { operation: 'policy_update', unit: null, ids: [], stateBefore: null, stateAfter: D('b') });
    expect(req.statement.predicate.state_before).toBe(readPin(s.store, 'policy').digest);
    expect(req.statement.subject).toEqual([{ name: 'policy', digest: { sha256: 'b'.repeat(64) } }]);
  });
});

describe('authority record', () => {
  it('verifies and stores the exact envelope bytes', () => {
    const s = setup();
    const req = issue(s);
    const envelope = signPayload(req.payload, [s.w.human]);
    const info = recordAuthority(s.store, { envelope, now: T0 + 3 });
    expect(info).toMatchObject({ recordId: req.recordId, requestId: req.requestId, operation: 'defer', unit: s.unit, consumed: null });
    expect(info.ids).toEqual(IDS);
    expect(info.keyId).toBe(s.w.human.keyId);
    expect(readAuthorityEnvelope(s.store, req.recordId)?.equals(envelope)).toBe(true);
    expect(readLog(s.store).at(-1)?.type).toBe('authority_record');
    expect(listAuthorityRecords(s.store, { unit: s.unit }).map((r) => r.recordId)).toEqual([req.recordId]);
  });

  it('refuses wrong key, wrong role, two keys, edited bytes — store unchanged', () => {
    const s = setup();
    const req = issue(s);
    const at = T0 + 3;
    expectRefusedUnchanged(s.store, 'key_unknown', () => recordAuthority(s.store, { envelope: signPayload(req.payload, [s.w.outsider]), now: at }));
    expectRefusedUnchanged(s.store, 'key_wrong_role', () => recordAuthority(s.store, { envelope: signPayload(req.payload, [s.w.reviewer]), now: at }));
    expectRefusedUnchanged(s.store, 'signature_extra', () =>
      recordAuthority(s.store, { envelope: signPayload(req.payload, [s.w.human, s.w.human2]), now: at }),
    );
    const env = JSON.parse(signPayload(req.payload, [s.w.human]).toString()) as { payload: string };
    const editedPayload = payloadOf(buildAuthorityStatement({ ...req.statement.predicate, ids: ['DIR-2'] }));
    const edited = Buffer.from(JSON.stringify({ ...env, payload: editedPayload.toString('base64') }));
    expectRefusedUnchanged(s.store, 'signature_invalid', () => recordAuthority(s.store, { envelope: edited, now: at }));
    expectRefusedUnchanged(s.store, 'envelope_invalid', () => recordAuthority(s.store, { envelope: Buffer.from('{"payloadType":1}'), now: at }));
  });

  it('refuses a statement that is not the one issued (wrong IDs, wrong operation), even when an authority key signed it', () => {
    const s = setup();
    const req = issue(s);
    for (const over of [{ ids: ['DIR-2'] }, { operation: 'abandon' as const }, { state_after: D('c') }, { expires_at: isoOfSeconds(T0 + 7000) }]) {
      expectRefusedUnchanged(s.store, 'authority_request_mismatch', () => recordAuthority(s.store, { envelope: resigned(s, req, over), now: T0 + 3 }));
    }
  });

  it('refuses a nonce this store never issued (a record from another store)', () => {
    const s = setup();
    const other = setup();
    const foreign = issue(other);
    const envelope = signPayload(foreign.payload, [s.w.human]);
    expectRefusedUnchanged(s.store, 'authority_nonce_unknown', () => recordAuthority(s.store, { envelope, now: T0 + 3 }));
    const req = issue(s);
    expectRefusedUnchanged(s.store, 'authority_nonce_unknown', () =>
      recordAuthority(s.store, { envelope: resigned(s, req, { nonce: 'f'.repeat(64) }), now: T0 + 3 }),
    );
  });

  it('refuses a nonce used before (the same record recorded twice)', () => {
    const s = setup();
    const req = issue(s);
    const envelope = signPayload(req.payload, [s.w.human]);
    recordAuthority(s.store, { envelope, now: T0 + 3 });
    expectRefusedUnchanged(s.store, 'authority_nonce_reused', () => recordAuthority(s.store, { envelope, now: T0 + 4 }));
    // Signed again by the other authority key: same statement, same nonce — still used.
    expectRefusedUnchanged(s.store, 'authority_nonce_reused', () =>
      recordAuthority(s.store, { envelope: signPayload(req.payload, [s.w.human2]), now: T0 + 4 }),
    );
  });

  it('refuses an expired request (expiry judged at the recording log position)', () => {
    const s = setup();
    const req = issue(s, { ttlSeconds: 60 });
    const envelope = signPayload(req.payload, [s.w.human]);
    expectRefusedUnchanged(s.store, 'authority_expired', () => recordAuthority(s.store, { envelope, now: T0 + 2 + 60 }));
    expect(recordAuthority(s.store, { envelope, now: T0 + 2 + 59 }).recordId).toBe(req.recordId);
  });
});

describe('consumeAuthorityIn: judged once, at the log position of consumption', () => {
  function recorded(s: Setup, over: Partial<AuthorityRequestArgs> = {}, now = T0 + 3): IssuedAuthorityRequest {
    const req = issue(s, over);
    recordAuthority(s.store, { envelope: signPayload(req.payload, [s.w.human]), now });
    return req;
  }

  it('consumes a matching record once and records where', () => {
    const s = setup();
    const req = recorded(s);
    const c = mutate(s.store, T0 + 10, (tx) => consumeAuthorityIn(tx, deferUse(s, req.recordId)));
    expect(c).toMatchObject({ recordId: req.recordId, operation: 'defer', unit: s.unit, consumedAt: T0 + 10, keyId: s.w.human.keyId });
    expect(c.consumedSeq).toBe(logHead(s.store).seq);
    expect(readLog(s.store).at(-1)?.type).toBe('authority_consume');
    expect(getAuthorityRecord(s.store, req.recordId)?.consumed).toEqual({ seq: c.consumedSeq, at: T0 + 10, operation: 'defer', unit: s.unit });
    expect(isAuthorityConsumedFor(s.store, { recordId: req.recordId, operation: 'defer', unit: s.unit })).toBe(true);
    expect(isAuthorityConsumedFor(s.store, { recordId: req.recordId, operation: 'abandon', unit: s.unit })).toBe(false);
    expect(isAuthorityConsumedFor(s.store, { recordId: req.recordId, operation: 'defer', unit: `UNIT-${'0'.repeat(32)}` })).toBe(false);
  });

  it('refuses replay, wrong IDs, wrong operation, wrong unit, wrong states, unknown records — store unchanged', () => {
    const s = setup();
    const req = recorded(s);
    const consume = (over: object, now = T0 + 10) => () => mutate(s.store, now, (tx) => consumeAuthorityIn(tx, { ...deferUse(s, req.recordId), ...over }));
    const { unitId: otherUnit } = createUnit(s.store, { baselineCommit: COMMIT, baselineTree: TREE, now: T0 + 4 });
    expectRefusedUnchanged(s.store, 'authority_ids_mismatch', consume({ ids: ['DIR-2', 'TGT-2'] }));
    expectRefusedUnchanged(s.store, 'authority_ids_mismatch', consume({ ids: [...IDS, 'CRIT-2'] }));
    expectRefusedUnchanged(s.store, 'authority_operation_mismatch', consume({ operation: 'abandon' }));
    expectRefusedUnchanged(s.store, 'authority_unit_mismatch', consume({ unit: otherUnit }));
    expectRefusedUnchanged(s.store, 'authority_state_mismatch', consume({ stateBefore: D('c') }));
    expectRefusedUnchanged(s.store, 'authority_state_mismatch', consume({ stateAfter: D('c') }));
    expectRefusedUnchanged(s.store, 'authority_record_unknown', consume({ recordId: `REC-${'0'.repeat(24)}` }));
    expectRefusedUnchanged(s.store, 'authority_record_unknown', consume({ recordId: 'not a record' }));
    consume({})();
    expectRefusedUnchanged(s.store, 'authority_replayed', consume({}, T0 + 11));
    // Several failures: the docs/commands.md#exit-codes precedence picks the verification failure (4) over the replay (5).
    expectRefusedUnchanged(s.store, 'authority_ids_mismatch', consume({ ids: ['DIR-2'] }, T0 + 11));
  });

  it('judges expiry at the consumption position', () => {
    const s = setup();
    const req = recorded(s, { ttlSeconds: 100 });
    const at = (now: number) => () => mutate(s.store, now, (tx) => consumeAuthorityIn(tx, deferUse(s, req.recordId)));
    expectRefusedUnchanged(s.store, 'authority_expired', at(T0 + 2 + 100));
    expect(at(T0 + 2 + 99)().consumedAt).toBe(T0 + 101);
  });

  it('a consumer that fails after consuming rolls the consumption back: nothing half-recorded', () => {
    const s = setup();
    const req = recorded(s);
    const before = tablesDigest(s.store);
    expect(
      codeOf(() =>
        mutate(s.store, T0 + 10, (tx) => {
          consumeAuthorityIn(tx, deferUse(s, req.recordId));
          // The caller's own check fails after the consumption (e.g. a bind's contract rule).
          fail('contract_change_uncovered', ['DIR-2']);
        }),
      ),
    ).toBe('contract_change_uncovered');
    expect(tablesDigest(s.store)).toBe(before);
    expect(getAuthorityRecord(s.store, req.recordId)?.consumed).toBeNull();
    mutate(s.store, T0 + 11, (tx) => consumeAuthorityIn(tx, deferUse(s, req.recordId)));
  });

  it('uses the trust root in force at consumption: a key revoked by a later trust update no longer counts', () => {
    const s = setup();
    const req = recorded(s);
    // Revoke `human` from T0+5 on; the update itself is authorised by human2 under the current root.
    const next = trustWith([
      { key: s.w.human, roles: ['authority'], revoked_at: isoOfSeconds(T0 + 5) },
      { key: s.w.human2, roles: ['authority'] },
    ]);
    const upd = updatePin(s, 'trust', next, s.w.human2, T0 + 6);
    expect(upd.kind).toBe('trust');
    expectRefusedUnchanged(s.store, 'key_revoked', () => mutate(s.store, T0 + 10, (tx) => consumeAuthorityIn(tx, deferUse(s, req.recordId))));
    // The record itself was fine when it was recorded, under the trust root in force then.
    expect(getAuthorityRecord(s.store, req.recordId)?.recordedSeq).toBeLessThan(upd.seq);
    expect(trustRootAt(s.store, upd.seq - 1).digest).not.toBe(trustRootAt(s.store, upd.seq).digest);
  });
});

function updatePin(s: Setup, kind: 'policy' | 'trust', doc: unknown, signer = s.w.human, now = T0 + 6) {
  const bytes = bytesOf(doc);
  const req = issue(s, { operation: `${kind}_update`, unit: null, ids: [], stateBefore: null, stateAfter: pinDigestOf(bytes, kind) }, now - 2);
  recordAuthority(s.store, { envelope: signPayload(req.payload, [signer]), now: now - 1 });
  return mutate(s.store, now, (tx) => replacePinIn(tx, { kind, bytes, recordId: req.recordId }));
}

describe('policy and trust updates (docs/policy.md#policy-and-trust-root)', () => {
  it('replace the pin, log the update, keep the history and the restart position', () => {
    const s = setup();
    const before = readPin(s.store, 'policy');
    expect(lastPinUpdateSeq(s.store)).toBe(0);
    const upd = updatePin(s, 'policy', policyDoc('a new reason'));
    const after = readPin(s.store, 'policy');
    expect(after.digest).toBe(upd.digest);
    expect(after.digest).not.toBe(before.digest);
    expect(upd.digestBefore).toBe(before.digest);
    expect(readLog(s.store).at(-1)?.type).toBe('policy_update');
    expect(readLog(s.store).at(-2)?.type).toBe('authority_consume');
    expect(lastPinUpdateSeq(s.store)).toBe(upd.seq);
    expect(pinUpdates(s.store)).toEqual([upd]);
    expect(pinInForceAt(s.store, 'policy', upd.seq - 1).digest).toBe(before.digest);
    expect(pinInForceAt(s.store, 'policy', upd.seq).digest).toBe(upd.digest);
  });

  it('refuse without a matching authority — store unchanged', () => {
    const s = setup();
    const bytes = bytesOf(policyDoc('another'));
    const run = (recordId: string) => () => mutate(s.store, T0 + 10, (tx) => replacePinIn(tx, { kind: 'policy', bytes, recordId }));
    expectRefusedUnchanged(s.store, 'authority_record_unknown', run(`REC-${'0'.repeat(24)}`));
    // A record for a different document.
    // (Each step a second later than the last: log time never goes backwards, store_clock_regressed.)
    const other = issue(s, { operation: 'policy_update', unit: null, ids: [], stateBefore: null, stateAfter: pinDigestOf(bytesOf(policyDoc('x')), 'policy') }, T0 + 2);
    recordAuthority(s.store, { envelope: signPayload(other.payload, [s.w.human]), now: T0 + 3 });
    expectRefusedUnchanged(s.store, 'authority_state_mismatch', run(other.recordId));
    // A scope record cannot update a pin.
    const scope = issue(s, {}, T0 + 4);
    recordAuthority(s.store, { envelope: signPayload(scope.payload, [s.w.human]), now: T0 + 5 });
    expectRefusedUnchanged(s.store, 'authority_operation_mismatch', run(scope.recordId));
    // A trust_update record cannot update the policy.
    const trustRec = issue(s, { operation: 'trust_update', unit: null, ids: [], stateBefore: null, stateAfter: pinDigestOf(bytes, 'trust') }, T0 + 6);
    recordAuthority(s.store, { envelope: signPayload(trustRec.payload, [s.w.human]), now: T0 + 7 });
    expectRefusedUnchanged(s.store, 'authority_operation_mismatch', run(trustRec.recordId));
  });

  it('a record authorises one update only', () => {
    const s = setup();
    const bytes = bytesOf(policyDoc('once'));
    const req = issue(s, { operation: 'policy_update', unit: null, ids: [], stateBefore: null, stateAfter: pinDigestOf(bytes, 'policy') });
    recordAuthority(s.store, { envelope: signPayload(req.payload, [s.w.human]), now: T0 + 3 });
    mutate(s.store, T0 + 4, (tx) => replacePinIn(tx, { kind: 'policy', bytes, recordId: req.recordId }));
    // Same document again: the record names a state_before that is no longer pinned, and it is spent.
    expectRefusedUnchanged(s.store, 'authority_state_mismatch', () =>
      mutate(s.store, T0 + 5, (tx) => replacePinIn(tx, { kind: 'policy', bytes, recordId: req.recordId })),
    );
  });

  it('a new trust root cannot authorise itself', () => {
    const s = setup();
    const newcomer = s.w.outsider;
    const next = trustWith([{ key: newcomer, roles: ['authority'] }]);
    const bytes = bytesOf(next);
    const req = issue(s, { operation: 'trust_update', unit: null, ids: [], stateBefore: null, stateAfter: pinDigestOf(bytes, 'trust') });
    // Signed by the key the NEW root introduces: judged under the current root, it is unknown.
    expectRefusedUnchanged(s.store, 'key_unknown', () => recordAuthority(s.store, { envelope: signPayload(req.payload, [newcomer]), now: T0 + 3 }));
    recordAuthority(s.store, { envelope: signPayload(req.payload, [s.w.human]), now: T0 + 3 });
    mutate(s.store, T0 + 4, (tx) => replacePinIn(tx, { kind: 'trust', bytes, recordId: req.recordId }));
    expect(readPin(s.store, 'trust').digest).toBe(pinDigestOf(bytes, 'trust'));
  });
});

describe('replay and tampering (docs/state.md#the-store)', () => {
  it('replaying a history with every authority entry type rebuilds the identical state', () => {
    const s = setup();
    const a = issue(s);
    recordAuthority(s.store, { envelope: signPayload(a.payload, [s.w.human]), now: T0 + 3 });
    mutate(s.store, T0 + 4, (tx) => consumeAuthorityIn(tx, deferUse(s, a.recordId)));
    issue(s, { operation: 'dismiss', ids: [`sha256:${'4'.repeat(64)}`], stateAfter: null }, T0 + 5); // requested, never signed
    updatePin(s, 'policy', policyDoc('replayed'), s.w.human, T0 + 8);
    updatePin(s, 'trust', trustWith([{ key: s.w.human2, roles: ['authority'] }]), s.w.human, T0 + 12);
    const types = new Set(readLog(s.store).map((e) => e.type));
    for (const t of ['authority_request', 'authority_record', 'authority_consume', 'policy_update', 'trust_update']) expect(types).toContain(t);
    const target = join(tempDir(), 'replayed.db');
    expect(replayInto(s.store, target).stateDigest).toBe(stateDigest(s.store));
    expect(assertReplayMatches(s.store, join(tempDir(), 'again.db')).entries).toBe(readLog(s.store).length);
  });

  it('a forged consumption of an expired record appended behind governed’s back does not replay', () => {
    const s = setup();
    const req = issue(s, { ttlSeconds: 10 });
    recordAuthority(s.store, { envelope: signPayload(req.payload, [s.w.human]), now: T0 + 3 });
    // The attacker writes a well-chained log entry consuming the record after its expiry.
    const head = logHead(s.store);
    const payload = Buffer.from(canonicalJson({ record: req.recordId, operation: 'defer', unit: s.unit, consumed_at: T0 + 500 }));
    const fields = { seq: head.seq + 1, time: T0 + 500, type: 'authority_consume', unit: s.unit, payload_digest: sha256Digest(payload), prev_hash: head.entryHash };
    const raw = rawConnection(s.store);
    raw
      .prepare('INSERT INTO log (seq, time, type, unit, payload, payload_digest, prev_hash, entry_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(fields.seq, fields.time, fields.type, fields.unit, payload, fields.payload_digest, fields.prev_hash, entryHashOf(fields));
    raw.close();
    expect(codeOf(() => replayInto(s.store, join(tempDir(), 'forged.db')))).toBe('log_entry_not_applicable');
  });
});
