// The ID projection of a contract used by the bundle's coverage object (docs/reviewers.md#the-reviewers-world): every ID by kind
// and every `FROM>TO` edge the contract itself defines. `change>implementation` edges are not part
// of a contract (changes come from the workspace) and are added by the bundle builder.
import type { Contract } from './schema.js';
import { relationId, sortedUnique } from './ids.js';

export type RelationKind =
  | 'atom>directive'
  | 'directive>target'
  | 'directive>criterion'
  | 'atom>criterion'
  | 'directive>implementation'
  | 'directive>evidence'
  | 'tombstone>directive'
  | 'authority>tombstone';

export interface ContractRelation {
  readonly id: string;
  readonly kind: RelationKind;
  readonly from: string;
  readonly to: string;
}

/** Every edge with its kind, in contract order (callers sort as they need). */
export function contractRelationEdges(contract: Contract): ContractRelation[] {
  const out: ContractRelation[] = [];
  const push = (kind: RelationKind, from: string, to: string): void => {
    out.push({ id: relationId(from, to), kind, from, to });
  };
  for (const source of contract.sources) {
    for (const atom of source.atoms) for (const d of atom.directives) push('atom>directive', atom.id, d);
  }
  for (const d of contract.directives) {
    for (const t of d.targets) push('directive>target', d.id, t.id);
    for (const c of d.criteria) {
      push('directive>criterion', d.id, c.id);
      for (const a of c.atoms) push('atom>criterion', a, c.id);
    }
    for (const i of d.implementations) push('directive>implementation', d.id, i);
    for (const e of d.evidence) push('directive>evidence', d.id, e);
  }
  for (const t of contract.tombstones) {
    if (t.directive !== undefined) push('tombstone>directive', t.id, t.directive);
    push('authority>tombstone', t.authority, t.id);
  }
  return out;
}

/** docs/reviewers.md#the-reviewers-world: every `FROM>TO` edge of the contract, sorted by UTF-8 bytes, unique. */
export function contractRelations(contract: Contract): string[] {
  return sortedUnique(contractRelationEdges(contract).map((r) => r.id));
}

export interface ContractIdsByKind {
  readonly sources: string[];
  readonly atoms: string[];
  readonly directives: string[];
  readonly targets: string[];
  readonly criteria: string[];
  readonly implementations: string[];
  readonly evidence: string[];
  readonly authorities: string[];
  readonly tombstones: string[];
}

/** docs/reviewers.md#the-reviewers-world coverage kinds that come from the contract, each sorted by UTF-8 bytes. */
export function contractIdsByKind(contract: Contract): ContractIdsByKind {
  return {
    sources: sortedUnique(contract.sources.map((s) => s.id)),
    atoms: sortedUnique(contract.sources.flatMap((s) => s.atoms.map((a) => a.id))),
    directives: sortedUnique(contract.directives.map((d) => d.id)),
    targets: sortedUnique(contract.directives.flatMap((d) => d.targets.map((t) => t.id))),
    criteria: sortedUnique(contract.directives.flatMap((d) => d.criteria.map((c) => c.id))),
    implementations: sortedUnique(contract.implementations.map((i) => i.id)),
    evidence: sortedUnique(contract.evidence.map((e) => e.id)),
    authorities: sortedUnique(contract.authorities.map((a) => a.id)),
    tombstones: sortedUnique(contract.tombstones.map((t) => t.id)),
  };
}
