// Disposal of directives by tombstone (docs/contract.md#validation-rules "Dispositions"): a
// deferred, superseded or abandoned directive counts as disposed only with a tombstone whose
// authority is a valid signed record of the matching operation and whose `disposes` list is exactly
// the directive, all its targets, criteria, implementations and evidence IDs, and every relation
// that touches them. See schema.ts for the tombstone's field design.
import { fail } from '../errors.js';
import type { AuthorityOperation, Contract, ContractDirective, DirectiveState } from './schema.js';
import { contractIdsByKind, contractRelationEdges, type ContractRelation } from './relations.js';
import { sortedUnique } from './ids.js';

/** The authority operation that disposes a directive in each disposed state (docs/authority.md#human-authority-records). */
export const DISPOSAL_OPERATION: Readonly<Partial<Record<DirectiveState, AuthorityOperation>>> = {
  deferred: 'defer',
  superseded: 'supersede',
  abandoned: 'abandon',
};

export function isDisposedState(state: DirectiveState): boolean {
  return DISPOSAL_OPERATION[state] !== undefined;
}

/**
 * The exact `disposes` set of a directive's tombstone: the directive, its targets, criteria,
 * implementations and evidence, and every relation (docs/bundle.md#coverage) with an end among those IDs. The disposal
 * record's own edges (`TMB>DIR`, `AUTH>TMB`) are not scope being disposed and are excluded, or a
 * tombstone would have to name itself.
 */
export function expectedDisposes(
  contract: Contract,
  directive: ContractDirective,
  edges: readonly ContractRelation[] = contractRelationEdges(contract),
): string[] {
  const items = new Set<string>([
    directive.id,
    ...directive.targets.map((t) => t.id),
    ...directive.criteria.map((c) => c.id),
    ...directive.implementations,
    ...directive.evidence,
  ]);
  const relations = edges
    .filter((r) => r.kind !== 'tombstone>directive' && r.kind !== 'authority>tombstone')
    .filter((r) => items.has(r.from) || items.has(r.to))
    .map((r) => r.id);
  return sortedUnique([...items, ...relations]);
}

/**
 * The caller's verdict on a tombstone's signed record: valid, consumed for this unit with this
 * operation, and naming every id in `covers` among the ids the human approved (docs/authority.md#human-authority-records: a
 * disposal is authorised for exactly what the record names — an older record of the same kind that
 * covered something else does not authorise this one).
 */
export type AuthorityValidator = (recordId: string, operation: AuthorityOperation, covers: readonly string[]) => boolean;

/**
 * Check every tombstone and every disposed directive. `isValidAuthority` is the caller's verdict on
 * the signed record (signature, key role, validity at the log position); without it no disposal can
 * be judged, so every tombstone fails closed.
 */
export function assertDisposals(contract: Contract, isValidAuthority: AuthorityValidator | undefined): void {
  const directives = new Map(contract.directives.map((d) => [d.id, d]));
  const authorities = new Map(contract.authorities.map((a) => [a.id, a]));
  const tombstoneOf = new Map<string, string>();

  const edges = contractRelationEdges(contract);
  const byKind = contractIdsByKind(contract);
  const live = new Set<string>([
    ...byKind.sources,
    ...byKind.atoms,
    ...byKind.directives,
    ...byKind.targets,
    ...byKind.criteria,
    ...byKind.implementations,
    ...byKind.evidence,
    ...edges.map((r) => r.id),
  ]);

  for (const tombstone of contract.tombstones) {
    const authority = authorities.get(tombstone.authority);
    if (authority === undefined) fail('contract_reference_unknown', [tombstone.id, tombstone.authority]);

    if (tombstone.directive === undefined) {
      // A record of removed items (docs/contract.md#scope-history): none of them may still be live.
      for (const entry of tombstone.disposes) if (live.has(entry)) fail('contract_tombstone_disposes_live', [tombstone.id, entry]);
    } else {
      const directive = directives.get(tombstone.directive);
      if (directive === undefined) fail('contract_reference_unknown', [tombstone.id, tombstone.directive]);
      if (tombstoneOf.has(directive.id)) fail('contract_tombstone_duplicate', [directive.id]);
      tombstoneOf.set(directive.id, tombstone.id);
      const operation = DISPOSAL_OPERATION[directive.state];
      if (operation === undefined) fail('contract_tombstone_directive_live', [tombstone.id, directive.id]);
      if (authority.operation !== operation) fail('contract_tombstone_operation_mismatch', [tombstone.id, authority.id]);
      const expected = expectedDisposes(contract, directive, edges);
      const given = sortedUnique(tombstone.disposes);
      const givenSet = new Set(given);
      const expectedSet = new Set(expected);
      const missing = expected.filter((id) => !givenSet.has(id));
      const extra = given.filter((id) => !expectedSet.has(id));
      if (missing.length > 0 || extra.length > 0 || given.length !== tombstone.disposes.length) {
        fail('contract_tombstone_disposes_mismatch', [
          tombstone.id,
          ...missing.map((id) => `missing:${id}`),
          ...extra.map((id) => `extra:${id}`),
        ]);
      }
    }

    // What the record must name: the disposed directive, or every removed item of a removal record.
    const covers = tombstone.directive === undefined ? [...tombstone.disposes] : [tombstone.directive];
    if (isValidAuthority === undefined || !isValidAuthority(authority.record, authority.operation, covers)) {
      fail('contract_tombstone_authority_invalid', [tombstone.id, authority.id]);
    }
  }

  for (const directive of contract.directives) {
    if (isDisposedState(directive.state) && !tombstoneOf.has(directive.id)) {
      fail('contract_directive_undisposed', [directive.id]);
    }
  }
}
