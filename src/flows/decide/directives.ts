// Directive facts of the current contract (docs/contract.md#validation-rules, docs/decision.md#8-delivery-state-and-reason-codes, docs/decision.md#1-inputs-what-a-flow-must-load): each directive's
// state and the tombstone that disposes it with the authority record that tombstone rests on
// (`tombstones[].authority` names an entry of `authorities[]`, which carries the record id). The
// rules decide whether that record was consumed, in force and of the matching operation.
import type { Contract } from '../../core/contract/schema.js';
import type { DirectiveFact, PreservationFact } from '../../core/decision/index.js';

export function directiveFacts(contract: Contract): DirectiveFact[] {
  const recordOf = new Map(contract.authorities.map((a) => [a.id, a.record]));
  const tombstoneOf = new Map<string, { id: string; authority: string }>();
  for (const t of contract.tombstones) {
    if (t.directive !== undefined && !tombstoneOf.has(t.directive)) tombstoneOf.set(t.directive, t);
  }
  return contract.directives.map((d) => {
    const t = tombstoneOf.get(d.id);
    const record = t === undefined ? undefined : recordOf.get(t.authority);
    return { id: d.id, state: d.state, tombstone: t !== undefined && record !== undefined && record.length > 0 ? { id: t.id, authorityRecord: record } : null };
  });
}

/**
 * Preservation contracts, probes and incident histories (docs/authority.md#human-authority-records) do not exist in this version:
 * a unit has none. A policy that requires preservation therefore keeps every unit REVIEW_ONLY
 * (`preservation_contract_missing`, `incident_history_missing`); the default policy waives it with
 * a stated reason, shown in every decision.
 */
export const NO_PRESERVATION: PreservationFact = Object.freeze({ contract: false, incidentHistory: false, unsatisfiedSurfaces: [] });
