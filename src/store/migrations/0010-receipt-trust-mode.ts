// Migration 0010 (the number may move when other migrations land first): the trust mode of each
// receipt as a column of `receipts` (docs/gate.md#6-the-cold-gate-path), so that the decision loader
// reads it with the row instead of parsing every loaded receipt's envelope. The value is derived
// from the receipt's signed predicate by the `run_receipt` reducer (reducers/runs.ts), live and at
// replay, so an audit's replay rebuilds it from the signed bytes and a store edited so that the
// column disagrees is `state_replay_mismatch`; the gate compares it with the signed predicate of
// every receipt it re-verifies, and of every other loaded receipt that claims `separated`
// (`decision_fact_mismatch`, src/flows/decide/verify.ts).
//
// Rows recorded before this migration are filled from their stored envelopes right after the SQL
// (backfillReceiptTrustModes, in the same transaction as the migration).
import type Database from 'better-sqlite3';
import { fail } from '../../core/errors.js';
import { trustModeOfEnvelope } from '../receipt-entries.js';

// The same migration adds the index the decision loader's incident-history lift witness reads a
// unit's preservation bindings through (src/flows/decide/lift-witness.ts): without it the cold gate
// scanned the whole log for them (bench/gate: 60–160 ms of a first scan at 1,000 receipts).
export const RECEIPT_TRUST_MODE_SQL = `
  ALTER TABLE receipts ADD COLUMN trust_mode TEXT NOT NULL DEFAULT 'co-located' CHECK (trust_mode IN ('co-located', 'separated'));
  CREATE INDEX log_unit_preservation_set ON log(unit, seq) WHERE type = 'preservation_set';
`;

/** Fill the column of every existing row from its stored envelope's signed predicate, a page at a time (no statement runs while another iterates). */
export function backfillReceiptTrustModes(db: Database.Database): void {
  const page = db.prepare('SELECT id, envelope, log_seq FROM receipts WHERE log_seq > ? ORDER BY log_seq LIMIT 512');
  const update = db.prepare('UPDATE receipts SET trust_mode = ? WHERE id = ?');
  for (let after = 0; ; ) {
    const rows = page.all(after) as { id: string; envelope: Buffer; log_seq: number }[];
    if (rows.length === 0) return;
    for (const row of rows) {
      const mode = trustModeOfEnvelope(row.envelope) ?? fail('receipt_integrity_failed', [row.id]);
      if (mode !== 'co-located') update.run(mode, row.id);
    }
    after = rows[rows.length - 1]!.log_seq;
  }
}
