// `governed preservation set --unit U --contract FILE [--authority REC ...] [--no-incident-history]`
// (docs/preservation.md#binding-a-contract).
//
// The contract is parsed strictly (one closed schema), validated (ids, paths inside the product
// roots, N/A reasons, destructive fields, vendor origins) and must name the unit's baseline commit.
// Against the bound one (if any) it follows the request contract's narrowing rules
// (core/preservation/diff.ts): narrowing needs one `authorize` record naming exactly the narrowed
// ids (state_before: the bound contract's digest; state_after: the new one's). Each destructive
// surface newly bound needs its destructive record given with --authority and consumed here:
// operation = the disposition, ids = [the surface], state_after = its expected_diff_digest
// (state_before: null, or for `replace` — a scope operation — the new contract's digest). A
// destructive surface already bound carries its consumed record as history.
// The incident history is assembled from governed's own log at this position and bound with the
// contract. Everything is one transaction: a refusal consumes nothing and records nothing.
import { fail } from '../../core/errors.js';
import { RECORD_ID_RE } from '../../core/authority/index.js';
import { sortedUnique } from '../../core/contract/ids.js';
import { diffPreservation } from '../../core/preservation/diff.js';
import { isDestructive, type PreservationContract } from '../../core/preservation/schema.js';
import { parsePreservationBytes, preservationDigest } from '../../core/preservation/text.js';
import { validatePreservationContract } from '../../core/preservation/validate.js';
import { closeStore, consumeAuthorityIn, getAuthorityRecord, getUnit, mutate, openStore, type Tx } from '../../store/index.js';
import { bindPreservationIn, dispositionConsumptions, getPreservation } from '../../store/preservation.js';
import { loadPinned } from '../challenge/pinned.js';
import { readInputFile } from '../read-input.js';

import { PRESERVATION_CONTRACT_MAX_BYTES as MAX_PRESERVATION_BYTES } from '../../core/limits.js';

export interface PreservationSetArgs {
  readonly home: string;
  readonly unit: string;
  readonly contractFile: string;
  readonly authorities: readonly string[];
  readonly noIncidentHistory: boolean;
  readonly now: number;
}

export interface PreservationSetResult {
  readonly unit: string;
  readonly version: number;
  readonly contractDigest: string;
  readonly incidentHistory: string;
  readonly additions: readonly string[];
  readonly narrowing: readonly string[];
  readonly authorities: readonly string[];
}

const safe = (ids: readonly string[]): string[] => ids.filter((id) => RECORD_ID_RE.test(id));

function consumeFor(tx: Tx, unit: string, records: readonly string[], next: PreservationContract, previous: PreservationContract | null, digest: string, narrowing: readonly string[]): string[] {
  const consumed: string[] = [];
  const already = new Set(dispositionConsumptions(tx.db, unit).map((c) => c.recordId));
  const remaining = new Set(records);
  // Destructive surfaces: their record, given now, or consumed by an earlier binding of this unit.
  const prevSurfaces = new Map((previous?.surfaces ?? []).map((s) => [s.id, s]));
  for (const s of next.surfaces) {
    if (!isDestructive(s.disposition) || s.authority_id === undefined || s.expected_diff_digest === undefined) continue;
    const before = prevSurfaces.get(s.id);
    const carried = before !== undefined && before.disposition === s.disposition && before.authority_id === s.authority_id && already.has(s.authority_id);
    if (carried) continue;
    if (!remaining.has(s.authority_id)) fail('preservation_authority_missing', [s.id]);
    remaining.delete(s.authority_id);
    if (getAuthorityRecord(tx.db, s.authority_id) === null) fail('authority_record_unknown', safe([s.authority_id]));
    consumeAuthorityIn(tx, {
      recordId: s.authority_id,
      operation: s.disposition,
      ids: [s.id],
      unit,
      stateBefore: s.disposition === 'replace' ? digest : null,
      stateAfter: s.expected_diff_digest,
    });
    consumed.push(s.authority_id);
  }
  // Narrowing: exactly one `authorize` record over exactly the narrowed ids.
  if (narrowing.length > 0) {
    const rest = [...remaining];
    if (rest.length !== 1 || previous === null) fail('preservation_narrowing_unauthorized', narrowing);
    const record = rest[0] as string;
    if (getAuthorityRecord(tx.db, record) === null) fail('authority_record_unknown', safe([record]));
    consumeAuthorityIn(tx, { recordId: record, operation: 'authorize', ids: narrowing, unit, stateBefore: preservationDigest(previous), stateAfter: digest });
    remaining.delete(record);
    consumed.push(record);
  }
  if (remaining.size > 0) fail('preservation_authority_not_cited', safe([...remaining]));
  return sortedUnique(consumed);
}

export function setPreservationFlow(args: PreservationSetArgs): PreservationSetResult {
  const store = openStore(args.home);
  try {
    const pinned = loadPinned(store, args.now);
    const unit = getUnit(store.db, args.unit);
    const bytes = readInputFile(args.contractFile, MAX_PRESERVATION_BYTES);
    const next = parsePreservationBytes(bytes);
    validatePreservationContract(next, pinned.policy.doc.product_roots);
    if (next.baseline !== unit.baselineCommit) fail('preservation_baseline_mismatch', [unit.unitId]);
    const digest = preservationDigest(next);
    return mutate(store, args.now, (tx) => {
      const bound = getPreservation(tx.db, unit.unitId);
      if (bound !== null && bound.contractBytes.equals(bytes) && args.authorities.length === 0) fail('preservation_unchanged', [unit.unitId]);
      const diff = bound === null ? { additions: next.surfaces.map((s) => s.id), narrowing: [] as string[] } : diffPreservation(bound.contract, next);
      const consumed = consumeFor(tx, unit.unitId, args.authorities, next, bound?.contract ?? null, digest, diff.narrowing);
      const b = bindPreservationIn(tx, {
        unit: unit.unitId,
        contractBytes: bytes,
        contractDigest: digest,
        authorities: consumed,
        noIncidentHistory: args.noIncidentHistory,
      });
      return {
        unit: unit.unitId,
        version: b.version,
        contractDigest: digest,
        incidentHistory: b.incidentHistory,
        additions: sortedUnique(diff.additions),
        narrowing: diff.narrowing,
        authorities: consumed,
      };
    });
  } finally {
    closeStore(store);
  }
}
