// The three states a receipt is judged against (docs/contract.md#the-states-a-receipt-is-judged-against). Each digest is `digestOf` over a closed
// object with explicit field names and its own `kind` and `version`, so no two of them (nor any other
// governed digest) can collide by shape: a planning-state object can never be read as a content-state
// object.
//
//   planning state = sources' bytes (their digests) + planning view of the contract + baseline
//                    commit and tree + preservation contract and incident history when present
//   content        = planning state + the whole contract + the workspace digest (docs/contract.md#workspace-digest)
//   work state     = content + work_revision (so an edit A→B→A still restarts a streak)
import { DIGEST_RE, digestOf, type CanonicalValue } from '../canonical.js';
import { fail } from '../errors.js';
import type { Contract, ContractDirective } from './schema.js';
import { compareUtf8 } from './ids.js';
import { isDisposedState } from './tombstones.js';
import { GIT_OID_RE } from '../ids.js';


/** Directive fields of the planning view: no state progress, no implementation/evidence mapping. */
function planningDirective(d: ContractDirective): Record<string, CanonicalValue> {
  return {
    id: d.id,
    statement: d.statement,
    // active→done is progress and stays out; deferred/superseded/abandoned is a scope decision (docs/contract.md#scope-history
    // narrowing) and stays in, or deferring a directive would not touch the planning state.
    disposition: isDisposedState(d.state) ? d.state : 'in_scope',
    sources: [...d.sources],
    targets: d.targets.map((t) => ({ id: t.id, paths: [...t.paths] })),
    criteria: d.criteria.map((c) => ({ id: c.id, statement: c.statement, atoms: [...c.atoms] })),
  };
}

/**
 * docs/contract.md#the-states-a-receipt-is-judged-against: the contract without directive `state` progress and without implementation/evidence
 * mappings (the directives' lists and the top-level `implementations`/`evidence` that define them).
 * Planning is reviewed before implementation exists, so writing code must not re-open it.
 */
export function planningView(contract: Contract): Record<string, CanonicalValue> {
  return {
    kind: 'governed/request-contract-planning-view',
    version: 1,
    title: contract.title,
    sources: contract.sources.map((s) => ({
      id: s.id,
      path: s.path,
      class: s.class,
      atoms: s.atoms.map((a) => ({ id: a.id, span: [a.span[0], a.span[1]], kind: a.kind, directives: [...a.directives] })),
    })),
    directives: contract.directives.map(planningDirective),
    authorities: contract.authorities.map((a) => ({ id: a.id, operation: a.operation, record: a.record })),
    tombstones: contract.tombstones.map((t) => ({
      id: t.id,
      directive: t.directive ?? null,
      authority: t.authority,
      disposes: [...t.disposes],
    })),
  };
}

function requireDigest(value: string, field: string): string {
  if (!DIGEST_RE.test(value)) fail('contract_digest_input_invalid', [field]);
  return value;
}

export interface PlanningStateInput {
  /** Source id → `sha256:<hex>` of the exact bytes read at issuance; exactly the contract's sources. */
  readonly sourceDigests: ReadonlyMap<string, string>;
  readonly contract: Contract;
  /** The unit's baseline, resolved once at `unit create` (docs/commands.md#what-each-command-guarantees). */
  readonly baseline: { readonly commit: string; readonly tree: string };
  /** Digest of the preservation contract (docs/authority.md#human-authority-records), when one is set. */
  readonly preservation?: string;
  /** Digest of the incident history (docs/preservation.md#incident-history), or `none` when the unit has none. */
  readonly incidentHistory?: string;
}

export function planningStateDigest(input: PlanningStateInput): string {
  const ids = input.contract.sources.map((s) => s.id);
  if (input.sourceDigests.size !== ids.length || ids.some((id) => !input.sourceDigests.has(id))) {
    fail('contract_digest_input_invalid', ['source_digests']);
  }
  const sources = [...input.sourceDigests.entries()]
    .sort(([a], [b]) => compareUtf8(a, b))
    .map(([source, digest]) => ({ source, digest: requireDigest(digest, 'source_digests') }));
  if (!GIT_OID_RE.test(input.baseline.commit)) fail('contract_digest_input_invalid', ['baseline.commit']);
  if (!GIT_OID_RE.test(input.baseline.tree)) fail('contract_digest_input_invalid', ['baseline.tree']);
  const preservation = input.preservation === undefined ? null : requireDigest(input.preservation, 'preservation');
  const incident =
    input.incidentHistory === undefined || input.incidentHistory === 'none'
      ? (input.incidentHistory ?? null)
      : requireDigest(input.incidentHistory, 'incident_history');
  return digestOf({
    kind: 'governed/planning-state',
    version: 1,
    sources,
    contract_planning_view: planningView(input.contract),
    baseline: { commit: input.baseline.commit, tree: input.baseline.tree },
    preservation,
    incident_history: incident,
  });
}

export interface ContentInput {
  readonly planningStateDigest: string;
  readonly contract: Contract;
  /** Workspace manifest digest (docs/contract.md#workspace-digest). */
  readonly workspaceDigest: string;
}

export function contentDigest(input: ContentInput): string {
  return digestOf({
    kind: 'governed/content-state',
    version: 1,
    planning_state: requireDigest(input.planningStateDigest, 'planning_state'),
    contract: input.contract as unknown as CanonicalValue,
    workspace: requireDigest(input.workspaceDigest, 'workspace'),
  });
}

export interface WorkStateInput {
  readonly contentDigest: string;
  /** Increments on every `unit bind` and every lease release (docs/contract.md#the-states-a-receipt-is-judged-against). */
  readonly workRevision: number;
}

export function workStateDigest(input: WorkStateInput): string {
  if (!Number.isSafeInteger(input.workRevision) || input.workRevision < 0) fail('contract_digest_input_invalid', ['work_revision']);
  return digestOf({
    kind: 'governed/work-state',
    version: 1,
    content: requireDigest(input.contentDigest, 'content'),
    work_revision: input.workRevision,
  });
}

/** Digest of the whole contract, as bound into challenges and receipts (docs/formats.md#receipt). */
export function contractDigest(contract: Contract): string {
  return digestOf(contract);
}
