// Scope history (docs/contract.md#scope-history): `unit bind` compares the new contract with the current scope version.
//   - Pure additions (new directives, targets, criteria, implementations, evidence, relations, and
//     existing items that only gained members such as a path) and pure progress (active→done) need
//     no authority.
//   - Any other edit of an existing item is narrowing: a removed or edited target, criterion, atom,
//     implementation, evidence or relation; an edited directive; a reclassified source or atom
//     (obligation→context included); a directive moved to deferred/superseded/abandoned. The spec's
//     "any other edit" is read literally, so done→active is narrowing too (stricter rule wins).
//   - Directives, sources, authorities and tombstones never disappear; authorities and tombstones
//     are immutable records and may not be edited either.
// Both contracts are expected to have passed validateContract.
import { canonicalJson } from '../canonical.js';
import { fail } from '../errors.js';
import type { Contract } from './schema.js';
import { contractRelations } from './relations.js';
import { sortedUnique } from './ids.js';
import { expectedDisposes, isDisposedState } from './tombstones.js';

type ItemKind =
  | 'source'
  | 'atom'
  | 'directive'
  | 'target'
  | 'criterion'
  | 'implementation'
  | 'evidence'
  | 'authority'
  | 'tombstone';

const NEVER_DISAPPEAR: ReadonlySet<ItemKind> = new Set(['source', 'directive', 'authority', 'tombstone']);
const IMMUTABLE: ReadonlySet<ItemKind> = new Set(['authority', 'tombstone']);

interface Item {
  readonly kind: ItemKind;
  /** Fields whose any change is an edit (canonical JSON of them). */
  readonly fixed: string;
  /** Member sets: losing a member is narrowing, gaining one is an addition. */
  readonly sets: Readonly<Record<string, readonly string[]>>;
  /** Directive state, compared on its own (progress vs narrowing). */
  readonly state?: string;
}

function itemsOf(contract: Contract): Map<string, Item> {
  const items = new Map<string, Item>();
  const put = (id: string, item: Item): void => {
    items.set(id, item);
  };
  for (const s of contract.sources) {
    put(s.id, { kind: 'source', fixed: canonicalJson({ path: s.path, class: s.class }), sets: {} });
    for (const a of s.atoms) {
      put(a.id, { kind: 'atom', fixed: canonicalJson({ source: s.id, span: [a.span[0], a.span[1]], kind: a.kind }), sets: {} });
    }
  }
  for (const d of contract.directives) {
    put(d.id, { kind: 'directive', fixed: canonicalJson({ statement: d.statement }), sets: { sources: d.sources }, state: d.state });
    for (const t of d.targets) put(t.id, { kind: 'target', fixed: canonicalJson({ directive: d.id }), sets: { paths: t.paths } });
    for (const c of d.criteria) {
      put(c.id, { kind: 'criterion', fixed: canonicalJson({ directive: d.id, statement: c.statement }), sets: {} });
    }
  }
  for (const i of contract.implementations) put(i.id, { kind: 'implementation', fixed: canonicalJson({}), sets: { paths: i.paths } });
  for (const e of contract.evidence) put(e.id, { kind: 'evidence', fixed: canonicalJson({ kind: e.kind }), sets: { paths: e.paths } });
  for (const a of contract.authorities) {
    put(a.id, { kind: 'authority', fixed: canonicalJson({ operation: a.operation, record: a.record }), sets: {} });
  }
  for (const t of contract.tombstones) {
    const fixed = canonicalJson({ directive: t.directive ?? null, authority: t.authority, disposes: sortedUnique(t.disposes) });
    put(t.id, { kind: 'tombstone', fixed, sets: {} });
  }
  return items;
}

export interface ScopeDiff {
  /** New items and relations, and existing items that only gained members. Sorted. */
  readonly additions: string[];
  /** Directives that moved active→done. Sorted. */
  readonly progress: string[];
  /** Exactly the IDs an authority must name for this bind (docs/contract.md#scope-history). Sorted. */
  readonly narrowing: string[];
  /** True when anything but progress changed (the bind increments scope_epoch). */
  readonly scopeChanged: boolean;
}

export function diffScope(previous: Contract, next: Contract): ScopeDiff {
  const before = itemsOf(previous);
  const after = itemsOf(next);
  const additions = new Set<string>();
  const progress = new Set<string>();
  const narrowing = new Set<string>();
  const nextDirectives = new Map(next.directives.map((d) => [d.id, d]));

  for (const [id, old] of before) {
    const now = after.get(id);
    if (now === undefined || now.kind !== old.kind) {
      if (NEVER_DISAPPEAR.has(old.kind)) fail('contract_item_disappeared', [id]);
      narrowing.add(id);
      continue;
    }
    if (IMMUTABLE.has(old.kind)) {
      if (now.fixed !== old.fixed) fail('contract_history_rewritten', [id]);
      continue;
    }
    if (now.fixed !== old.fixed) narrowing.add(id);
    for (const [name, members] of Object.entries(old.sets)) {
      const nowMembers = new Set(now.sets[name] ?? []);
      if (members.some((m) => !nowMembers.has(m))) narrowing.add(id);
      const oldMembers = new Set(members);
      if ([...nowMembers].some((m) => !oldMembers.has(m))) additions.add(id);
    }
    if (old.state !== now.state) {
      if (old.state === 'active' && now.state === 'done') progress.add(id);
      else {
        narrowing.add(id);
        // A newly disposed directive: the authority covers exactly what its tombstone disposes.
        const d = nextDirectives.get(id);
        if (d !== undefined && isDisposedState(d.state)) for (const x of expectedDisposes(next, d)) narrowing.add(x);
      }
    }
  }
  for (const id of after.keys()) if (!before.has(id)) additions.add(id);

  const oldRelations = new Set(contractRelations(previous));
  const newRelations = new Set(contractRelations(next));
  for (const r of oldRelations) if (!newRelations.has(r)) narrowing.add(r);
  for (const r of newRelations) if (!oldRelations.has(r)) additions.add(r);

  // An item that both lost and gained is an edit: it needs authority and is not a pure addition.
  for (const id of narrowing) additions.delete(id);

  const titleChanged = previous.title !== next.title;
  return {
    additions: sortedUnique(additions),
    progress: sortedUnique(progress),
    narrowing: sortedUnique(narrowing),
    scopeChanged: additions.size > 0 || narrowing.size > 0 || titleChanged,
  };
}

/**
 * docs/contract.md#scope-history, docs/authority.md#human-authority-records: narrowing needs a signed authority record whose scope names exactly the affected
 * IDs. `authorityScopeIds` is that scope (null when the bind carries no authority). An authority
 * naming IDs that are not narrowed — or narrowing nothing at all — is refused as well: an authority
 * is consumed for exactly what it covers.
 */
export function requireAuthorityForNarrowing(diff: ScopeDiff, authorityScopeIds: readonly string[] | null): void {
  if (authorityScopeIds === null) {
    if (diff.narrowing.length > 0) fail('contract_narrowing_unauthorized', diff.narrowing);
    return;
  }
  const named = sortedUnique(authorityScopeIds);
  const wanted = new Set(diff.narrowing);
  const missing = diff.narrowing.filter((id) => !named.includes(id));
  const extra = named.filter((id) => !wanted.has(id));
  if (missing.length > 0 || extra.length > 0 || (named.length === 0 && diff.narrowing.length === 0)) {
    // Only the narrowing IDs (contract IDs) are echoed; the authority's extra entries are its input.
    fail('contract_narrowing_authority_mismatch', missing.map((id) => `missing:${id}`));
  }
}
