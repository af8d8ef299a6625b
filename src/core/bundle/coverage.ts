// The coverage object of a view (docs/reviewers.md#the-reviewers-world): every ID visible in the view, by kind, and every
// visible edge as `FROM>TO`. Computed from the view's own sections — never from the full bundle —
// so a reviewer echoing it proves it received exactly this view, and an ID a role must not see can
// never appear in its coverage.
//
// What counts as visible (docs/bundle.md):
// - the items a section carries (a source and its atoms, a directive with its targets and criteria,
//   an implementation, an authority, a tombstone, a change, a scope version, a preservation
//   surface), and the IDs those
//   items reference by field (a directive's sources, a criterion's atoms, a tombstone's directive and
//   authority, both ends of a `source_map` edge);
// - edges: atom>directive (source_map), directive>target, directive>criterion, atom>criterion,
//   directive>implementation, directive>evidence (contract), tombstone>directive and
//   authority>tombstone (tombstones), change>implementation (only when the view has both `changes`
//   and `contract`: the join of a change's path with an implementation's paths).
// ID lists that are history data — a tombstone's `disposes`, a scope version's diff lists — name
// items that may no longer exist; they are part of the evidence but not coverage entries.
import { relationId, sortedUnique } from '../contract/ids.js';
import { COVERAGE_KINDS, type Coverage, type CoverageKind, type Sections } from './schema.js';

type Acc = Record<CoverageKind, Set<string>> & { relations: Set<string> };

function emptyAcc(): Acc {
  const acc = { relations: new Set<string>() } as Acc;
  for (const k of COVERAGE_KINDS) acc[k] = new Set<string>();
  return acc;
}

function splitRelation(r: string): [string, string] {
  const i = r.indexOf('>');
  return [r.slice(0, i), r.slice(i + 1)];
}

export function coverageOf(sections: Sections): Coverage {
  const acc = emptyAcc();
  const edge = (from: string, to: string): void => {
    acc.relations.add(relationId(from, to));
  };

  for (const s of sections.sources ?? []) {
    acc.sources.add(s.id);
    for (const a of s.atoms) acc.atoms.add(a.id);
  }
  for (const r of sections.source_map?.relations ?? []) {
    const [atom, directive] = splitRelation(r);
    acc.atoms.add(atom);
    acc.directives.add(directive);
    acc.relations.add(r);
  }
  const contract = sections.contract;
  if (contract !== undefined) {
    for (const d of contract.directives) {
      acc.directives.add(d.id);
      for (const s of d.sources) acc.sources.add(s);
      for (const t of d.targets) {
        acc.targets.add(t.id);
        edge(d.id, t.id);
      }
      for (const c of d.criteria) {
        acc.criteria.add(c.id);
        edge(d.id, c.id);
        for (const a of c.atoms) {
          acc.atoms.add(a);
          edge(a, c.id);
        }
      }
    }
    if (contract.form === 'full') {
      // Only the full form carries implementation and evidence mappings (the planning form omits them).
      for (const d of contract.directives) {
        for (const i of d.implementations) {
          acc.implementations.add(i);
          edge(d.id, i);
        }
        for (const e of d.evidence) {
          acc.evidence.add(e);
          edge(d.id, e);
        }
      }
      for (const i of contract.implementations) acc.implementations.add(i.id);
      for (const e of contract.evidence) acc.evidence.add(e.id);
    }
  }
  for (const a of sections.authorities ?? []) acc.authorities.add(a.id);
  for (const t of sections.tombstones ?? []) {
    acc.tombstones.add(t.id);
    acc.authorities.add(t.authority);
    edge(t.authority, t.id);
    if (t.directive !== null) {
      acc.directives.add(t.directive);
      edge(t.id, t.directive);
    }
  }
  for (const v of sections.scope_history ?? []) acc.scope_versions.add(v.id);
  for (const s of sections.preservation?.surfaces ?? []) acc.surfaces.add(s.id);
  for (const c of sections.changes ?? []) acc.changes.add(c.id);
  if (sections.changes !== undefined && contract !== undefined && contract.form === 'full') {
    for (const c of sections.changes) {
      for (const i of contract.implementations) if (i.paths.includes(c.path)) edge(c.id, i.id);
    }
  }

  const out = {} as Record<CoverageKind | 'relations', string[]>;
  for (const k of COVERAGE_KINDS) out[k] = sortedUnique(acc[k]);
  out.relations = sortedUnique(acc.relations);
  return out as Coverage;
}

/** True when the view shows nothing: every included section is empty (docs/bundle.md#views "An empty view is refused"). */
export function isEmptySections(sections: Sections): boolean {
  const nonEmpty = [
    (sections.sources?.length ?? 0) > 0,
    (sections.source_map?.relations.length ?? 0) > 0,
    sections.contract !== undefined &&
      (sections.contract.directives.length > 0 ||
        (sections.contract.form === 'full' && (sections.contract.implementations.length > 0 || sections.contract.evidence.length > 0))),
    (sections.authorities?.length ?? 0) > 0,
    (sections.tombstones?.length ?? 0) > 0,
    (sections.scope_history?.length ?? 0) > 0,
    (sections.changes?.length ?? 0) > 0,
    (sections.current_files?.length ?? 0) > 0,
    sections.baseline_files !== undefined && (sections.baseline_files.manifest.length > 0 || sections.baseline_files.files.length > 0),
    (sections.prior_receipts?.length ?? 0) > 0,
    sections.preservation !== undefined,
  ];
  return !nonEmpty.some(Boolean);
}
