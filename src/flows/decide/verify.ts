// Re-verify the signed records a decision rests on (docs/decision.md#8-delivery-state-and-reason-codes "re-verifies under that trust root
// every receipt and every authority record it counts"; docs/decision.md#9-the-decision-object `reliedOn`), and prove
// that the rows the decision was computed from are the rows those records say:
//   - each receipt of `reliedOn`, and each receipt whose payload was read for its veto findings:
//     its log entry (type, unit, time, and the very envelope bytes), its signatures under `trust`
//     judged at that log time (docs/state.md#the-store: key validity at the record's log position; a revocation at
//     or before it counts), its closed statement and predicate, and every fact the decision used
//     (unit, stage, slot, verdict, vetoes, the three state digests, bound policy and trust digests);
//   - each authority record of `reliedOn`: its consumption entry and, under `trust` at the time it
//     was consumed (docs/authority.md#human-authority-records: judged once, there), its signature, statement and the operation, ids,
//     unit and expiry the decision used.
// Failures are collected and the docs/commands.md#exit-codes precedence applied (4 before 6 before 5). A row that
// contradicts its signed bytes is `decision_fact_mismatch` (exit 4: edited behind governed).
import { canonicalJson } from '../../core/canonical.js';
import type { Decision } from '../../core/decision/index.js';
import { EXIT_PRECEDENCE, fail, GovernedError, isGovernedError } from '../../core/errors.js';
import type { ReviewReceiptPredicate } from '../../core/receipt-predicate.js';
import type { TrustRoot } from '../../core/trust-root.js';
import type { Db } from '../../store/store.js';
import { receiptEnvelope, type UnitFacts } from './facts.js';
import { verifyReceiptBytes } from '../../core/verify-receipt.js';
import { isoOfSeconds } from '../../core/trust-root.js';
import { parseEnvelopeBytes } from '../../core/dsse.js';
import { assertSignedByCredentials, RECEIPT_ROLES, type CredentialKeys } from '../../core/verify-signatures.js';
import { prepared } from './statements.js';
import { trustModeOfEnvelope } from '../../store/receipt-entries.js';

export interface VerifiedRecords {
  /** Receipt id → its verified predicate. */
  readonly receipts: ReadonlyMap<string, ReviewReceiptPredicate>;
  readonly authorities: readonly string[];
}

interface LogEntry {
  time: number;
  type: string;
  unit: string | null;
  payload: Buffer;
}

function logEntry(db: Db, seq: number, type: string, unit: string, id: string): { time: number; payload: Record<string, unknown> } {
  const row = prepared(db, 'SELECT time, type, unit, payload FROM log WHERE seq = ?').get(seq) as LogEntry | undefined;
  if (row === undefined || row.type !== type || row.unit !== unit) fail('decision_fact_mismatch', [id]);
  let payload: unknown;
  try {
    payload = JSON.parse(row.payload.toString('utf8'));
  } catch {
    fail('decision_fact_mismatch', [id]);
  }
  if (typeof payload !== 'object' || payload === null) fail('decision_fact_mismatch', [id]);
  return { time: row.time, payload: payload as Record<string, unknown> };
}

/** Pick the error that wins under docs/commands.md#exit-codes precedence (the first one on a tie). */
export function worstError(errors: readonly GovernedError[]): GovernedError | null {
  for (const exit of EXIT_PRECEDENCE) {
    const e = errors.find((x) => x.exit === exit);
    if (e !== undefined) return e;
  }
  return errors[0] ?? null;
}

/**
 * The credential keys of the policy a receipt is bound to, when the caller knows them: the gate
 * knows the pinned policy's (`--policy-digest`), so every receipt bound to it must be signed by its
 * reviewer and runner keys in those roles (docs/gate.md#4-what-is-re-verified-and-against-what). A receipt bound to another policy is
 * judged by the trust root's roles alone (the gate does not load earlier policies).
 */
export interface PolicyCredentials {
  readonly policyDigest: string;
  readonly keys: CredentialKeys;
}

function verifyReceipt(
  db: Db,
  unit: string,
  fact: UnitFacts['receipts'][number]['fact'],
  trust: TrustRoot,
  credentials: PolicyCredentials | undefined,
): ReviewReceiptPredicate {
  const id = fact.receiptId;
  const envelope = receiptEnvelope(db, id);
  const entry = logEntry(db, fact.seq, 'run_receipt', unit, id);
  if (entry.time !== fact.time || entry.payload.receipt !== id || entry.payload.envelope_b64 !== envelope.toString('base64')) {
    fail('decision_fact_mismatch', [id]);
  }
  const v = verifyReceiptBytes(envelope, trust, { at: isoOfSeconds(entry.time), offline: false });
  const p = v.predicate;
  if (credentials !== undefined && p.inputs.policy_digest === credentials.policyDigest) {
    const signers = parseEnvelopeBytes(envelope).signatures.map((sig) => sig.keyid);
    assertSignedByCredentials(signers, trust, RECEIPT_ROLES, credentials.keys);
  }
  const same =
    v.id === id &&
    p.unit === unit &&
    p.stage === fact.stage &&
    p.slot === fact.slot &&
    p.verdict === fact.verdict &&
    canonicalJson(p.vetoes) === canonicalJson(fact.vetoes) &&
    p.planning_state_digest === fact.planningStateDigest &&
    p.content_digest === fact.contentDigest &&
    p.work_state_digest === fact.workStateDigest &&
    p.inputs.policy_digest === fact.policyDigest &&
    p.inputs.trust_digest === fact.trustDigest &&
    p.trust_mode === (fact.trustMode ?? 'co-located');
  if (!same) fail('decision_fact_mismatch', [id]);
  return p;
}

/** A receipt's `separated` trust mode column against its signed predicate (the envelope its log entry holds), without a signature check. */
function claimedSeparated(db: Db, unit: string, fact: UnitFacts['receipts'][number]['fact']): void {
  const id = fact.receiptId;
  const envelope = receiptEnvelope(db, id);
  const entry = logEntry(db, fact.seq, 'run_receipt', unit, id);
  if (entry.payload.envelope_b64 !== envelope.toString('base64') || trustModeOfEnvelope(envelope) !== 'separated') fail('decision_fact_mismatch', [id]);
}

async function verifyAuthority(db: Db, unit: string, fact: UnitFacts['authorities'][number]['fact'], trust: TrustRoot): Promise<void> {
  const id = fact.recordId;
  const row = db.prepare('SELECT envelope FROM authority_records WHERE id = ?').pluck().get(id) as Buffer | undefined;
  if (row === undefined) fail('decision_fact_mismatch', [id]);
  const entry = logEntry(db, fact.seq, 'authority_consume', unit, id);
  if (entry.time !== fact.time || entry.payload.record !== id || entry.payload.operation !== fact.operation) fail('decision_fact_mismatch', [id]);
  // Authority records are off the common gate path (a decision relies on one only after a dismiss or
  // a disposal): their zod-based verifier is loaded only then.
  const { verifyAuthorityRecordBytes, secondsOfIso, sortIds } = await import('../../core/authority/index.js');
  const v = verifyAuthorityRecordBytes(row, trust, { at: isoOfSeconds(entry.time), offline: false });
  const p = v.predicate;
  const same =
    v.recordId === id &&
    p.operation === fact.operation &&
    p.unit === unit &&
    canonicalJson(sortIds(p.ids)) === canonicalJson(sortIds(fact.ids)) &&
    secondsOfIso(p.expires_at) === fact.expiresAt;
  if (!same) fail('decision_fact_mismatch', [id]);
}

/**
 * Verifies receipts and authority records of one unit under one trust root, each at most once.
 * `preverify` may check receipts before the decision is known (the gate does it for planning
 * receipts while git computes the subject's manifest); a failure is kept, and only reported when
 * the decision turns out to rely on that record.
 */
export class RecordVerifier {
  private readonly results = new Map<string, { ok: ReviewReceiptPredicate } | { error: GovernedError }>();
  private readonly trustAt: (seq: number) => TrustRoot;

  /**
   * `trust`: one trust root for every record (the gate: the deploy side's, docs/decision.md#8-delivery-state-and-reason-codes), or the trust
   * root in force at a log position (status: docs/state.md#the-store "the key validity that applies to a record is
   * the trust root in force at its log position").
   */
  constructor(
    private readonly db: Db,
    private readonly unit: string,
    trust: TrustRoot | ((seq: number) => TrustRoot),
    private readonly credentials?: PolicyCredentials,
  ) {
    this.trustAt = typeof trust === 'function' ? trust : () => trust;
  }

  private receipt(fact: UnitFacts['receipts'][number]['fact']): { ok: ReviewReceiptPredicate } | { error: GovernedError } {
    const cached = this.results.get(fact.receiptId);
    if (cached !== undefined) return cached;
    let result: { ok: ReviewReceiptPredicate } | { error: GovernedError };
    try {
      result = { ok: verifyReceipt(this.db, this.unit, fact, this.trustAt(fact.seq), this.credentials) };
    } catch (e) {
      if (!isGovernedError(e)) throw e;
      result = { error: e };
    }
    this.results.set(fact.receiptId, result);
    return result;
  }

  preverify(receipts: readonly UnitFacts['receipts'][number][]): void {
    for (const r of receipts) this.receipt(r.fact);
  }

  /** Verify what `decision` relies on, and every receipt whose payload was read; throw the worst failure. */
  async verifyDecision(facts: UnitFacts, decision: Decision): Promise<VerifiedRecords> {
    const byId = new Map(facts.receipts.map((r) => [r.fact.receiptId, r]));
    const wanted = new Set<string>(decision.reliedOn.receipts);
    for (const r of facts.receipts) if (r.readPayload) wanted.add(r.fact.receiptId);
    const errors: GovernedError[] = [];
    const receipts = new Map<string, ReviewReceiptPredicate>();
    for (const id of [...wanted].sort()) {
      const loaded = byId.get(id);
      // The rules only ever rely on receipts they were given.
      if (loaded === undefined) fail('internal_error', ['relied_on']);
      const r = this.receipt(loaded.fact);
      if ('ok' in r) receipts.set(id, r.ok);
      else errors.push(r.error);
    }
    // Every other loaded receipt still counts for the decision's trust mode (all loaded receipts'):
    // one whose column claims `separated` must say so in its signed predicate, in the envelope its
    // log entry holds (a column that says co-located only makes the decision stricter).
    for (const r of facts.receipts) {
      if (wanted.has(r.fact.receiptId) || r.fact.trustMode !== 'separated') continue;
      try {
        claimedSeparated(this.db, this.unit, r.fact);
      } catch (e) {
        if (!isGovernedError(e)) throw e;
        errors.push(e);
      }
    }
    const authorities = new Map(facts.authorities.map((a) => [a.fact.recordId, a]));
    for (const id of decision.reliedOn.authorities) {
      const loaded = authorities.get(id);
      if (loaded === undefined) fail('internal_error', ['relied_on']);
      try {
        await verifyAuthority(this.db, this.unit, loaded.fact, this.trustAt(loaded.fact.seq));
      } catch (e) {
        if (!isGovernedError(e)) throw e;
        errors.push(e);
      }
    }
    const worst = worstError(errors);
    if (worst !== null) throw worst;
    return { receipts, authorities: [...decision.reliedOn.authorities] };
  }
}

/** Verify everything `decision` relies on (one-shot form of RecordVerifier). */
export function verifyDecisionRecords(
  db: Db,
  unit: string,
  facts: UnitFacts,
  decision: Decision,
  trust: TrustRoot | ((seq: number) => TrustRoot),
): Promise<VerifiedRecords> {
  return new RecordVerifier(db, unit, trust).verifyDecision(facts, decision);
}
