// Reducers of `preservation_set` and `incident_correction` (docs/preservation.md). The payload carries
// everything the tables hold; the reducer re-derives what the live flow computed from it — the
// contract digest of the exact bytes, the unit's baseline, the next version number, the authority
// records consumed for this unit in the binding's own transaction, and the incident history digest,
// recomputed from the log itself — so a forged entry does not replay into another state.
import * as z from 'zod/mini';
import { int, str } from '../../core/schema-primitives.js';
import { canonicalJson, sha256Digest } from '../../core/canonical.js';
import { AUTHORITY_RECORD_ID_RE } from '../../core/contract/ids.js';
import { isGovernedError } from '../../core/errors.js';
import { parsePreservationBytes, preservationDigest } from '../../core/preservation/text.js';
import { incidentHistoryAt } from '../incident-history.js';
import { parseEnvelopeBytes } from '../../core/dsse.js';
import { STATEMENT_FORMAT } from '../../core/intoto.js';
import { checkFormat } from '../../core/format/interpret.js';
import { ENTRY_RE, PROBE_PREDICATE_TYPE, probeRuleViolation, SURFACE_KIND_TOKENS, type ProbePredicate, PROBE_PREDICATE_FORMAT } from '../../core/preservation/probe.js';
import type { Db } from '../store.js';
import { digest, seconds, unitId } from './schemas.js';
import { expectChanges, reducer } from './reducer.js';
import { CONTRACT_ID_RE, GIT_OID_RE, HEX64_RE } from '../../core/ids.js';
import { PROBE_MAX_INVENTORY, VENDOR_REPOSITORY_MAX_CHARS } from '../../core/limits.js';

const sortedUnique = z
  .array(str({ re: AUTHORITY_RECORD_ID_RE }))
  .check(z.refine((xs) => xs.every((x, i) => i === 0 || Buffer.compare(Buffer.from(xs[i - 1] as string), Buffer.from(x)) < 0), 'sorted unique'));

export const preservationSetPayload = z.strictObject({
  unit: unitId,
  version: int(1),
  contract_b64: z.base64().check(z.minLength(1)),
  contract_digest: digest,
  authorities: sortedUnique,
  incident_history: z.union([z.literal('none'), digest]),
  incident_upto: int(0),
  bound_at: seconds,
});

export const surfaceInventoryPayload = z.strictObject({
  unit: unitId,
  snapshot_digest: digest,
  adapter_sha256: str({ re: HEX64_RE }),
  entries: z.array(z.strictObject({ entry: str({ re: ENTRY_RE }), kind: z.enum(SURFACE_KIND_TOKENS) })).check(z.maxLength(PROBE_MAX_INVENTORY)),
  recorded_at: seconds,
});

export const probeRecordPayload = z.strictObject({
  unit: unitId,
  receipt: digest,
  envelope_b64: z.base64().check(z.minLength(1)),
  recorded_at: seconds,
});

/** The probe predicate an envelope carries, or null when it carries none (checked, not trusted). */
export function probePredicateOfEnvelope(envelope: Buffer): ProbePredicate | null {
  try {
    const payload = parseEnvelopeBytes(envelope).payload;
    const st = checkFormat(STATEMENT_FORMAT, JSON.parse(payload.toString('utf8')));
    if (!st.success || st.data.predicateType !== PROBE_PREDICATE_TYPE) return null;
    const p = checkFormat(PROBE_PREDICATE_FORMAT, st.data.predicate);
    if (!p.success || probeRuleViolation(p.data) !== null) return null;
    return p.data;
  } catch {
    return null;
  }
}

export const vendorAttestPayload = z.strictObject({
  unit: unitId,
  vendor: str({ re: CONTRACT_ID_RE }),
  repository: str({ min: 1, max: VENDOR_REPOSITORY_MAX_CHARS }),
  commit: str({ re: GIT_OID_RE }),
  tree_digest: digest,
  recorded_at: seconds,
});

export const incidentCorrectionPayload = z.strictObject({
  unit: unitId,
  correction_b64: z.base64().check(z.minLength(1)),
  digest,
  recorded_at: seconds,
});

// The destructive dispositions, and `authorize` for the narrowing of a bound contract.
const BINDING_OPERATIONS = new Set(['replace', 'remove', 'disable', 'redirect', 'migrate', 'authorize']);

function currentSeq(db: Db): number {
  return db.prepare('SELECT MAX(seq) FROM log').pluck().get() as number;
}

export const PRESERVATION_REDUCERS = {
  preservation_set: reducer({
    payload: preservationSetPayload,
    unitOf: (p) => p.unit,
    apply(db, p) {
      const where = `${p.unit}:preservation:${p.version}`;
      const latest = db.prepare('SELECT COALESCE(MAX(version), 0) FROM preservation_versions WHERE unit = ?').pluck().get(p.unit) as number;
      expectChanges(latest + 1 === p.version ? 1 : 0, 1, where);
      const bytes = Buffer.from(p.contract_b64, 'base64');
      let ok = false;
      try {
        const c = parsePreservationBytes(bytes);
        const baseline = db.prepare('SELECT baseline_commit FROM units WHERE id = ?').pluck().get(p.unit) as string | undefined;
        ok = preservationDigest(c) === p.contract_digest && c.baseline === baseline;
      } catch (e) {
        if (!isGovernedError(e)) throw e;
      }
      expectChanges(ok ? 1 : 0, 1, where);
      // Each record was consumed for this unit, by a disposition or `authorize`, in this transaction.
      const consumed = db.prepare('SELECT operation FROM authority_consumptions WHERE record = ? AND unit = ? AND consumed_at = ?').pluck();
      for (const record of p.authorities) {
        const op = consumed.get(record, p.unit, p.bound_at) as string | undefined;
        expectChanges(op !== undefined && BINDING_OPERATIONS.has(op) ? 1 : 0, 1, where);
      }
      // The history is the log's own: recomputed here, on the live path and on replay alike.
      const seq = currentSeq(db);
      expectChanges(p.incident_upto < seq ? 1 : 0, 1, where);
      const h = incidentHistoryAt(db, p.unit, p.incident_upto);
      expectChanges(p.incident_history === 'none' ? (h.incidents ? 0 : 1) : h.digest === p.incident_history ? 1 : 0, 1, where);
      const r = db
        .prepare(
          `INSERT INTO preservation_versions (unit, version, contract_bytes, contract_digest, authorities, incident_history, incident_upto, bound_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(p.unit, p.version, bytes, p.contract_digest, canonicalJson(p.authorities), p.incident_history, p.incident_upto, p.bound_at);
      expectChanges(r.changes, 1, where);
    },
  }),
  surface_inventory: reducer({
    payload: surfaceInventoryPayload,
    unitOf: (p) => p.unit,
    apply(db, p) {
      const r = db
        .prepare('INSERT INTO surface_inventories (unit, log_seq, snapshot_digest, adapter_sha256, entries, recorded_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(p.unit, currentSeq(db), p.snapshot_digest, p.adapter_sha256, canonicalJson(p.entries), p.recorded_at);
      expectChanges(r.changes, 1, `${p.unit}:inventory`);
    },
  }),
  probe_record: reducer({
    payload: probeRecordPayload,
    unitOf: (p) => p.unit,
    apply(db, p) {
      // The row is derived from the signed statement itself: a forged entry naming other fields, or
      // an envelope whose payload is not a probe statement of this unit, does not apply.
      const envelope = Buffer.from(p.envelope_b64, 'base64');
      const q = probePredicateOfEnvelope(envelope);
      let id = '';
      try {
        id = sha256Digest(parseEnvelopeBytes(envelope).payload);
      } catch {
        id = '';
      }
      expectChanges(q !== null && q.unit === p.unit && id === p.receipt ? 1 : 0, 1, p.receipt);
      const r = db
        .prepare(
          `INSERT INTO probe_receipts (id, unit, phase, snapshot_digest, envelope, recorded_at, log_seq)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(p.receipt, p.unit, q?.phase, q?.snapshot_digest, envelope, p.recorded_at, currentSeq(db));
      expectChanges(r.changes, 1, p.receipt);
    },
  }),
  vendor_attest: reducer({
    payload: vendorAttestPayload,
    unitOf: (p) => p.unit,
    apply(db, p) {
      const r = db
        .prepare('INSERT INTO vendor_attestations (unit, log_seq, vendor, repository, git_commit, tree_digest, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(p.unit, currentSeq(db), p.vendor, p.repository, p.commit, p.tree_digest, p.recorded_at);
      expectChanges(r.changes, 1, `${p.unit}:vendor`);
    },
  }),
  incident_correction: reducer({
    payload: incidentCorrectionPayload,
    unitOf: (p) => p.unit,
    apply(db, p) {
      const bytes = Buffer.from(p.correction_b64, 'base64');
      expectChanges(sha256Digest(bytes) === p.digest ? 1 : 0, 1, `${p.unit}:correction`);
      const r = db
        .prepare('INSERT INTO incident_corrections (unit, log_seq, digest, bytes, recorded_at) VALUES (?, ?, ?, ?, ?)')
        .run(p.unit, currentSeq(db), p.digest, bytes, p.recorded_at);
      expectChanges(r.changes, 1, `${p.unit}:correction`);
    },
  }),
} as const;
