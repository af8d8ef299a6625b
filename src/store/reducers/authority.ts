// Log entry types of the authority domain (docs/state.md#the-store, docs/authority.md#human-authority-records, docs/policy.md#policy-and-trust-root). Spread into ../reducers.ts.
//
//   authority_request  a one-time nonce and the exact statement to sign (from `authority request`)
//   authority_record   the exact envelope bytes of a verified record of that request
//   authority_consume  the record judged and used once, at this log position
//   policy_update      the pinned policy replaced, authorised by a consumed policy_update record
//   trust_update       the pinned trust root replaced, authorised by a consumed trust_update record
//
// Reducers are pure functions of the payload and the tables (no clock, no randomness, no files).
// Each re-asserts in SQL the facts the live path checked — the record's payload is the request's
// statement, a consumption is of an unexpired record of that operation and unit, a pin update
// rests on a consumed record naming exactly those digests — so a forged or reordered log cannot
// replay into a state the live path would have refused (log_entry_not_applicable).
import * as z from 'zod/mini';
import { str } from '../../core/schema-primitives.js';
import { canonicalBytes, sha256Digest } from '../../core/canonical.js';
import { fail } from '../../core/errors.js';
import { parseEnvelopeBytes } from '../../core/dsse.js';
import { AUTHORITY_OPERATIONS } from '../../core/authority/operations.js';
import { RECORD_ID_RE, REQUEST_ID_RE, recordIdOf } from '../../core/authority/ids.js';
import {
  authorityStatementSchema,
  authorityStatementViolation,
  secondsOfIso,
  type AuthorityStatement,
} from '../../core/authority/predicate.js';
import { digest, seconds, unitId } from './schemas.js';
import { expectChanges, reducer } from './reducer.js';
import { assertPinDigest } from './pins.js';
import type { Db } from '../store.js';
import { dismissalApplies } from '../dismissal.js';
import { HEX64_RE } from '../../core/ids.js';

const requestId = str({ re: REQUEST_ID_RE });
const recordId = str({ re: RECORD_ID_RE });
const keyId = str({ re: HEX64_RE });
const operation = z.enum(AUTHORITY_OPERATIONS);

/** The seq of the entry being applied: its log row is written before its reducer runs. */
const CURRENT_SEQ = '(SELECT MAX(seq) FROM log)';

function statementOfPayload(payload: Buffer): AuthorityStatement {
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    fail('log_entry_not_applicable', ['authority_record']);
  }
  const parsed = authorityStatementSchema.safeParse(value);
  if (!parsed.success) fail('log_entry_not_applicable', ['authority_record']);
  return parsed.data;
}

function pinUpdateReducer(kind: 'policy' | 'trust') {
  return reducer({
    payload: z.strictObject({ record: recordId, digest_before: digest, digest, bytes_b64: z.base64(), updated_at: seconds }),
    unitOf: () => null,
    apply(db: Db, p) {
      const bytes = Buffer.from(p.bytes_b64, 'base64');
      // The pinned digest is the canonical digest of the document's bytes (pins.ts, docs/threat-model.md#rules-that-hold-everywhere).
      assertPinDigest(bytes, p.digest, kind);
      const swap = db
        .prepare('UPDATE pins SET digest = ?, bytes = ?, pinned_at = ? WHERE kind = ? AND digest = ?')
        .run(p.digest, bytes, p.updated_at, kind, p.digest_before);
      expectChanges(swap.changes, 1, kind);
      const history = db
        .prepare(
          `INSERT INTO pin_updates (seq, kind, digest_before, digest, bytes, record, updated_at)
           SELECT ${CURRENT_SEQ}, ?, ?, ?, ?, c.record, ?
           FROM authority_consumptions c JOIN authority_records r ON r.id = c.record
           WHERE c.record = ? AND c.operation = ? AND r.state_before = ? AND r.state_after = ?`,
        )
        .run(kind, p.digest_before, p.digest, bytes, p.updated_at, p.record, `${kind}_update`, p.digest_before, p.digest);
      expectChanges(history.changes, 1, p.record);
    },
  });
}

export const AUTHORITY_REDUCERS = {
  authority_request: reducer({
    payload: z
      .strictObject({ request: requestId, statement: authorityStatementSchema, requested_at: seconds })
      .check(
        z.refine(
          (p) =>
            p.statement.predicate.request_id === p.request &&
            authorityStatementViolation(p.statement) === null &&
            secondsOfIso(p.statement.predicate.issued_at) === p.requested_at,
          'request statement',
        ),
      ),
    unitOf: (p) => p.statement.predicate.unit,
    apply(db, p) {
      const bytes = canonicalBytes(p.statement);
      const pr = p.statement.predicate;
      const r = db
        .prepare(
          `INSERT INTO authority_requests (id, nonce, operation, unit, statement, payload_digest, issued_at, expires_at, requested_seq)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ${CURRENT_SEQ})`,
        )
        .run(p.request, pr.nonce, pr.operation, pr.unit, bytes, sha256Digest(bytes), p.requested_at, secondsOfIso(pr.expires_at));
      expectChanges(r.changes, 1, p.request);
    },
  }),

  authority_record: reducer({
    payload: z.strictObject({
      record: recordId,
      request: requestId,
      unit: z.nullable(unitId),
      envelope_b64: z.base64(),
      key_id: keyId,
      recorded_at: seconds,
    }),
    unitOf: (p) => p.unit,
    apply(db, p) {
      const envelope = Buffer.from(p.envelope_b64, 'base64');
      let payload: Buffer;
      let signers: readonly string[];
      try {
        const env = parseEnvelopeBytes(envelope);
        payload = env.payload;
        signers = env.signatures.map((s) => s.keyid);
      } catch {
        fail('log_entry_not_applicable', [p.record]);
      }
      if (recordIdOf(payload) !== p.record || signers.length !== 1 || signers[0] !== p.key_id) {
        fail('log_entry_not_applicable', [p.record]);
      }
      const pr = statementOfPayload(payload).predicate;
      // The signed bytes are exactly the statement this store issued for the request, and the
      // record is recorded before that request expired.
      const r = db
        .prepare(
          `INSERT INTO authority_records (id, request, payload_digest, envelope, key_id, operation, unit, ids, state_before,
                                          state_after, expires_at, recorded_at, recorded_seq)
           SELECT ?, id, payload_digest, ?, ?, operation, unit, ?, ?, ?, expires_at, ?, ${CURRENT_SEQ}
           FROM authority_requests
           WHERE id = ? AND payload_digest = ? AND unit IS ? AND expires_at > ?`,
        )
        .run(
          p.record,
          envelope,
          p.key_id,
          JSON.stringify(pr.ids),
          pr.state_before,
          pr.state_after,
          p.recorded_at,
          p.request,
          sha256Digest(payload),
          p.unit,
          p.recorded_at,
        );
      expectChanges(r.changes, 1, p.record);
    },
  }),

  authority_consume: reducer({
    payload: z.strictObject({ record: recordId, operation, unit: z.nullable(unitId), consumed_at: seconds }),
    unitOf: (p) => p.unit,
    apply(db, p) {
      const r = db
        .prepare(
          `INSERT INTO authority_consumptions (record, operation, unit, consumed_at, consumed_seq)
           SELECT id, operation, unit, ?, ${CURRENT_SEQ} FROM authority_records
           WHERE id = ? AND operation = ? AND unit IS ? AND expires_at > ?`,
        )
        .run(p.consumed_at, p.record, p.operation, p.unit, p.consumed_at);
      expectChanges(r.changes, 1, p.record);
      // A dismissal names only what was dismissable for the unit at this position (the live rule).
      if ((p.operation === 'dismiss' || p.operation === 'dismiss_veto') && p.unit !== null) {
        const rec = db.prepare('SELECT ids, state_before FROM authority_records WHERE id = ?').get(p.record) as { ids: string; state_before: string | null };
        if (!dismissalApplies(db, p.operation, p.unit, JSON.parse(rec.ids) as string[], rec.state_before)) fail('log_entry_not_applicable', [p.record]);
      }
    },
  }),

  policy_update: pinUpdateReducer('policy'),
  trust_update: pinUpdateReducer('trust'),
} as const;
