// The validation rules of the request contract (docs/contract.md#validation-rules), each violation with its own error code.
// Pure: the caller reads the source bytes (at issuance, so their digest is bound) and passes them in
// with the policy's product roots and its verdict on authority records. Errors carry IDs and field
// paths, never source text, statements or paths (docs/threat-model.md#rules-that-hold-everywhere "No secrets in output").
//
// Checks run in a fixed order and the first violation is thrown (fail closed, deterministic codes):
// syntax of IDs and references → resolution → paths → spans → atom/directive rules → verbatim →
// reciprocity → disposals.
import { fail } from '../errors.js';
import type { Contract } from './schema.js';
import { fieldPath } from './schema.js';
import { AUTHORITY_RECORD_ID_RE, isContractId, isRelationId } from './ids.js';
import { assertContractPaths, assertProductRoots, isNormalizedRelativePath } from './paths.js';
import { assertAtomsTileSource, atomBytes } from './spans.js';
import { assertDisposals, isDisposedState, type AuthorityValidator } from './tombstones.js';
import { contractIdsByKind, contractRelations, type ContractIdsByKind } from './relations.js';

export { contractRelations, contractIdsByKind, contractRelationEdges } from './relations.js';
export type { ContractIdsByKind, ContractRelation, RelationKind } from './relations.js';
export { checkChangeCoverage, assertChangeCoverage, type ChangeCoverage } from './coverage.js';

export interface ContractFacts {
  /** Source id → the exact bytes read at issuance. */
  readonly sourceBytes: ReadonlyMap<string, Uint8Array>;
  /** The policy's `product_roots` (`.` or normalized directory paths). */
  readonly productRoots: readonly string[];
  /** Verdict on a signed authority record for an operation; absent ⇒ no disposal can be valid. */
  readonly isValidAuthority?: AuthorityValidator;
}

export interface ContractProjection {
  readonly ids: ContractIdsByKind;
  readonly relations: string[];
}

type Path = (string | number)[];

/** Every item ID with the field path that defines it. */
function definedIds(contract: Contract): { id: string; at: Path }[] {
  const out: { id: string; at: Path }[] = [];
  contract.sources.forEach((s, i) => {
    out.push({ id: s.id, at: ['sources', i, 'id'] });
    s.atoms.forEach((a, j) => out.push({ id: a.id, at: ['sources', i, 'atoms', j, 'id'] }));
  });
  contract.directives.forEach((d, i) => {
    out.push({ id: d.id, at: ['directives', i, 'id'] });
    d.targets.forEach((t, j) => out.push({ id: t.id, at: ['directives', i, 'targets', j, 'id'] }));
    d.criteria.forEach((c, j) => out.push({ id: c.id, at: ['directives', i, 'criteria', j, 'id'] }));
  });
  contract.implementations.forEach((x, i) => out.push({ id: x.id, at: ['implementations', i, 'id'] }));
  contract.evidence.forEach((x, i) => out.push({ id: x.id, at: ['evidence', i, 'id'] }));
  contract.authorities.forEach((x, i) => out.push({ id: x.id, at: ['authorities', i, 'id'] }));
  contract.tombstones.forEach((x, i) => out.push({ id: x.id, at: ['tombstones', i, 'id'] }));
  return out;
}

interface Reference {
  readonly from: string;
  readonly to: string;
  readonly at: Path;
  readonly within: Set<string>;
}

/** Every reference to another item, with the set of IDs it must resolve into. */
function references(contract: Contract, ids: ContractIdsByKind): Reference[][] {
  const set = (xs: string[]): Set<string> => new Set(xs);
  const directives = set(ids.directives);
  const sources = set(ids.sources);
  const atoms = set(ids.atoms);
  const implementations = set(ids.implementations);
  const evidence = set(ids.evidence);
  const authorities = set(ids.authorities);
  // Each inner list is one reference list: duplicates are judged within it.
  const lists: Reference[][] = [];
  const list = (from: string, tos: readonly string[], at: Path, within: Set<string>): void => {
    lists.push(tos.map((to, k) => ({ from, to, at: [...at, k], within })));
  };
  contract.sources.forEach((s, i) =>
    s.atoms.forEach((a, j) => list(a.id, a.directives, ['sources', i, 'atoms', j, 'directives'], directives)),
  );
  contract.directives.forEach((d, i) => {
    list(d.id, d.sources, ['directives', i, 'sources'], sources);
    d.criteria.forEach((c, j) => list(c.id, c.atoms, ['directives', i, 'criteria', j, 'atoms'], atoms));
    list(d.id, d.implementations, ['directives', i, 'implementations'], implementations);
    list(d.id, d.evidence, ['directives', i, 'evidence'], evidence);
  });
  contract.tombstones.forEach((t, i) => {
    if (t.directive !== undefined) lists.push([{ from: t.id, to: t.directive, at: ['tombstones', i, 'directive'], within: directives }]);
    lists.push([{ from: t.id, to: t.authority, at: ['tombstones', i, 'authority'], within: authorities }]);
  });
  return lists;
}

function assertIdentifiers(contract: Contract, ids: ContractIdsByKind): void {
  const seen = new Set<string>();
  for (const { id, at } of definedIds(contract)) {
    if (!isContractId(id)) fail('contract_id_invalid', [fieldPath(at)]);
    if (seen.has(id)) fail('contract_id_duplicate', [id]);
    seen.add(id);
  }
  const lists = references(contract, ids);
  for (const refs of lists) for (const r of refs) if (!isContractId(r.to)) fail('contract_id_invalid', [fieldPath(r.at)]);
  contract.authorities.forEach((a, i) => {
    if (!AUTHORITY_RECORD_ID_RE.test(a.record)) fail('contract_id_invalid', [fieldPath(['authorities', i, 'record'])]);
  });
  contract.tombstones.forEach((t, i) =>
    t.disposes.forEach((entry, k) => {
      if (!isContractId(entry) && !isRelationId(entry)) fail('contract_id_invalid', [fieldPath(['tombstones', i, 'disposes', k])]);
    }),
  );
  for (const refs of lists) {
    const inList = new Set<string>();
    for (const r of refs) {
      if (!r.within.has(r.to)) fail('contract_reference_unknown', [r.from, r.to]);
      if (inList.has(r.to)) fail('contract_reference_duplicate', [r.from, r.to]);
      inList.add(r.to);
    }
  }
  // An implementation or evidence item no directive uses is scope nobody is accountable for.
  const used = new Set(contract.directives.flatMap((d) => [...d.implementations, ...d.evidence]));
  for (const id of [...ids.implementations, ...ids.evidence]) if (!used.has(id)) fail('contract_item_orphaned', [id]);
}

function assertPaths(contract: Contract, roots: readonly string[]): void {
  assertProductRoots(roots);
  // Sources are human request artefacts, not product files: normalized, but not bound to the roots.
  contract.sources.forEach((s, i) => {
    if (!isNormalizedRelativePath(s.path)) fail('contract_path_invalid', [fieldPath(['sources', i, 'path'])]);
  });
  contract.directives.forEach((d, i) =>
    d.targets.forEach((t, j) => assertContractPaths(t.paths, fieldPath(['directives', i, 'targets', j, 'paths']), roots)),
  );
  contract.implementations.forEach((x, i) => assertContractPaths(x.paths, fieldPath(['implementations', i, 'paths']), roots));
  contract.evidence.forEach((x, i) => assertContractPaths(x.paths, fieldPath(['evidence', i, 'paths']), roots));
}

function assertSourcesAndAtoms(contract: Contract, facts: ContractFacts): void {
  for (const source of contract.sources) {
    const bytes = facts.sourceBytes.get(source.id);
    if (bytes === undefined) fail('contract_source_bytes_missing', [source.id]);
    assertAtomsTileSource(source.id, source.atoms, bytes);
  }
  for (const source of contract.sources) {
    for (const atom of source.atoms) {
      if (atom.kind === 'obligation') {
        // Only a directive-class source states obligations; context/reference sources are background.
        if (source.class !== 'directive') fail('contract_obligation_outside_directive_source', [source.id, atom.id]);
        if (atom.directives.length === 0) fail('contract_obligation_unmapped', [atom.id]);
      } else if (atom.directives.length > 0) {
        fail('contract_context_mapped', [atom.id]);
      }
    }
    if (source.class === 'directive' && !source.atoms.some((a) => a.kind === 'obligation')) {
      fail('contract_source_without_obligation', [source.id]);
    }
  }
}

function assertDirectives(contract: Contract, facts: ContractFacts): void {
  // atom id → { source id, directives it maps to, bytes }
  const atomInfo = new Map<string, { source: string; directives: Set<string>; bytes: Uint8Array }>();
  for (const source of contract.sources) {
    const bytes = facts.sourceBytes.get(source.id) ?? new Uint8Array();
    for (const atom of source.atoms) {
      atomInfo.set(atom.id, { source: source.id, directives: new Set(atom.directives), bytes: atomBytes(atom, bytes) });
    }
  }

  for (const d of contract.directives) {
    if (!isDisposedState(d.state)) {
      if (d.targets.length === 0) fail('contract_directive_without_target', [d.id]);
      if (d.criteria.length === 0) fail('contract_directive_without_criterion', [d.id]);
    }
    for (const c of d.criteria) {
      for (const a of c.atoms) if (!atomInfo.get(a)?.directives.has(d.id)) fail('contract_criterion_atom_unmapped', [c.id, a]);
    }
  }

  const directives = new Map(contract.directives.map((d) => [d.id, d]));
  // Reciprocity, atom side: an obligation atom of S mapped to D ⇒ D lists S.
  for (const [atomId, info] of atomInfo) {
    for (const dId of info.directives) {
      const d = directives.get(dId);
      if (d !== undefined && !d.sources.includes(info.source)) fail('contract_mapping_source_not_listed', [atomId, dId]);
    }
  }
  // Reciprocity, directive side: D lists S ⇒ some obligation atom of S maps to D.
  const backed = new Set<string>();
  for (const info of atomInfo.values()) for (const dId of info.directives) backed.add(`${info.source}>${dId}`);
  for (const d of contract.directives) {
    for (const s of d.sources) if (!backed.has(`${s}>${d.id}`)) fail('contract_mapping_source_unbacked', [d.id, s]);
  }

  // Verbatim (byte-exact substring) in the directive's statement or one of its criteria. Each
  // directive's surfaces are encoded once, not once per atom: re-encoding them for every atom made
  // a contract within the 4 MiB cap (4,000 atoms mapped to one directive whose text sits in its last
  // criterion) take ~5 s of CPU on every validation (unit create/bind, each challenge).
  const encoded = new Map<string, Buffer[]>();
  const surfacesOf = (d: Contract['directives'][number]): Buffer[] => {
    let s = encoded.get(d.id);
    if (s === undefined) {
      s = [d.statement, ...d.criteria.map((c) => c.statement)].map((t) => Buffer.from(t, 'utf8'));
      encoded.set(d.id, s);
    }
    return s;
  };
  for (const [atomId, info] of atomInfo) {
    for (const dId of info.directives) {
      const d = directives.get(dId);
      if (d === undefined) continue;
      const found = surfacesOf(d).some((s) => s.indexOf(info.bytes) !== -1);
      if (!found) fail('contract_atom_not_verbatim', [atomId, dId]);
    }
  }
}

/**
 * Apply every docs/contract.md#validation-rules rule that can be judged from the contract, the source bytes, the product roots
 * and the authority verdicts. Returns the ID projection (docs/reviewers.md#the-reviewers-world) of the valid contract.
 */
export function validateContract(contract: Contract, facts: ContractFacts): ContractProjection {
  const ids = contractIdsByKind(contract);
  assertIdentifiers(contract, ids);
  assertPaths(contract, facts.productRoots);
  assertSourcesAndAtoms(contract, facts);
  assertDirectives(contract, facts);
  assertDisposals(contract, facts.isValidAuthority);
  return { ids, relations: contractRelations(contract) };
}
