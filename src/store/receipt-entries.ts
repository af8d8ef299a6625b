// The `receipts` row a `run_receipt` log entry derives, and the log's own indexes over those entries
// (docs/gate.md#5a-the-tables-must-be-what-the-log-says-decision_table_log_mismatch-4). One definition: the reducer (./reducers/runs.ts) inserts exactly
// `receiptRowOfEntry(payload, seq)`, and the decision loader (src/flows/decide/facts.ts) reads the
// same fields from the log entries through the expression indexes below, to prove that the table
// it decides from says what the hash-chained log says. zod-free: the gate's cold path imports it.

/** The fields of a `run_receipt` payload the receipts row is made of (the closed schema is in ./reducers/runs.ts). */
export interface RunReceiptFields {
  readonly run: string;
  readonly unit: string;
  readonly receipt: string;
  readonly stage: string;
  readonly slot: string;
  readonly verdict: string;
  readonly has_veto: boolean;
  readonly planning_state_digest: string;
  readonly content_digest: string;
  readonly work_state_digest: string;
  readonly policy_digest: string;
  readonly trust_digest: string;
  readonly recorded_at: number;
}

/** A `receipts` row without its envelope bytes (the envelope is checked against the log where it is read: src/flows/decide/verify.ts). */
export interface ReceiptRow {
  readonly id: string;
  readonly run_id: string;
  readonly unit: string;
  readonly stage: string;
  readonly slot: string;
  readonly verdict: string;
  readonly has_veto: number;
  readonly planning_state_digest: string;
  readonly content_digest: string;
  readonly work_state_digest: string;
  readonly policy_digest: string;
  readonly trust_digest: string;
  readonly recorded_at: number;
  readonly log_seq: number;
}

export type ReceiptTrustMode = 'co-located' | 'separated';

/** The trust mode a receipt predicate states, or null when it states none of the two (the `receipts.trust_mode` column, migration 0010). */
export function trustModeOfPredicate(predicate: unknown): ReceiptTrustMode | null {
  const m = typeof predicate === 'object' && predicate !== null ? (predicate as { trust_mode?: unknown }).trust_mode : undefined;
  return m === 'co-located' || m === 'separated' ? m : null;
}

/**
 * The trust mode the signed predicate inside a stored DSSE envelope states, or null when the bytes
 * do not hold one (zod-free; the signature and the canonical bytes are checked where the receipt is
 * verified, not here).
 */
export function trustModeOfEnvelope(envelope: Uint8Array): ReceiptTrustMode | null {
  try {
    const env = JSON.parse(Buffer.from(envelope).toString('utf8')) as { payload?: unknown };
    if (typeof env.payload !== 'string') return null;
    const statement = JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8')) as { predicate?: unknown };
    return trustModeOfPredicate(statement.predicate);
  } catch {
    return null;
  }
}

/** The columns of `ReceiptRow`, in table order (what a SELECT of a receipts row names). */
export const RECEIPT_ROW_COLUMNS =
  'id, run_id, unit, stage, slot, verdict, has_veto, planning_state_digest, content_digest, work_state_digest, policy_digest, trust_digest, recorded_at, log_seq';

/** The row the `run_receipt` entry at log position `seq` inserts. */
export function receiptRowOfEntry(p: RunReceiptFields, seq: number): ReceiptRow {
  return {
    id: p.receipt,
    run_id: p.run,
    unit: p.unit,
    stage: p.stage,
    slot: p.slot,
    verdict: p.verdict,
    has_veto: p.has_veto ? 1 : 0,
    planning_state_digest: p.planning_state_digest,
    content_digest: p.content_digest,
    work_state_digest: p.work_state_digest,
    policy_digest: p.policy_digest,
    trust_digest: p.trust_digest,
    recorded_at: p.recorded_at,
    log_seq: seq,
  };
}

const STRING_FIELDS = [
  'run',
  'unit',
  'receipt',
  'stage',
  'slot',
  'verdict',
  'planning_state_digest',
  'content_digest',
  'work_state_digest',
  'policy_digest',
  'trust_digest',
] as const;

/**
 * The row a stored `run_receipt` payload (its exact bytes) derives, or null when the bytes do not
 * hold the fields at all. For readers that do not run the closed schema (the gate's lean path):
 * any other difference shows up as a row that differs from the table's.
 */
export function receiptRowOfPayloadBytes(payload: Buffer, seq: number): ReceiptRow | null {
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const p = value as Record<string, unknown>;
  for (const f of STRING_FIELDS) if (typeof p[f] !== 'string') return null;
  if (typeof p.has_veto !== 'boolean' || !Number.isSafeInteger(p.recorded_at)) return null;
  return receiptRowOfEntry(p as unknown as RunReceiptFields, seq);
}

/**
 * A field of a `run_receipt` entry's payload as SQL over the `log` row. The payload is canonical
 * JSON text stored as a BLOB (SQLite ≥ 3.45 would read a BLOB as JSONB), hence the CAST. The same
 * text must appear in a query for SQLite to use the index built on it (migration 0007).
 */
export function logField(name: 'stage' | 'slot' | 'verdict' | 'planning_state_digest' | 'content_digest' | 'work_state_digest'): string {
  return `json_extract(CAST(payload AS TEXT), '$.${name}')`;
}
