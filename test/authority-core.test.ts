// The pure authority core (docs/authority.md#human-authority-records): predicate rules per operation, record ids, the rendering, the
// scope digest, verification of a record (one authority signature) and the judgement of its use.
import { afterEach, describe, expect, it } from 'vitest';
import {
  AUTHORITY_OPERATIONS,
  OPERATION_RULES,
  authorityPredicateViolation,
  authorityScopeDigest,
  buildAuthorityStatement,
  confirmationCodeOf,
  isExpiredAt,
  isoOfSeconds,
  recordIdOf,
  renderAuthorityStatement,
  requestMismatchField,
  secondsOfIso,
  useMismatch,
  verifyAuthorityRecordBytes,
  type AuthorityOperation,
  type AuthorityPredicate,
} from '../src/core/authority/index.js';
import { AUTHORITY_RECORD_ID_RE, CONTRACT_ID_RE } from '../src/core/contract/ids.js';
import { contractDigest } from '../src/core/contract/digests.js';
import { loadTrustRoot } from '../src/core/trust-root.js';
import { sha256Digest } from '../src/core/canonical.js';
import { specExample } from './contract-fixtures.js';
import { cleanupDirs, codeOf, payloadOf, signPayload, T0, trustWith, world } from './authority-helpers.js';

afterEach(cleanupDirs);

const D = (c: string): string => `sha256:${c.repeat(64)}`;
const UNIT = `UNIT-${'1'.repeat(32)}`;

function predicate(op: AuthorityOperation, over: Partial<AuthorityPredicate> = {}): AuthorityPredicate {
  const rule = OPERATION_RULES[op];
  return {
    operation: op,
    ids: rule.unit ? ['DIR-1', 'TGT-1'] : [],
    unit: rule.unit ? UNIT : null,
    state_before: rule.stateBefore === 'required' ? D('a') : null,
    state_after: rule.stateAfter === 'required' ? D('b') : null,
    nonce: 'c'.repeat(64),
    request_id: `ARQ-${'d'.repeat(32)}`,
    issued_at: isoOfSeconds(T0),
    expires_at: isoOfSeconds(T0 + 3600),
    ...over,
  };
}

describe('predicate rules per operation (docs/authority.md#human-authority-records)', () => {
  it('the default predicate of every operation is valid', () => {
    expect(AUTHORITY_OPERATIONS).toHaveLength(14);
    for (const op of AUTHORITY_OPERATIONS) expect(authorityPredicateViolation(predicate(op)), op).toBeNull();
  });

  it('unit operations need a unit and IDs; pin operations forbid both', () => {
    expect(authorityPredicateViolation(predicate('defer', { unit: null }))).toBe('unit');
    expect(authorityPredicateViolation(predicate('defer', { ids: [] }))).toBe('ids');
    expect(authorityPredicateViolation(predicate('policy_update', { unit: UNIT }))).toBe('unit');
    expect(authorityPredicateViolation(predicate('trust_update', { ids: ['DIR-1'] }))).toBe('ids');
  });

  it('IDs must be sorted by UTF-8 bytes and unique', () => {
    expect(authorityPredicateViolation(predicate('defer', { ids: ['TGT-1', 'DIR-1'] }))).toBe('ids');
    expect(authorityPredicateViolation(predicate('defer', { ids: ['DIR-1', 'DIR-1'] }))).toBe('ids');
    expect(authorityPredicateViolation(predicate('dismiss', { ids: ['RUN-1', `sha256:${'0'.repeat(64)}`] }))).toBeNull();
  });

  it('each state digest is required or forbidden exactly as the operation says', () => {
    for (const op of AUTHORITY_OPERATIONS) {
      const rule = OPERATION_RULES[op];
      const flipBefore = predicate(op, { state_before: rule.stateBefore === 'required' ? null : D('e') });
      const flipAfter = predicate(op, { state_after: rule.stateAfter === 'required' ? null : D('e') });
      expect(authorityPredicateViolation(flipBefore), op).toBe('state_before');
      expect(authorityPredicateViolation(flipAfter), op).toBe('state_after');
    }
    // A pin update to the same document is refused.
    expect(authorityPredicateViolation(predicate('policy_update', { state_after: D('a') }))).toBe('state_after');
  });

  it('times are real instants, in order, with a TTL of 1s..7d', () => {
    expect(authorityPredicateViolation(predicate('defer', { issued_at: '2026-13-40T00:00:00Z' }))).toBe('issued_at');
    expect(authorityPredicateViolation(predicate('defer', { expires_at: isoOfSeconds(T0) }))).toBe('expires_at');
    expect(authorityPredicateViolation(predicate('defer', { expires_at: isoOfSeconds(T0 + 7 * 86400 + 1) }))).toBe('expires_at');
    expect(secondsOfIso(isoOfSeconds(T0))).toBe(T0);
    expect(secondsOfIso('2026-02-30T00:00:00Z')).toBeNull();
  });

  it('expiry is exclusive: usable until the second before expires_at', () => {
    const p = predicate('defer');
    expect(isExpiredAt(p, T0 + 3599)).toBe(false);
    expect(isExpiredAt(p, T0 + 3600)).toBe(true);
  });
});

describe('record ids and the statement', () => {
  it('REC-<24 hex of sha256(payload)> fits the contract ID and record syntax', () => {
    const payload = payloadOf(buildAuthorityStatement(predicate('defer')));
    const id = recordIdOf(payload);
    expect(id).toMatch(/^REC-[0-9a-f]{24}$/);
    expect(id.slice(4)).toBe(sha256Digest(payload).slice(7, 31));
    expect(CONTRACT_ID_RE.test(id)).toBe(true);
    expect(AUTHORITY_RECORD_ID_RE.test(id)).toBe(true);
    expect(confirmationCodeOf(id)).toBe(id.slice(4, 12));
  });

  it('the subject is the unit at the approved state, or the new pinned document', () => {
    const s = buildAuthorityStatement(predicate('defer'));
    expect(s.subject).toEqual([{ name: UNIT, digest: { sha256: 'b'.repeat(64) } }]);
    expect(buildAuthorityStatement(predicate('dismiss')).subject[0]?.digest.sha256).toBe('a'.repeat(64));
    expect(buildAuthorityStatement(predicate('trust_update')).subject[0]?.name).toBe('trust');
  });

  it('the rendering is deterministic, names every fact, and holds no control character', () => {
    const s = buildAuthorityStatement(predicate('abandon', { ids: ['ATOM-1>DIR-1', 'DIR-1'] }));
    const text = renderAuthorityStatement(s, 'REC-' + '0'.repeat(24), D('f'));
    expect(text).toBe(renderAuthorityStatement(s, 'REC-' + '0'.repeat(24), D('f')));
    for (const fact of ['abandon', UNIT, 'ATOM-1>DIR-1', 'DIR-1', D('a'), D('b'), 'c'.repeat(64), isoOfSeconds(T0 + 3600)]) {
      expect(text).toContain(fact);
    }
    expect(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/.test(text)).toBe(false);
  });
});

describe('authorityScopeDigest (state_after of scope operations)', () => {
  it('ignores authorities and tombstones (the record cites itself there) but nothing else', () => {
    const c = specExample().contract;
    const withAuthority = { ...c, authorities: [...c.authorities, { id: 'AUTH-9', operation: 'authorize' as const, record: 'REC-' + '1'.repeat(24) }] };
    expect(authorityScopeDigest(withAuthority)).toBe(authorityScopeDigest(c));
    expect(contractDigest(withAuthority)).not.toBe(contractDigest(c));
    const retitled = { ...c, title: 'another title' };
    expect(authorityScopeDigest(retitled)).not.toBe(authorityScopeDigest(c));
  });
});

describe('useMismatch and requestMismatchField', () => {
  const use = { operation: 'defer' as const, ids: ['TGT-1', 'DIR-1'], unit: UNIT, stateBefore: D('a'), stateAfter: D('b') };
  it('accepts exactly the use (IDs in any order)', () => {
    expect(useMismatch(predicate('defer'), use)).toBeNull();
    expect(useMismatch(predicate('defer'), { ...use, operation: ['abandon', 'defer'] })).toBeNull();
  });
  it('names each kind of mismatch with its own code', () => {
    const p = predicate('defer');
    expect(useMismatch(p, { ...use, operation: 'abandon' })?.code).toBe('authority_operation_mismatch');
    expect(useMismatch(p, { ...use, unit: `UNIT-${'2'.repeat(32)}` })?.code).toBe('authority_unit_mismatch');
    expect(useMismatch(p, { ...use, ids: ['DIR-1'] })?.code).toBe('authority_ids_mismatch');
    expect(useMismatch(p, { ...use, ids: ['DIR-1', 'TGT-1', 'CRIT-1'] })?.ids).toEqual(['missing:CRIT-1']);
    expect(useMismatch(p, { ...use, stateBefore: D('9') })?.ids).toEqual(['state_before']);
    expect(useMismatch(p, { ...use, stateAfter: null })?.code).toBe('authority_state_mismatch');
  });
  it('finds the first field in which a signed statement differs from the issued one', () => {
    const p = predicate('defer');
    expect(requestMismatchField(p, p)).toBeNull();
    expect(requestMismatchField({ ...p, ids: ['DIR-1'] }, p)).toBe('ids');
    expect(requestMismatchField({ ...p, expires_at: isoOfSeconds(T0 + 7200) }, p)).toBe('expires_at');
  });
});

describe('verifyAuthorityRecordBytes (one authority signature, docs/authority.md#human-authority-records, docs/policy.md#policy-and-trust-root)', () => {
  const at = { at: isoOfSeconds(T0 + 10), offline: false };

  it('verifies a record signed by an authority key and derives its id', () => {
    const w = world();
    const payload = payloadOf(buildAuthorityStatement(predicate('defer')));
    const v = verifyAuthorityRecordBytes(signPayload(payload, [w.human]), loadTrustRoot(w.trust), at);
    expect(v.recordId).toBe(recordIdOf(payload));
    expect(v.keyId).toBe(w.human.keyId);
    expect(v.predicate.operation).toBe('defer');
  });

  it('refuses wrong key, wrong role, two signatures, edited bytes, other statement kinds, stale keys', () => {
    const w = world();
    const trust = loadTrustRoot(w.trust);
    const payload = payloadOf(buildAuthorityStatement(predicate('defer')));
    expect(codeOf(() => verifyAuthorityRecordBytes(signPayload(payload, [w.outsider]), trust, at))).toBe('key_unknown');
    expect(codeOf(() => verifyAuthorityRecordBytes(signPayload(payload, [w.reviewer]), trust, at))).toBe('key_wrong_role');
    expect(codeOf(() => verifyAuthorityRecordBytes(signPayload(payload, [w.human, w.human2]), trust, at))).toBe('signature_extra');
    expect(codeOf(() => verifyAuthorityRecordBytes(signPayload(payload, []), trust, at))).toBe('signature_missing');
    // Edited after signing: same signature over different bytes.
    const env = JSON.parse(signPayload(payload, [w.human]).toString()) as { payload: string };
    const edited = payloadOf(buildAuthorityStatement(predicate('defer', { ids: ['DIR-1'] })));
    const forged = Buffer.from(JSON.stringify({ ...env, payload: edited.toString('base64') }));
    expect(codeOf(() => verifyAuthorityRecordBytes(forged, trust, at))).toBe('signature_invalid');
    // A validly signed statement of another kind, or breaking the rules, is not an authority.
    const foreign = payloadOf({ ...buildAuthorityStatement(predicate('defer')), predicateType: 'https://governed.dev/review-receipt/v1' });
    expect(codeOf(() => verifyAuthorityRecordBytes(signPayload(foreign, [w.human]), trust, at))).toBe('authority_record_invalid');
    const unsorted = payloadOf(buildAuthorityStatement(predicate('defer', { ids: ['TGT-1', 'DIR-1'] })));
    expect(codeOf(() => verifyAuthorityRecordBytes(signPayload(unsorted, [w.human]), trust, at))).toBe('authority_record_invalid');
    const extraField = payloadOf({ ...buildAuthorityStatement(predicate('defer')), predicate: { ...predicate('defer'), note: 'x' } });
    expect(codeOf(() => verifyAuthorityRecordBytes(signPayload(extraField, [w.human]), trust, at))).toBe('authority_record_invalid');
    const wrongSubject = payloadOf({ ...buildAuthorityStatement(predicate('defer')), subject: [{ name: UNIT, digest: { sha256: 'a'.repeat(64) } }] });
    expect(codeOf(() => verifyAuthorityRecordBytes(signPayload(wrongSubject, [w.human]), trust, at))).toBe('authority_record_invalid');

    const revoked = loadTrustRoot(trustWith([{ key: w.human, roles: ['authority'], revoked_at: isoOfSeconds(T0) }]));
    expect(codeOf(() => verifyAuthorityRecordBytes(signPayload(payload, [w.human]), revoked, at))).toBe('key_revoked');
    const lapsed = loadTrustRoot(trustWith([{ key: w.human, roles: ['authority'], not_after: isoOfSeconds(T0) }]));
    expect(codeOf(() => verifyAuthorityRecordBytes(signPayload(payload, [w.human]), lapsed, at))).toBe('key_outside_validity');
    const expiredRoot = loadTrustRoot(trustWith([{ key: w.human, roles: ['authority'] }], isoOfSeconds(T0)));
    expect(codeOf(() => verifyAuthorityRecordBytes(signPayload(payload, [w.human]), expiredRoot, at))).toBe('trust_root_expired');
  });
});
